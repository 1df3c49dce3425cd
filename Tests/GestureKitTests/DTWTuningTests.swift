import Testing
@testable import GestureKit

/// Tuned 1-NN DTW: the leave-one-out counts behind the choice equal a plain leave-one-out loop over
/// ``DTWDistance``, and training keeps the winner.
@Suite struct DTWTuningTests {
    static let data: Dataset = {
        let d = try! Dataset.load(TestData.basicMotionsTrain)
        return d.subset(stride(from: 0, to: d.examples.count, by: 2))
    }()

    static func bruteForceCorrect(_ variant: DTWVariant, _ band: DTWBand) -> Int {
        let xs = data.examples.map(\.series), ys = data.labelIndices.map { $0! }
        var dtw = DTWDistance(variant: variant, band: band)
        var correct = 0
        for i in xs.indices {
            var best = Float.infinity, label = -1
            for j in xs.indices where j != i {
                let d = dtw.distance(xs[i], xs[j])
                if d < best { best = d; label = ys[j] }
            }
            if label == ys[i] { correct += 1 }
        }
        return correct
    }

    @Test func leaveOneOutCountsEqualAPlainLoopAndTheWinnerIsKept() throws {
        var c = DTWClassifier(variant: .independent)
        c.tune = true
        let xs = Self.data.examples.map(\.series), ys = Self.data.labelIndices.map { $0! }
        let all = DTWClassifier.Model(classes: Self.data.classes, channels: xs[0].channelCount,
                                      templates: xs.flatMap { c.preparation.prepare($0).values },
                                      lengths: xs.map(\.frameCount), labels: ys,
                                      rejection: NullRejection(k: nil, classCount: Self.data.classes.count))
        let models = DTWClassifier.tunedBands.map { f -> DTWClassifier.Model in
            var m = all
            m.rebuildDerived(band: f.map { .fraction($0) } ?? .full)
            return m
        }
        let rows = c.tuning(models)
        #expect(rows.count == 2 * DTWClassifier.tunedBands.count)
        for r in rows where [DTWBand.fraction(0), .fraction(0.1), .full].contains(r.band) {
            #expect(r.correct == Self.bruteForceCorrect(r.variant, r.band), "\(r)")
        }
        try c.train(xs, labels: ys, classes: Self.data.classes)
        let best = try #require(DTWClassifier.best(rows))
        #expect(c.variant == best.variant && c.band == best.band)
        #expect(!rows.contains { $0.correct > best.correct })
    }
}
