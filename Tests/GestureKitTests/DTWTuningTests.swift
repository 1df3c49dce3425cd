import Foundation
import Testing
@testable import GestureKit

/// Tuned 1-NN DTW: the leave-one-out counts behind the choice equal a plain leave-one-out loop over
/// ``DTWDistance``, and training keeps the winner.
@Suite struct DTWTuningTests {
    static let data: Dataset = {
        let d = try! Dataset.load(TestData.basicMotionsTrain)
        return d.subset(stride(from: 0, to: d.examples.count, by: 2))
    }()

    /// Each channel's first difference appended, times `weight` x (spread of the channel's values /
    /// spread of its differences, over every example), the first frame repeating the second's. With
    /// `clamped`, each difference first clamped to the largest step of its channel in `scaledOn`.
    static func differenced(_ xs: [TimeSeries], weight: Float, scaledOn: [TimeSeries]? = nil,
                            clamped: Bool = false) -> [TimeSeries] {
        let c = xs[0].channelCount, on = scaledOn ?? xs
        let scales: [Float] = (0..<c).map { ch in
            let v = on.flatMap { x in (0..<x.frameCount).map { Double(x.values[$0 * c + ch]) } }
            let d = on.flatMap { x in (1..<x.frameCount).map { Double(x.values[$0 * c + ch] - x.values[($0 - 1) * c + ch]) } }
            func variance(_ a: [Double]) -> Double {
                let m = a.reduce(0, +) / Double(a.count)
                return a.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(a.count)
            }
            return weight * Float((variance(v) / variance(d)).squareRoot())
        }
        let limits: [Float] = (0..<c).map { ch in
            guard clamped else { return .infinity }
            return on.flatMap { x in (1..<x.frameCount).map { abs(x.values[$0 * c + ch] - x.values[($0 - 1) * c + ch]) } }.max()!
        }
        return xs.map { x in
            let n = x.frameCount
            let frames: [[Float]] = (0..<n).map { t in
                let u = max(t, 1)
                return (0..<c).map { x.values[t * c + $0] }
                    + (0..<c).map { ch in
                        min(max(x.values[u * c + ch] - x.values[(u - 1) * c + ch], -limits[ch]), limits[ch]) * scales[ch]
                    }
            }
            return TimeSeries(frames: frames)
        }
    }

    static func bruteForceCorrect(_ variant: DTWVariant, _ band: DTWBand, derivative: Float? = nil) -> Int {
        let raw = data.examples.map(\.series), ys = data.labelIndices.map { $0! }
        let xs = derivative.map { differenced(raw, weight: $0) } ?? raw
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
        var all2 = rows
        for w in DTWClassifier.tunedDerivatives {
            let scales = models[0].differenceScales(weight: w)
            let differenced = DTWClassifier.tunedBands.indices.map { k -> DTWClassifier.Model in
                var m = models[k]
                m.setDifferences(scales, band: DTWClassifier.tunedBands[k].map { .fraction($0) } ?? .full)
                return m
            }
            let dRows = c.tuning(differenced, derivative: w)
            for r in dRows where [DTWBand.fraction(0), .full].contains(r.band) {
                #expect(r.correct == Self.bruteForceCorrect(r.variant, r.band, derivative: w), "\(r)")
            }
            all2 += dRows
        }
        try c.train(xs, labels: ys, classes: Self.data.classes)
        let best = try #require(DTWClassifier.chosen(all2))
        #expect(c.variant == best.variant && c.band == best.band && c.derivative == best.derivative)
        let plain = all2.filter { $0.derivative == nil }, differenced = all2.filter { $0.derivative != nil }
        #expect(!plain.contains { $0.correct > best.correct })
        let margin = Int((DTWClassifier.derivativeMargin * Double(Self.data.examples.count)).rounded(.down))
        #expect(best.derivative != nil || !differenced.contains { $0.correct > best.correct + margin })
    }

    /// A classifier trained with differences predicts from its file as it did before saving, and its
    /// whole-example distance is DTW over the series with the differences appended.
    @Test func derivativeSurvivesTheFileAndMeasuresTheDifferencedSeries() throws {
        let xs = Self.data.examples.map(\.series), ys = Self.data.labelIndices.map { $0! }
        var c = DTWClassifier(variant: .dependent, band: .fraction(0.1), nullRejection: 3)
        c.derivative = 0.5
        try c.train(Array(xs.dropLast()), labels: Array(ys.dropLast()), classes: Self.data.classes)
        let loaded = try JSONDecoder().decode(DTWClassifier.self, from: JSONEncoder().encode(c))
        try loaded.validate()
        #expect(loaded.derivative == 0.5 && loaded.model?.derivativeScales == c.model?.derivativeScales)
        let q = xs.last!
        let a = c.predict(q), b = loaded.predict(q)
        #expect(a.classIndex == b.classIndex && a.distance?.bitPattern == b.distance?.bitPattern)
        let d = Self.differenced(xs, weight: 0.5, scaledOn: Array(xs.dropLast()))
        var dtw = DTWDistance(variant: .dependent, band: .fraction(0.1))
        let nearest = d.dropLast().map { dtw.distance(d.last!, $0) }.min()!
        #expect(abs(try #require(a.distance) - nearest) <= 1e-4 * nearest)
        var corrupt = try JSONSerialization.jsonObject(with: JSONEncoder().encode(c)) as! [String: Any]
        var trained = corrupt["trained"] as! [String: Any]
        trained["derivativeScales"] = try JSONSerialization.jsonObject(with: JSONEncoder().encode(PackedFloats([1])),
                                                                       options: .fragmentsAllowed)
        corrupt["trained"] = trained
        #expect(throws: GestureKitError.self) {
            try JSONDecoder().decode(DTWClassifier.self, from: JSONSerialization.data(withJSONObject: corrupt))
        }
    }

    /// A query's step larger than any template takes (a held level meeting a gesture's start) counts
    /// in the differences as the largest step the templates take, no more.
    @Test func aStepNoTemplateTakesIsClampedInTheDifferences() throws {
        let xs = Self.data.examples.map(\.series), ys = Self.data.labelIndices.map { $0! }
        let train = Array(xs.dropLast())
        var c = DTWClassifier(variant: .dependent, band: .fraction(0.1))
        c.derivative = 1
        try c.train(train, labels: Array(ys.dropLast()), classes: Self.data.classes)
        // The last example held 100 above its first frame for 10 frames before it starts.
        let q = xs.last!, ch = q.channelCount
        let held = (0..<10).flatMap { _ in (0..<ch).map { q.values[$0] + 100 } }
        let stepped = TimeSeries(values: held + q.values, channelCount: ch)
        let got = try #require(c.predict(stepped).distance)
        var dtw = DTWDistance(variant: .dependent, band: .fraction(0.1))
        func nearest(clamped: Bool) -> Float {
            let d = Self.differenced(train + [stepped], weight: 1, scaledOn: train, clamped: clamped)
            return d.dropLast().map { dtw.distance(d.last!, $0) }.min()!
        }
        let want = nearest(clamped: true), unclamped = nearest(clamped: false)
        #expect(abs(got - want) <= 1e-4 * want, "\(got) against \(want)")
        #expect(unclamped > 1.05 * want, "the step must matter: \(unclamped) unclamped against \(want)")
    }

    /// Two shapes (a bump, a dip) at levels that vary more between performances than the shapes
    /// do: values alone name them by level, their differences by shape, and tuning finds that.
    @Test func tuningTakesDifferencesWhereLevelsMislead() throws {
        var rng = SeededGenerator(seed: 11)
        func example(_ cls: Int) -> TimeSeries {
            let level = Float(rng.next() % 4000) / 100 - 20, n = 40 + Int(rng.next() % 10)
            return TimeSeries(channels: [(0..<n).map { t in
                let bump = Float(sin(Double.pi * Double(t) / Double(n - 1)))
                return level + (cls == 0 ? bump : -bump) + Float(rng.next() % 100) / 1000
            }])
        }
        // Few examples, so the nearest level is often the other shape's.
        let labels = (0..<12).map { $0 % 2 }, testLabels = (0..<60).map { $0 % 2 }
        let train = labels.map(example), test = testLabels.map(example)
        var tuned = DTWClassifier(variant: .dependent)
        tuned.tune = true
        try tuned.train(train, labels: labels, classes: ["bump", "dip"])
        var plain = DTWClassifier(variant: .dependent)
        try plain.train(train, labels: labels, classes: ["bump", "dip"])
        #expect(tuned.derivative != nil)
        let right = { (c: DTWClassifier) in zip(test, testLabels).filter { c.predict($0).classIndex == $1 }.count }
        #expect(right(tuned) >= 57, "tuned \(right(tuned)) of 60")
        #expect(right(plain) <= 45, "values alone \(right(plain)) of 60")
    }
}
