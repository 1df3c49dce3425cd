import Foundation
import Testing
@testable import GestureKit

/// The features + minimum-distance pipeline used across these tests (pipelines/centroid.json).
private func centroidSpec() throws -> PipelineSpec {
    try DefaultSpecs.build(classifier: "centroid", specFile: nil)
}

/// A windowed pipeline with filtering and post-processing, to exercise the streaming ring buffer.
private func windowedSpec() throws -> PipelineSpec {
    try TestData.spec("""
    {
      "preprocessing": [{"kind": "movingAverage", "window": 3}],
      "features": {"window": 20, "hop": 5,
                   "extractors": [{"kind": "timeDomain", "features": ["mean", "std", "min", "max"]}],
                   "transforms": [{"kind": "scale", "method": "zscore"}]},
      "classifier": {"kind": "centroid"},
      "postprocessing": [{"kind": "labelFilter", "minimumCount": 2, "bufferSize": 3}]
    }
    """)
}

@Suite struct PipelineTests {
    let train: Dataset
    let test: Dataset

    init() throws {
        train = try Dataset.load(TestData.basicMotionsTrain)
        test = try Dataset.load(TestData.basicMotionsTest)
    }

    @Test func centroidPipelineReachesNinetyPercentOnBasicMotions() throws {
        let p = try Pipeline.train(try centroidSpec(), on: train)
        let report = try Evaluation.evaluate(p, on: test).report
        #expect(report.accuracy >= 0.90, "accuracy \(report.accuracy)")
        #expect(report.examples == 40)
    }

    @Test func saveLoadGivesBitIdenticalPredictions() throws {
        for spec in [try centroidSpec(), try windowedSpec()] {
            let p = try Pipeline.train(spec, on: train)
            let path = TestData.temporaryFile("roundtrip-\(UUID().uuidString).gesture")
            try p.save(to: path)
            let q = try Pipeline.load(path)
            for e in test.examples {
                let a = try p.predict(e.series), b = try q.predict(e.series)
                #expect(a.classIndex == b.classIndex)
                #expect(a.confidence.bitPattern == b.confidence.bitPattern)
                #expect(a.scores.map(\.bitPattern) == b.scores.map(\.bitPattern))
            }
            // Saving the reloaded pipeline writes the same bytes: nothing is lost or rounded.
            let again = TestData.temporaryFile("roundtrip-again-\(UUID().uuidString).gesture")
            try q.save(to: again)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(contentsOf: URL(fileURLWithPath: again)))
        }
    }

    /// Streaming must equal an independent batch computation: windows cut from the pre-processed
    /// series, features, transforms and classifier applied directly, post-processing in order, votes.
    @Test func streamingAgreesWithBatchOnEveryTestSeries() throws {
        let p = try Pipeline.train(try windowedSpec(), on: train)
        let w = try #require(p.spec.window)
        for e in test.examples {
            var s = e.series
            for stage in p.spec.preprocessing { s = stage.apply(to: s) }
            guard case .vector(let classifier) = p.spec.classifier else { Issue.record("expected a vector classifier"); return }
            var post = p.spec.postprocessing
            for i in post.indices { post[i].reset() }
            var votes = [Int](repeating: 0, count: p.classes.count)
            for (k, start) in stride(from: 0, through: s.frameCount - w.size, by: w.hop).enumerated() {
                var v = Pipeline.features(of: s.frames(start..<(start + w.size)), p.spec.extractors)
                for t in p.spec.transforms { v = t.transform(v) }
                var pred = classifier.predict(v)
                for i in post.indices { pred = post[i].process(pred, frame: start + w.size - 1) }
                if let c = pred.classIndex { votes[c] += 1 }
                _ = k
            }
            var r = p.wholeSeriesRecognizer()
            for f in 0..<e.series.frameCount { _ = try r.push(Array(e.series.frame(f))) }
            let streamed = r.finish()
            let best = votes.max() ?? 0
            if best == 0 {
                #expect(streamed.classIndex == nil)
            } else {
                #expect(streamed.classIndex.map { votes[$0] } == best)
            }
            #expect(try p.predict(e.series) == streamed)
        }
    }

    @Test func resetRestoresTheInitialState() throws {
        let p = try Pipeline.train(try windowedSpec(), on: train)
        var r = p.wholeSeriesRecognizer()
        let a = test.examples[0].series, b = test.examples[25].series
        for f in 0..<a.frameCount { _ = try r.push(Array(a.frame(f))) }
        r.reset()
        var fresh = p.wholeSeriesRecognizer()
        for f in 0..<b.frameCount {
            let x = try r.push(Array(b.frame(f))), y = try fresh.push(Array(b.frame(f)))
            #expect(x == y)
        }
        #expect(r.finish() == fresh.finish())
    }

    @Test func wrongChannelCountAndNonFiniteInputAreErrors() throws {
        let p = try Pipeline.train(try centroidSpec(), on: train)
        let three = TimeSeries(values: [Float](repeating: 0, count: 30), channelCount: 3)
        #expect(throws: GestureKitError.self) { try p.predict(three) }
        var bad = test.examples[0].series
        bad[5, 2] = .nan
        #expect(throws: GestureKitError.self) { try p.predict(bad) }
        var r = p.wholeSeriesRecognizer()
        #expect(throws: GestureKitError.self) { try r.push([1, 2, 3]) }
        #expect(throws: GestureKitError.self) { try r.push([1, 2, 3, 4, 5, .infinity]) }
    }

    @Test func restLabelIsTrainedButReportedAsNull() throws {
        var spec = try centroidSpec()
        spec.rest = "Standing"
        let p = try Pipeline.train(spec, on: train)
        #expect(p.classes.contains("Standing"))
        let standing = test.examples.filter { $0.label == "Standing" }
        let predicted = try standing.map { try p.label(of: p.predict($0.series)) }
        #expect(predicted.filter { $0 == nil }.count >= 8, "\(predicted)")
        #expect(!predicted.contains("Standing"))
        let report = try Evaluation.evaluate(p, on: test).report
        #expect(!report.labels.contains("Standing"))
        #expect(report.accuracy >= 0.85)
    }

    @Test func crossValidationUsesEveryExampleOnce() throws {
        let report = try Evaluation.crossValidate(try centroidSpec(), on: train, folds: 5)
        #expect(report.examples == 40)
        #expect(report.confusion.matrix.flatMap { $0 }.reduce(0, +) == 40)
        #expect(report.accuracy > 0.8)
    }
}

@Suite struct PipelineFileTests {
    let pipeline: Pipeline
    let path: String

    init() throws {
        pipeline = try Pipeline.train(try DefaultSpecs.build(classifier: "centroid", specFile: nil),
                                      on: try Dataset.load(TestData.basicMotionsTrain))
        path = TestData.temporaryFile("file-\(UUID().uuidString).gesture")
        try pipeline.save(to: path)
    }

    private func expectRejected(_ data: Data, containing fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try Pipeline.decode(data, file: "m.gesture")
            Issue.record("a damaged pipeline file was accepted", sourceLocation: sourceLocation)
        } catch let e as GestureKitError {
            #expect(e.description.hasPrefix("m.gesture"), sourceLocation: sourceLocation)
            #expect(e.description.contains(fragment), "\(e.description)", sourceLocation: sourceLocation)
            #expect(!e.description.contains("\n"), sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func truncatedFileIsRejected() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        for cut in [0, 10, data.count / 2, data.count - 3] {
            expectRejected(data.prefix(cut), containing: cut == 0 ? "empty" : "not")
        }
    }

    @Test func flippedByteInANumberIsRejected() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let text = String(decoding: data, as: UTF8.self)
        // A digit inside the training summary and a character inside a base64 float array.
        let digit = try #require(text.range(of: "\"examples\":")).upperBound
        var a = Array(data)
        let i = text.utf8.distance(from: text.utf8.startIndex, to: digit)
        a[i] = a[i] == UInt8(ascii: "4") ? UInt8(ascii: "5") : UInt8(ascii: "4")
        expectRejected(Data(a), containing: "checksum")
        let packed = try #require(text.range(of: "\"centroids\":\"")).upperBound
        var b = Array(data)
        let j = text.utf8.distance(from: text.utf8.startIndex, to: packed) + 2
        b[j] = b[j] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        expectRejected(Data(b), containing: "checksum")
    }

    @Test func futureVersionIsRejected() throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
            .replacingOccurrences(of: "\"version\":1,", with: "\"version\":7,")
        expectRejected(Data(text.utf8), containing: "version 7 is newer")
    }

    @Test func otherFilesAreRejected() {
        expectRejected(Data("{\"format\":\"something\",\"version\":1}".utf8), containing: "not a GestureKit pipeline")
        expectRejected(Data([0xff, 0x00, 0x13, 0x37]), containing: "not a GestureKit pipeline")
    }

    @Test func saveIsAtomicAndKeepsTheOldFileOnFailure() throws {
        // A save into a folder that does not exist fails without touching anything.
        #expect(throws: GestureKitError.self) { try pipeline.save(to: "/nonexistent-dir/m.gesture") }
        // Replacing an existing file leaves no temporary file behind.
        try pipeline.save(to: path)
        let url = URL(fileURLWithPath: path), dir = url.deletingLastPathComponent()
        // Only this file's temporaries: other tests save into the same folder at the same time.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.contains(url.lastPathComponent + ".tmp-") }
        #expect(leftovers.isEmpty)
        #expect(try Pipeline.load(path).classes == pipeline.classes)
    }
}

@Suite struct DefaultSpecTests {
    /// The JSON files in pipelines/ are the documented defaults, written by `gesture spec NAME`;
    /// they must say what the code does, and read back to the same spec.
    @Test(arguments: DefaultSpecs.names)
    func pipelinesFolderMatchesBuiltInDefault(name: String) throws {
        let file = TestData.repo.appendingPathComponent("pipelines/\(name).json").path
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text == (try DefaultSpecs.json(for: name)), "regenerate with: gesture spec \(name) > pipelines/\(name).json")
        let e = JSONEncoder()
        e.outputFormatting = .sortedKeys
        #expect(try e.encode(PipelineSpec.load(file)) == e.encode(DefaultSpecs.pipeline(named: name).spec))
    }

    /// Every stage kind's keys are the keys it reads: an explicit null for an optional key is
    /// accepted, a misspelt key is not.
    @Test func explicitNullIsAcceptedAndTyposAreNot() throws {
        let spec = try TestData.spec(#"{"classifier": {"kind": "dtw", "nullRejection": null, "medoids": null}}"#)
        guard case .sequence(let c) = spec.classifier, let dtw = c as? DTWClassifier else { Issue.record("not dtw"); return }
        #expect(dtw.nullRejection == nil && dtw.medoids == nil)
        #expect(throws: GestureKitError.self) { try TestData.spec(#"{"classifier": {"kind": "dtw", "nullRejections": 2}}"#) }
    }

    /// Command-line overrides are typed: a setting the classifier has is applied and validated, one it
    /// does not have is refused by name.
    @Test func overridesApplyOnlyWhereTheClassifierHasTheSetting() throws {
        let lstm = try DefaultSpecs.build(classifier: "lstm", specFile: nil,
                                          overrides: .init(classifier: ClassifierSettings(epochs: 7, seed: 4)))
        guard case .sequence(let c) = lstm.classifier, let m = c as? LSTMClassifier else { Issue.record("not lstm"); return }
        #expect(m.epochs == 7 && m.seed == 4)
        do {
            _ = try DefaultSpecs.build(classifier: "dtw", specFile: nil, overrides: .init(classifier: ClassifierSettings(epochs: 5)))
            Issue.record("--epochs accepted by dtw")
        } catch let e as GestureKitError {
            #expect(e.description.contains("--epochs") && e.description.contains("dtw"), "\(e.description)")
        }
        #expect(throws: GestureKitError.self) {
            try DefaultSpecs.build(classifier: "knn", specFile: nil, overrides: .init(classifier: ClassifierSettings(nullRejection: .infinity)))
        }
        let windowed = try DefaultSpecs.build(classifier: "knn", specFile: nil, overrides: .init(window: .init(size: 20, hop: 5), rest: "rest"))
        #expect(windowed.window == .init(size: 20, hop: 5) && windowed.rest == "rest")
    }

    @Test func specErrorsNameTheField() throws {
        do {
            _ = try TestData.spec(#"{"classifier": {"kind": "nope"}}"#)
            Issue.record("unknown kind accepted")
        } catch let e as GestureKitError {
            #expect(e.description.contains("classifier"))
            #expect(e.description.contains("nope"))
        }
        #expect(throws: GestureKitError.self) { try TestData.spec(#"{"preprocessing": []}"#) }
        do {
            _ = try TestData.spec(#"{"preprocessing": [{"kind": "movingAverage", "windw": 4}], "classifier": {"kind": "dtw"}}"#)
            Issue.record("a misspelt key was accepted")
        } catch let e as GestureKitError {
            #expect(e.description.contains("preprocessing[0].windw"), "\(e.description)")
        }
    }
}

/// Temporal decoding learns from the training recordings: a pipeline trained on continuous
/// recordings fits its HMM filter on the window labels in recording order.
@Suite struct PostprocessorFitTests {
    @Test func hmmFilterIsFittedOnTheWindowLabelsOfTheRecordings() throws {
        let d = try Dataset.load(TestData.basicMotionsTrain)
        let order = [0, 10, 20, 30, 1, 11, 21, 31, 2, 12]   // alternating classes, one recording
        let series = order.map { d.examples[$0].series }
        let values = series.flatMap(\.values)
        let frameLabels = order.flatMap { i in [String?](repeating: d.examples[i].label, count: d.examples[i].series.frameCount) }
        let recording = Recording(series: TimeSeries(values: values, channelCount: d.channelCount, channelNames: d.channelNames),
                                  labels: frameLabels, session: "s", user: nil)
        let data = Dataset(recordings: [recording], cut: .windows(size: 20, hop: 10, labelling: .majority), classes: d.classes)
        let spec = try TestData.spec(#"{"features": {"window": 20, "hop": 10, "extractors": [{"kind": "timeDomain"}]}, "classifier": {"kind": "knn", "k": 1}, "postprocessing": [{"kind": "hmmFilter"}]}"#)
        let p = try Pipeline.train(spec, on: data)
        let fitted = try #require(p.spec.postprocessing.first as? HMMFilter)

        // Reference: majority label of each window (ties to the earlier label), fitted directly.
        var labels: [Int?] = []
        for s in stride(from: 0, through: frameLabels.count - 20, by: 10) {
            var counts: [String: Int] = [:], first: [String] = []
            for l in frameLabels[s..<(s + 20)] { if counts[l!] == nil { first.append(l!) }; counts[l!, default: 0] += 1 }
            let best = first.first { counts[$0] == counts.values.max() }!
            labels.append(d.classes.firstIndex(of: best))
        }
        var reference = HMMFilter()
        try reference.fit(labelSequences: [labels], classCount: d.classes.count)
        #expect(fitted.classes == d.classes.count)
        #expect(fitted.transitions == reference.transitions)
        #expect(fitted.transitions != HMMFilter().transitions)

        // Training tells the filter which class is rest.
        var restSpec = spec
        restSpec.rest = d.classes[1]
        var leaving = HMMFilter()
        leaving.restLeave = 2
        restSpec.postprocessing = [leaving]
        let withRest = try #require(try Pipeline.train(restSpec, on: data).spec.postprocessing.first as? HMMFilter)
        try leaving.fit(labelSequences: [labels], classCount: d.classes.count, rest: 1)
        #expect(withRest.transitions == leaving.transitions && withRest.transitions != reference.transitions)

        // Whole examples without recordings leave the filter as configured.
        let whole = try Pipeline.train(spec, on: d)
        #expect((whole.spec.postprocessing.first as? HMMFilter)?.transitions.isEmpty == true)
    }
}

extension PostprocessorFitTests {
    @Test func learnFalseKeepsTheConfiguredStay() throws {
        let spec = try TestData.spec(#"{"classifier": {"kind": "dtw"}, "postprocessing": [{"kind": "hmmFilter", "stay": 0.8, "learn": false}]}"#)
        var h = try #require(spec.postprocessing.first as? HMMFilter)
        try h.fit(labelSequences: [[0, 0, 1, 1, 1]], classCount: 2)
        #expect(h.transitions.isEmpty && h.stay == 0.8)
    }
}
