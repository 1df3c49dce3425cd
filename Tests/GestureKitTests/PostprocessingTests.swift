import Foundation
import Testing
@testable import GestureKit

@Suite struct PostprocessingTests {
    static let grt = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../shared/datasets/grt").standardizedFileURL
    static var haveGRT: Bool { FileManager.default.fileExists(atPath: grt.appendingPathComponent("ClassLabelFilterTestData.grt").path) }

    /// The label column of a GRT labelled classification file (first token of each data row).
    static func labels(_ file: String) throws -> [Int] {
        let text = try String(contentsOf: grt.appendingPathComponent(file), encoding: .utf8)
        return text.split(separator: "\n").drop { !$0.hasPrefix("LabelledTrainingData") }.dropFirst()
            .compactMap { $0.split(whereSeparator: { $0 == "\t" || $0 == " " }).first.flatMap { Int($0) } }
    }

    /// Raw predictions of 3 classes from class indices (nil = null), confidence 0.8 unless given.
    static func predictions(_ labels: [Int?], confidence: [Float]? = nil) -> [Prediction] {
        labels.enumerated().map { i, c in
            var scores: [Float] = [0, 0, 0]
            if let c { scores[c] = 1 }
            return Prediction(classIndex: c, confidence: confidence?[i] ?? (c == nil ? 0 : 0.8), scores: scores)
        }
    }

    static func run<P: Postprocessor>(_ stage: inout P, _ raw: [Prediction], frames: [Int]? = nil) -> [Prediction] {
        raw.enumerated().map { i, p in stage.process(p, frame: frames?[i] ?? i) }
    }

    static func classes<P: Postprocessor>(_ stage: P, _ labels: [Int?], frames: [Int]? = nil) -> [Int?] {
        var s = stage
        s.reset()
        return run(&s, predictions(labels), frames: frames).map(\.classIndex)
    }

    @Test func labelFilterNeedsMVotesOfN() {
        // m = 2 of n = 3 (the buffer starts full of nulls):
        // f0 [0]: 1 vote -> null; f1 [0,1]: null; f2 [0,1,1]: 1; f3 [1,1,0]: 1; f4 [1,0,-]: null (1 vote each);
        // f5 [0,-,-]: null; f6 [-,-,2]: null; f7 [-,2,2]: 2.
        let out = Self.classes(LabelFilter(minimumCount: 2, bufferSize: 3), [0, 1, 1, 0, nil, nil, 2, 2])
        #expect(out == [nil, nil, 1, 1, nil, nil, nil, 2])
        // Ties go to the most recent vote: m = 1 of 2, [0, 1] -> 1.
        #expect(Self.classes(LabelFilter(minimumCount: 1, bufferSize: 2), [0, 1]) == [0, 1])
    }

    @Test func labelFilterConfidenceIsTheWinnersMeanConfidence() {
        var f = LabelFilter(minimumCount: 2, bufferSize: 3)
        let out = Self.run(&f, Self.predictions([1, 0, 1], confidence: [0.6, 0.9, 0.8]))
        #expect(out[2].classIndex == 1 && abs(out[2].confidence - 0.7) < 1e-6)
        #expect(out[1].classIndex == nil && out[1].confidence == 0)
    }

    @Test(.enabled(if: haveGRT, TestData.needsShared)) func labelFilterRemovesGRTsIsolatedLabels() throws {
        // GRT's stream: class 1 with isolated 2s and 3s (never more than 2 non-1 labels in any 5).
        let raw = try Self.labels("ClassLabelFilterTestData.grt").map { Optional($0 - 1) }
        #expect(raw.count == 100 && raw.contains(1) && raw.contains(2))
        let out = Self.classes(LabelFilter(minimumCount: 3, bufferSize: 5), raw)
        #expect(out == [nil, nil] + [Int?](repeating: 0, count: 98))
    }

    @Test func changeFilterReportsChangesOnly() {
        // A A A B B - B A -> A - - B - - B A (null counts as a change, so B after a pause is reported).
        let out = Self.classes(ChangeFilter(), [0, 0, 0, 1, 1, nil, 1, 0])
        #expect(out == [0, nil, nil, 1, nil, nil, 1, 0])
    }

    @Test(.enabled(if: haveGRT, TestData.needsShared)) func changeFilterCountsGRTsLabelRuns() throws {
        // The dataset README counts 13 label runs in this stream: 13 reports, each at a run's start.
        let raw = try Self.labels("ClassLabelChangeFilterTestData.grt").map { Optional($0 - 1) }
        let out = Self.classes(ChangeFilter(), raw)
        let reports = out.indices.filter { out[$0] != nil }
        #expect(reports.count == 13)
        #expect(reports.allSatisfy { $0 == 0 || raw[$0] != raw[$0 - 1] })
    }

    @Test(.enabled(if: haveGRT, TestData.needsShared)) func timeoutOnGRTsStream() throws {
        // 35 x class 1, 35 x class 2, 30 x class 3; timeout 10 frames: a report, then 10 nulls, so
        // reports at 0, 11, 22, 33 (class 1), 44, 55, 66 (class 2), 77, 88, 99 (class 3).
        let raw = try Self.labels("ClassLabelTimeoutFilterTestData.grt").map { Optional($0 - 1) }
        #expect(raw.count == 100)
        var expected = [Int?](repeating: nil, count: 100)
        for (f, c) in [(0, 0), (11, 0), (22, 0), (33, 0), (44, 1), (55, 1), (66, 1), (77, 2), (88, 2), (99, 2)] { expected[f] = c }
        #expect(Self.classes(TimeoutFilter(frames: 10), raw) == expected)
        // The same in seconds: 1 s at the example's 10 Hz (100 ms per sample).
        var s = TimeoutFilter(seconds: 1)
        try s.prepare(sampleRate: 10)
        #expect(s.timeoutFrames == 10)
        #expect(Self.classes(s, raw) == expected)
    }

    @Test func timeoutCountsFrameNumbersNotCalls() throws {
        // Predictions every 5 frames with T = 10: report at 0, block 5 and 10, report at 15.
        let out = Self.classes(TimeoutFilter(frames: 10), [0, 1, 2, 1, nil, 2], frames: [0, 5, 10, 15, 20, 25])
        #expect(out == [0, nil, nil, 1, nil, nil])
        // Nulls outside a timeout pass through; T = 0 blocks nothing.
        #expect(Self.classes(TimeoutFilter(frames: 0), [0, 0, nil, 1]) == [0, 0, nil, 1])
        var needsRate = TimeoutFilter(seconds: 0.5)
        #expect(throws: GestureKitError.self) { try needsRate.prepare(sampleRate: nil) }
        // A rate stored in the file is enough after loading.
        var loaded = try JSONDecoder().decode(TimeoutFilter.self, from: Data(#"{"seconds": 0.5, "sampleRate": 50}"#.utf8))
        try loaded.prepare(sampleRate: nil)
        #expect(loaded.timeoutFrames == 25)
    }

    @Test func confidenceThresholdSuppressesUnsureOnes() {
        var t = ConfidenceThreshold(threshold: 0.5)
        let out = Self.run(&t, Self.predictions([0, 1, 2, 0], confidence: [0.2, 0.5, 0.9, .nan]))
        #expect(out.map(\.classIndex) == [nil, 1, 2, nil])
        #expect(out[0].confidence == 0 && out[0].scores == [1, 0, 0])  // scores kept for diagnostics
    }

    // MARK: conformance

    static func randomStream(_ n: Int, seed: UInt64) -> [Prediction] {
        var g = SeededGenerator(seed: seed)
        return (0..<n).map { _ in
            let r = g.nextUnit()
            let c: Int? = r < 0.3 ? nil : (r < 0.7 ? 0 : (r < 0.9 ? 1 : 2))
            var p = predictions([c]).first!
            p.confidence = c == nil ? 0 : g.nextUnit()
            return p
        }
    }

    func check<P: Postprocessor>(_ unfitted: P) throws {
        var stage = unfitted
        try stage.bind(classes: ["a", "b", "c"])
        try stage.prepare(sampleRate: 20)
        try stage.validate()
        let input = Self.randomStream(200, seed: 3)
        var fresh = stage
        fresh.reset()
        let reference = Self.run(&fresh, input)
        var decoded = try StageTesting.roundTrip(stage)
        try decoded.validate()
        try decoded.bind(classes: ["a", "b", "c"])  // as a loaded pipeline does
        try decoded.prepare(sampleRate: nil)  // what the file holds suffices
        decoded.reset()
        #expect(Self.run(&decoded, input) == reference, "\(P.kind): round trip changed outputs")
        var used = stage
        used.reset()
        _ = Self.run(&used, Self.randomStream(50, seed: 9))
        used.reset()
        #expect(Self.run(&used, input) == reference, "\(P.kind): reset did not restore the initial state")
        var odd = stage
        odd.reset()
        _ = odd.process(Prediction(classIndex: 1, confidence: .nan, scores: [.nan, .infinity, 0]), frame: 0)
        _ = odd.process(Prediction(classIndex: 0, confidence: .infinity, scores: []), frame: 1)
    }

    @Test func everyPostprocessorConforms() throws {
        try check(LabelFilter(minimumCount: 3, bufferSize: 7))
        try check(ChangeFilter())
        try check(TimeoutFilter(frames: 7))
        try check(TimeoutFilter(seconds: 0.4))
        try check(ConfidenceThreshold(threshold: 0.3))
        try check(OnsetFilter(decisions: 2, classes: ["b", "c"]))
        try check(OnsetFilter(decisions: 3, classes: ["a"]))
        try check(TransitionFilter(classes: ["b", "c"]))
        try check(TransitionFilter(classes: ["b", "c"], settle: 2))
        var learned = TransitionFilter(classes: ["c"], minimumRun: 2)
        try learned.bind(classes: ["a", "b", "c"])
        try learned.fit(labelSequences: [[0, 2, 2, 1], [1, 2, 0], [0, nil, 2, 1]], classCount: 3, rest: nil)
        try check(learned)
        var withRest = TransitionFilter(classes: ["c"])
        try withRest.bind(classes: ["a", "b", "c"])
        try withRest.fit(labelSequences: [[0, 2, 2, 1], [0, 2, 0], [0, 2, nil, 1]], classCount: 3, rest: 1)
        #expect(try StageTesting.roundTrip(withRest).rest == 1)
        try check(withRest)
        try check(PostureFilter(classes: ["a", "b"]))
        var posture = PostureFilter(classes: ["a"], leave: 3)
        try posture.bind(classes: ["a", "b", "c"])
        try posture.fit(labelSequences: [[1, 1, 2, 0, 0], [1, 2, nil, 0]], classCount: 3, rest: nil)
        try check(posture)
    }

    @Test(arguments: [
        #"{"kind": "labelFilter"}"#, #"{"kind": "labelFilter", "minimumCount": 2, "bufferSize": 4}"#,
        #"{"kind": "changeFilter"}"#, #"{"kind": "timeout", "frames": 30}"#, #"{"kind": "timeout", "seconds": 0.5}"#,
        #"{"kind": "timeout"}"#, #"{"kind": "confidenceThreshold", "threshold": 0.7}"#,
        #"{"kind": "onsetFilter", "classes": ["c0"]}"#, #"{"kind": "onsetFilter", "decisions": 3, "classes": ["c0"]}"#,
    ])
    func handWrittenSpecs(spec: String) throws {
        guard var p = try StageTesting.decode(spec, StageKinds.postprocessors, role: "postprocessor") as? any Postprocessor else {
            Issue.record("not a postprocessor"); return
        }
        try p.bind(classes: ["c0"])
        try p.prepare(sampleRate: 50)
        p.reset()
        _ = p.process(Prediction(classIndex: 0, confidence: 1, scores: [1]), frame: 0)
    }

    @Test func badPostprocessorSpecsNameTheField() {
        func field(_ spec: String) -> String? { StageTesting.badField(spec, StageKinds.postprocessors, role: "postprocessor") }
        #expect(field(#"{"kind": "labelFilter", "minimumCount": 6, "bufferSize": 5}"#) == "minimumCount")
        #expect(field(#"{"kind": "timeout", "frames": 3, "seconds": 1}"#) == "seconds")
        #expect(field(#"{"kind": "timeout", "frames": -1}"#) == "frames")
        #expect(field(#"{"kind": "confidenceThreshold", "threshold": 2}"#) == "threshold")
        #expect(field(#"{"kind": "onsetFilter", "decisions": 0, "classes": ["a"]}"#) == "decisions")
        #expect(field(#"{"kind": "onsetFilter"}"#) == "classes")
    }

    /// `reportsOnce` is what a stage does with one long event: a run of one class is reported once
    /// (then null) exactly by the stages that say so. One of every registered kind.
    @Test func reportsOnceIsWhatAStageDoesWithOneLongEvent() throws {
        let stages: [any Postprocessor] = [
            LabelFilter(minimumCount: 2, bufferSize: 3), ChangeFilter(), TimeoutFilter(frames: 25),
            ConfidenceThreshold(threshold: 0.5), HMMFilter(), OnsetFilter(decisions: 2, classes: ["b"]),
            TransitionFilter(classes: ["b"]), PostureFilter(classes: ["a", "b"]),
        ]
        #expect(Set(stages.map { type(of: $0).kind }) == Set(StageKinds.postprocessors.map { $0.kind }))
        for stage in stages {
            var s = stage
            try s.bind(classes: ["a", "b", "c"])
            try s.fit(labelSequences: [[0, 0, 1, 1, 2, 2, 0]], classCount: 3, rest: nil)
            try s.prepare(sampleRate: 50)
            s.reset()
            // 20 decisions of class a: within the timeout, long enough for every filter to pass it.
            let reports = Self.predictions([Int?](repeating: 0, count: 20)).enumerated()
                .filter { s.process($1, frame: $0).classIndex != nil }.count
            #expect((reports == 1) == s.reportsOnce, "\(type(of: s).kind): \(reports) reports of one event")
            #expect(reports >= 1, "\(type(of: s).kind) never reported the event")
        }
    }
}
