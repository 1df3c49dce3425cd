import Foundation
import Testing
@testable import GestureKit

/// DTW classifier: search correctness, serialisation, and accuracy on real data against the issue's
/// targets and the dataset READMEs' published baselines.
@Suite struct DTWClassifierTests {
    static func train(_ c: inout DTWClassifier, _ d: Dataset, _ idx: [Int]? = nil) throws {
        let labels = DTWTestData.labels(d)
        let i = idx ?? Array(d.examples.indices)
        try c.train(i.map { d.examples[$0].series }, labels: i.map { labels[$0] }, classes: d.classes)
    }

    /// Fraction of `test` predicted as their label (rejections count as errors), and fraction rejected.
    static func score(_ c: DTWClassifier, _ d: Dataset, _ test: [Int]) -> (accuracy: Double, rejected: Double) {
        let labels = DTWTestData.labels(d)
        var correct = 0, rejected = 0
        for t in test {
            let p = c.predict(d.examples[t].series)
            if p.classIndex == nil { rejected += 1 } else if p.classIndex == labels[t] { correct += 1 }
        }
        return (Double(correct) / Double(test.count), Double(rejected) / Double(test.count))
    }

    static func crossValidate(_ make: () -> DTWClassifier, _ d: Dataset, folds: Int = 10) throws -> (accuracy: Double, rejected: Double) {
        var acc = 0.0, rej = 0.0
        for s in try d.folds(folds, seed: 0) {
            var c = make()
            try train(&c, d, s.train)
            let r = score(c, d, s.test)
            acc += r.accuracy * Double(s.test.count)
            rej += r.rejected * Double(s.test.count)
        }
        return (acc / Double(d.examples.count), rej / Double(d.examples.count))
    }

    // MARK: synthetic

    /// Three noisy shapes (sine, square, ramp) of varying length and phase.
    static func synthetic(count: Int, seed: UInt64) -> (series: [TimeSeries], labels: [Int]) {
        var rng = SeededGenerator(seed: seed)
        var series: [TimeSeries] = [], labels: [Int] = []
        for i in 0..<count {
            let cls = i % 3, n = 30 + Int(rng.next() % 20)
            let phase = Float(rng.nextUnit()) * 0.5
            var frames: [[Float]] = []
            for t in 0..<n {
                let x = Float(t) / Float(n) * 2 * .pi + phase
                let v: Float = cls == 0 ? sinf(x) : cls == 1 ? (sinf(x) > 0 ? 1 : -1) : x / .pi - 1
                frames.append([v + 0.1 * rng.nextGaussian(), -v + 0.1 * rng.nextGaussian()])
            }
            series.append(TimeSeries(frames: frames))
            labels.append(cls)
        }
        return (series, labels)
    }

    /// The pruned search (lower bounds, early abandoning) must find exactly the per-class minima that
    /// a brute-force loop over every template finds.
    @Test(arguments: [DTWVariant.dependent, .independent], [DTWBand.full, .fraction(0.15)])
    func prunedSearchMatchesBruteForce(variant: DTWVariant, band: DTWBand) throws {
        let (train, labels) = Self.synthetic(count: 60, seed: 1)
        let (test, _) = Self.synthetic(count: 30, seed: 2)
        for resample in [nil, 40] as [Int?] {
            var c = DTWClassifier(variant: variant, band: band, resample: resample)
            try c.train(train, labels: labels, classes: ["sine", "square", "ramp"])
            let prep = c.preparation
            var dtw = DTWDistance(variant: variant, band: band)
            for q in test {
                var best = [Float](repeating: .infinity, count: 3)
                let pq = prep.prepare(q)
                let tq = TimeSeries(channels: (0..<2).map { Array(pq.values[($0 * pq.frames)..<(($0 + 1) * pq.frames)]) })
                for (t, s) in train.enumerated() {
                    let ps = prep.prepare(s)
                    let ts = TimeSeries(channels: (0..<2).map { Array(ps.values[($0 * ps.frames)..<(($0 + 1) * ps.frames)]) })
                    best[labels[t]] = min(best[labels[t]], dtw.distance(tq, ts))
                }
                let p = c.predict(q)
                let top = best.indices.min { best[$0] < best[$1] }!
                #expect(p.classIndex == top)
                #expect(p.distance == best[top])
                // Per-class distances: exact within the score margin, else the margin's lower bound.
                var searcher = DTWClassifier.Searcher(model: c.model!)
                let got = pq.values.withUnsafeBufferPointer {
                    searcher.nearest(model: c.model!, variant: variant, band: band, query: $0.baseAddress!,
                                     n: pq.frames, excluding: nil, onlyClass: nil)
                }
                let margin = DTWClassifier.scoreMargin * best[top]
                for k in 0..<3 {
                    if best[k] < margin {
                        #expect(got[k] == best[k])
                    } else {
                        #expect(got[k] == margin && best[k] >= margin)
                    }
                }
                let inv = got.map { 1 / $0 }, total = inv.reduce(0, +)
                for k in 0..<3 { #expect(abs(p.scores[k] - inv[k] / total) < 1e-5) }
            }
        }
    }

    @Test func handWrittenSpecDecodesWithDefaults() throws {
        let json = #"{"kind":"dtw","variant":"independent","band":0.1,"nullRejection":2}"#
        let c = try JSONDecoder().decode(DTWClassifier.self, from: Data(json.utf8))
        #expect(c.variant == .independent)
        #expect(c.band == .fraction(0.1))
        #expect(c.nullRejection == 2)
        #expect(c.trim == nil && c.resample == nil && c.zNormalize == false && c.medoids == nil)
        #expect(c.model == nil)
        try c.validate()
        let empty = try JSONDecoder().decode(DTWClassifier.self, from: Data("{}".utf8))
        #expect(empty.variant == .dependent && empty.band == .full && empty.nullRejection == nil)
        let samples = try JSONDecoder().decode(DTWClassifier.self, from: Data(#"{"bandSamples":7}"#.utf8))
        #expect(samples.band == .samples(7))
        // Untrained: no learned state in the output.
        let text = String(decoding: try JSONEncoder().encode(c), as: UTF8.self)
        #expect(!text.contains("trained"))
        let bad = try JSONDecoder().decode(DTWClassifier.self, from: Data(#"{"band":1.5}"#.utf8))
        #expect(throws: GestureKitError.self) { try bad.validate() }
    }

    /// A classifier built in code never passes through `validate()` on load, so `train` refuses
    /// each setting out of range itself, naming it, before any example is prepared.
    @Test func trainRefusesSettingsOutOfRange() throws {
        let (series, labels) = Self.synthetic(count: 12, seed: 3)
        var bad: [(String, DTWClassifier)] = []
        var c = DTWClassifier(); c.derivative = -1; bad.append(("derivative", c))
        c = DTWClassifier(); c.derivative = .nan; bad.append(("derivative", c))
        c = DTWClassifier(); c.trim = 1; bad.append(("trim", c))
        c = DTWClassifier(); c.nullRejection = .infinity; bad.append(("nullRejection", c))
        c = DTWClassifier(); c.band = .fraction(1.5); bad.append(("band", c))
        c = DTWClassifier(); c.medoids = 0; bad.append(("medoids", c))
        for (field, classifier) in bad {
            var t = classifier
            do {
                try t.train(series, labels: labels, classes: ["a", "b", "c"])
                Issue.record("trained with \(field) out of range")
            } catch let e as GestureKitError {
                #expect(e.field == field)
            }
            #expect(t.model == nil)
        }
        var good = DTWClassifier(); good.derivative = 0.5
        try good.train(series, labels: labels, classes: ["a", "b", "c"])
        #expect(good.model != nil)
    }

    /// The same spec through the pipeline's stage decoding (which handles `kind` and rejects keys a
    /// stage does not know).
    @Test func specDecodesThroughPipeline() throws {
        let json = #"{"classifier": {"kind":"dtw","variant":"independent","band":0.1,"nullRejection":2,"zNormalize":true,"resample":null}}"#
        let spec = try JSONDecoder().decode(PipelineSpec.self, from: Data(json.utf8))
        #expect(spec.classifier.kind == "dtw")
        let typo = #"{"classifier": {"kind":"dtw","bandd":0.1}}"#
        #expect(throws: (any Error).self) { try JSONDecoder().decode(PipelineSpec.self, from: Data(typo.utf8)) }
        let knn = #"{"classifier": {"kind":"knn","k":"auto","metric":"manhattan","distanceWeighting":true}}"#
        #expect(try JSONDecoder().decode(PipelineSpec.self, from: Data(knn.utf8)).classifier.kind == "knn")
    }

    @Test(arguments: [nil, 2] as [Int?])
    func saveLoadGivesBitIdenticalPredictions(medoids: Int?) throws {
        let (train, labels) = Self.synthetic(count: 45, seed: 3)
        let (test, _) = Self.synthetic(count: 30, seed: 4)
        var c = DTWClassifier(variant: .dependent, band: .fraction(0.2), trim: 0.05, resample: 32, zNormalize: true,
                              medoids: medoids, nullRejection: 2)
        try c.train(train, labels: labels, classes: ["a", "b", "c"])
        let data = try JSONEncoder().encode(c)
        let loaded = try JSONDecoder().decode(DTWClassifier.self, from: data)
        try loaded.validate()
        for q in test {
            let a = c.predict(q), b = loaded.predict(q)
            #expect(a.classIndex == b.classIndex)
            #expect(a.distance?.bitPattern == b.distance?.bitPattern)
            #expect(a.scores.map(\.bitPattern) == b.scores.map(\.bitPattern))
        }
        if let medoids { #expect(c.model!.lengths.count == 3 * medoids) }
    }

    @Test func corruptTrainedStateIsRejected() throws {
        let (train, labels) = Self.synthetic(count: 9, seed: 5)
        var c = DTWClassifier()
        try c.train(train, labels: labels, classes: ["a", "b", "c"])
        var obj = try JSONSerialization.jsonObject(with: JSONEncoder().encode(c)) as! [String: Any]
        var trained = obj["trained"] as! [String: Any]
        trained["lengths"] = (trained["lengths"] as! [Int]).dropLast().map { $0 }
        obj["trained"] = trained
        let data = try JSONSerialization.data(withJSONObject: obj)
        #expect(throws: GestureKitError.self) { try JSONDecoder().decode(DTWClassifier.self, from: data) }
    }

    @Test func rejectsBadTrainingInput() {
        var c = DTWClassifier()
        #expect(throws: GestureKitError.self) { try c.train([], labels: [], classes: ["a"]) }
        let a = TimeSeries(channels: [[1, 2, 3]]), b = TimeSeries(channels: [[1, 2], [3, 4]])
        #expect(throws: GestureKitError.self) { try c.train([a, b], labels: [0, 0], classes: ["a"]) }
        #expect(throws: GestureKitError.self) { try c.train([a], labels: [1], classes: ["a"]) }
        let nan = TimeSeries(channels: [[1, .nan]])
        #expect(throws: GestureKitError.self) { try c.train([nan], labels: [0], classes: ["a"]) }
    }

    // MARK: real data

    /// BasicMotions README: 1-NN full-window DTW, raw values: dependent 0.975, independent 1.000.
    @Test func basicMotionsTrainTest() throws {
        let train = try Dataset.load(TestData.basicMotionsTrain)
        var test = try Dataset.load(TestData.basicMotionsTest)
        test.classes = train.classes
        var dep = DTWClassifier(variant: .dependent)
        try Self.train(&dep, train)
        #expect(Self.score(dep, test, Array(test.examples.indices)).accuracy >= 0.975)
        var ind = DTWClassifier(variant: .independent)
        try Self.train(&ind, train)
        #expect(Self.score(ind, test, Array(test.examples.indices)).accuracy == 1.0)
    }

    /// A query identical to a template is named by that template's class: the classes pruned at
    /// the nearest distance 0 used to tie with it at 0, and the tie went to class 0.
    @Test func aTrainingExampleIsNamedByItsOwnClass() throws {
        let train = try Dataset.load(TestData.basicMotionsTrain)
        var dtw = DTWClassifier()
        try Self.train(&dtw, train)
        for e in train.examples {
            let p = dtw.predict(e.series)
            #expect(p.classIndex == train.classes.firstIndex(of: e.label!), "\(e.label!): \(p.scores)")
            #expect(p.distance == 0)
        }
    }

    /// uWave TRAIN, 10-fold CV, 1-NN dependent DTW (README: 0.903 on the official split).
    @Test(.enabled(if: DTWTestData.available, TestData.needsShared)) func uwaveCrossValidation() throws {
        let d = try DTWTestData.load("uwave/UWaveGestureLibrary_TRAIN.ts")
        let r = try Self.crossValidate({ DTWClassifier(variant: .dependent, band: .fraction(0.1)) }, d)
        #expect(r.accuracy >= 0.90, "accuracy \(r.accuracy)")
    }

    /// The GRT letters G/R/T with null rejection: the configuration the DTW example pipeline uses
    /// (z-normalised, resampled to 50, 10 % band, k = 10; see the report for how it was chosen).
    static func letters() -> DTWClassifier {
        DTWClassifier(variant: .dependent, band: .fraction(0.1), resample: 50, zNormalize: true, nullRejection: 10)
    }

    @Test(.enabled(if: DTWTestData.available, TestData.needsShared)) func grtLettersWithNullRejection() throws {
        let d = try DTWTestData.load("grt/DTWTrainingData.grt")
        let r = try Self.crossValidate(Self.letters, d)
        #expect(r.accuracy >= 0.98, "accuracy \(r.accuracy)")
        #expect(r.rejected <= 0.02, "rejected \(r.rejected)")
    }

    /// Open set: trained on two letters, the third must be rejected (>= 90 %), for each letter held out.
    @Test(.enabled(if: DTWTestData.available, TestData.needsShared)) func grtLettersOpenSet() throws {
        let d = try DTWTestData.load("grt/DTWTrainingData.grt")
        let labels = DTWTestData.labels(d)
        for held in d.classes.indices {
            var c = Self.letters()
            try Self.train(&c, d, labels.indices.filter { labels[$0] != held })
            let third = labels.indices.filter { labels[$0] == held }
            let r = Self.score(c, d, third)
            #expect(r.rejected >= 0.9, "letter \(d.classes[held]): rejected \(r.rejected)")
            #expect(c.summary["nullRejection"]!.hasPrefix("k = 10"))
        }
    }

    /// The compact model (one medoid per class) keeps the letters apart too.
    @Test(.enabled(if: DTWTestData.available, TestData.needsShared)) func grtLettersMedoids() throws {
        let d = try DTWTestData.load("grt/DTWTrainingData.grt")
        var make = Self.letters()
        make.medoids = 1
        let r = try Self.crossValidate({ make }, d)
        #expect(r.accuracy >= 0.98, "accuracy \(r.accuracy)")
    }
}
