import Foundation
import Testing
@testable import GestureKit

/// The contract every classifier keeps inside a pipeline, whole-example and windowed: it trains and
/// predicts, a saved and reloaded pipeline gives bit-identical outputs, reset restores the initial
/// state, and wrong channel counts or non-finite input are errors, not answers.
@Suite struct ClassifierConformanceTests {
    static let specs: [(String, String)] = [
        ("dtw", #"{"classifier": {"kind": "dtw", "nullRejection": 2}}"#),
        ("dtw-medoids", #"{"classifier": {"kind": "dtw", "variant": "dependent", "medoids": 2, "band": 0.2}}"#),
        ("knn", #"{"features": {"extractors": [{"kind": "timeDomain"}], "transforms": [{"kind": "scale"}]}, "classifier": {"kind": "knn", "k": 3, "nullRejection": 3}}"#),
        ("centroid", #"{"features": {"extractors": [{"kind": "timeDomain"}, {"kind": "fft"}], "transforms": [{"kind": "pca", "components": 6}]}, "classifier": {"kind": "centroid", "nullRejection": 3}}"#),
        ("lstm", #"{"classifier": {"kind": "lstm", "hidden": 16, "epochs": 30, "seed": 3}}"#),
        ("lstm-window", #"{"features": {"window": 25, "hop": 25}, "classifier": {"kind": "lstm", "hidden": 16, "epochs": 30}}"#),
        ("knn-window", #"{"preprocessing": [{"kind": "median", "window": 3}], "features": {"window": 20, "hop": 10, "extractors": [{"kind": "timeDomain"}]}, "classifier": {"kind": "knn", "k": 1}, "postprocessing": [{"kind": "timeout", "frames": 10}]}"#),
        ("minirocket", #"{"features": {"extractors": [{"kind": "miniRocket", "features": 2000}]}, "classifier": {"kind": "ridge"}}"#),
        ("minirocket-window", #"{"features": {"window": 30, "hop": 10, "extractors": [{"kind": "miniRocket", "features": 1000}]}, "classifier": {"kind": "ridge"}}"#),
    ]

    static let train: Dataset = {
        let d = try! Dataset.load(TestData.basicMotionsTrain)
        return d.subset(stride(from: 0, to: d.examples.count, by: 2))
    }()
    static let test: Dataset = try! Dataset.load(TestData.basicMotionsTest)

    /// Every default pipeline (one per classifier that has one, from the kind list) and the variants above.
    static let names = DefaultSpecs.names.map { "default " + $0 } + specs.map(\.0)

    static func spec(_ name: String) throws -> PipelineSpec {
        if name.hasPrefix("default ") { return try DefaultSpecs.pipeline(named: String(name.dropFirst(8))).spec }
        return try TestData.spec(Self.specs.first { $0.0 == name }!.1)
    }

    @Test(arguments: names)
    func conformance(name: String) throws {
        let spec = try Self.spec(name)
        let p = try Pipeline.train(spec, on: Self.train)
        #expect(p.classes == ["Standing", "Running", "Walking", "Badminton"])

        // Trains to something better than chance on held-out data.
        let report = try Evaluation.evaluate(p, on: Self.test).report
        #expect(report.accuracy > 0.4, "\(name): accuracy \(report.accuracy)")

        // Save -> load -> bit-identical predictions.
        let path = TestData.temporaryFile("conformance-\(name)-\(UUID().uuidString).gesture")
        try p.save(to: path)
        let q = try Pipeline.load(path)
        for e in Self.test.examples {
            let a = try p.predict(e.series), b = try q.predict(e.series)
            #expect(a.classIndex == b.classIndex, "\(name)")
            #expect(a.scores.map(\.bitPattern) == b.scores.map(\.bitPattern), "\(name)")
            #expect(a.confidence.bitPattern == b.confidence.bitPattern, "\(name)")
        }

        // Reset restores the initial state: after another series and a reset, a series gives what a
        // fresh recogniser gives, frame by frame.
        var used = p.wholeSeriesRecognizer()
        for f in 0..<Self.test.examples[3].series.frameCount { _ = try used.push(Array(Self.test.examples[3].series.frame(f))) }
        used.reset()
        var fresh = p.wholeSeriesRecognizer()
        let s = Self.test.examples[27].series
        for f in 0..<s.frameCount {
            let x = try used.push(Array(s.frame(f))), y = try fresh.push(Array(s.frame(f)))
            #expect(x == y, "\(name) frame \(f)")
        }
        #expect(used.finish() == fresh.finish())

        // Wrong channel count and non-finite input are errors.
        #expect(throws: GestureKitError.self) { try p.predict(TimeSeries(values: [Float](repeating: 0, count: 40), channelCount: 2)) }
        var bad = s
        bad[10, 4] = .infinity
        #expect(throws: GestureKitError.self) { try p.predict(bad) }
    }
}

/// A windowed LSTM pipeline decides through interleaved slots that carry LSTM state; each decision
/// must equal classifying that window from scratch.
@Suite struct LSTMWindowedRecognizerTests {
    @Test func slotDecisionsEqualWholeWindowPredictions() throws {
        let spec = try TestData.spec(#"{"features": {"window": 20, "hop": 5}, "classifier": {"kind": "lstm", "hidden": 12, "epochs": 5}}"#)
        let p = try Pipeline.train(spec, on: ClassifierConformanceTests.train)
        guard case .sequence(let classifier) = p.spec.classifier else { Issue.record("expected a sequence classifier"); return }
        for e in ClassifierConformanceTests.test.examples.prefix(8) {
            var r = p.recognizer()
            var decisions = 0
            for f in 0..<e.series.frameCount {
                _ = try r.push(Array(e.series.frame(f)))
                guard f + 1 >= 20, (f + 1 - 20) % 5 == 0 else { continue }
                let expected = classifier.predict(e.series.frames((f - 19)..<(f + 1)))
                #expect(r.lastRawDecision?.scores == expected.scores, "frame \(f)")
                decisions += 1
            }
            #expect(decisions == 17)
        }
    }
}
