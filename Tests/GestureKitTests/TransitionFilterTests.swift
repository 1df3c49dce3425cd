import Foundation
import Testing
@testable import GestureKit

/// The transition filter: one report per run of transition classes, chosen by its context.
@Suite struct TransitionFilterTests {
    static let names = ["A", "B", "T1", "T2"]

    /// A prediction of `c` whose scores give T1 and T2 `t1` and `t2` (and `c` 1 when it is A or B).
    static func prediction(_ c: Int?, t1: Float = 0, t2: Float = 0) -> Prediction {
        var scores: [Float] = [0, 0, t1, t2]
        if let c, c < 2 { scores[c] = 1 }
        return Prediction(classIndex: c, confidence: c == nil ? 0 : 1, scores: scores)
    }

    static func fitted(minimumRun: Int = 1) throws -> TransitionFilter {
        var f = TransitionFilter(classes: ["T1", "T2"], minimumRun: minimumRun)
        try f.bind(classes: names)
        // A -> T1 -> B twice, B -> T2 -> A once; runs at a sequence's edge have no context.
        try f.fit(labelSequences: [[0, 0, 2, 2, 1, 1], [1, 1, 3, 0, 0], [0, 2, 2, 1], [2, 2, 0], [0, 3]],
                  classCount: 4, rest: nil)
        return f
    }

    static func classes(_ filter: TransitionFilter, _ input: [Prediction]) -> [Int?] {
        outputs(filter, input).map(\.classIndex)
    }

    /// The class of each decision's event (nil: none).
    static func events(_ filter: TransitionFilter, _ input: [Prediction]) -> [Int?] {
        outputs(filter, input).map { $0.event?.classIndex }
    }

    static func outputs(_ filter: TransitionFilter, _ input: [Prediction]) -> [Prediction] {
        var f = filter
        f.reset()
        return input.enumerated().map { f.process($1, frame: 10 * $0) }
    }

    @Test func countsEachRunBetweenItsNeighbours() throws {
        let f = try Self.fitted()
        #expect(f.classCount == 4)
        #expect(f.counts.count == 5 * 5 * 2)
        func count(_ before: Int, _ after: Int, _ e: Int) -> Float { f.counts[(before * 5 + after) * 2 + e] }
        #expect(count(0, 1, 0) == 2)   // A, T1, B
        #expect(count(1, 0, 1) == 1)   // B, T2, A
        #expect(f.counts.reduce(0, +) == 3)
    }

    @Test func theContextOutweighsAnAlikeStart() throws {
        // A run scored T2 over T1 (0.6 against 0.4) between A and B: the context says T1
        // (0.4 x 3/4 against 0.6 x 1/4), reported once, as the event of the decision that ends the
        // run, dated from the run's first decision; that decision itself passes through (B).
        let stream = [Self.prediction(0), Self.prediction(0), Self.prediction(3, t1: 0.4, t2: 0.6),
                      Self.prediction(3, t1: 0.4, t2: 0.6), Self.prediction(1), Self.prediction(1)]
        #expect(Self.classes(try Self.fitted(), stream) == [0, 0, 0, 0, 1, 1])
        #expect(Self.events(try Self.fitted(), stream) == [nil, nil, nil, nil, 2, nil])
        let event = Self.outputs(try Self.fitted(), stream)[4].event
        #expect(event?.since == 20)
        #expect(event?.confidence == 0.4)
        // Unfitted, the scores alone decide.
        var bare = TransitionFilter(classes: ["T1", "T2"])
        try bare.bind(classes: Self.names)
        #expect(Self.events(bare, stream) == [nil, nil, nil, nil, 3, nil])
        // An unseen context (B before, B after) leaves the scores to decide as well.
        let unseen = [Self.prediction(1), Self.prediction(2, t1: 0.3, t2: 0.7), Self.prediction(1)]
        #expect(Self.classes(try Self.fitted(), unseen) == [1, 1, 1])
        #expect(Self.events(try Self.fitted(), unseen) == [nil, nil, 3])
    }

    @Test func anAfterTheLabelsNeverGaveTakesTheRunsTheyLeftWithoutOne() throws {
        // A -> T1 -> B, and A -> T2 followed by rest (R) or nothing labelled: what follows T2 was
        // never named. Live, a run from A that ends in C (never seen after A) is T2, though scored
        // below T1; one that ends in B is T1.
        let names = ["A", "B", "C", "T1", "T2", "R"]
        var f = TransitionFilter(classes: ["T1", "T2"])
        try f.bind(classes: names)
        try f.fit(labelSequences: [[0, 3, 1], [0, 3, 1], [0, 4, 5, 5], [0, 4, nil, 2]], classCount: 6, rest: 5)
        #expect(f.rest == 5)
        func run(ending after: Int) -> Prediction {
            var f = f
            f.reset()
            let scores: [Float] = [0, 0, 0, 0.6, 0.4, 0]
            _ = f.process(Prediction(classIndex: 0, confidence: 1, scores: [1, 0, 0, 0, 0, 0]), frame: 0)
            _ = f.process(Prediction(classIndex: 3, confidence: 0.6, scores: scores), frame: 1)
            var last = [Float](repeating: 0, count: 6)
            last[after] = 1
            return f.process(Prediction(classIndex: after, confidence: 1, scores: last), frame: 2)
        }
        #expect(run(ending: 2).event?.classIndex == 4)
        #expect(run(ending: 1).event?.classIndex == 3)
        // Rest after the run is a context of its own: T2's, learned.
        #expect(run(ending: 5).event?.classIndex == 4)
        // Without the learned rest index (a file from before it was saved), only the unlabelled
        // context is borrowed: T2 once against T1's nothing still names T2.
        f.rest = nil
        #expect(run(ending: 2).event?.classIndex == 4)
        // With nothing left without an after, an unseen after leaves the scores to decide.
        var bare = TransitionFilter(classes: ["T1", "T2"])
        try bare.bind(classes: names)
        try bare.fit(labelSequences: [[0, 3, 1], [0, 4, 2]], classCount: 6, rest: 5)
        f = bare
        #expect(run(ending: 0).event?.classIndex == 3)
    }

    @Test func shortRunsAreDroppedAndNullIsKept() throws {
        let blip = [Self.prediction(0), Self.prediction(2, t1: 0.9), Self.prediction(0)]
        #expect(Self.classes(try Self.fitted(minimumRun: 2), blip) == [0, 0, 0])
        #expect(Self.events(try Self.fitted(minimumRun: 2), blip) == [nil, nil, nil])
        #expect(Self.events(try Self.fitted(minimumRun: 1), blip) == [nil, nil, 2])
        // A run after null is held as null.
        let fromNull = [Self.prediction(nil), Self.prediction(2, t1: 0.9), Self.prediction(2, t1: 0.9), Self.prediction(1)]
        #expect(Self.classes(try Self.fitted(), fromNull) == [nil, nil, nil, 1])
        #expect(Self.events(try Self.fitted(), fromNull) == [nil, nil, nil, 2])
    }

    @Test func settlingLetsTheClassAfterOutvoteALaggingFirstDecision() throws {
        // T2 scored over T1 between A and B: the context (A, B) says T1. The decision ending the
        // run lags and still names A, so the context (A, A), never seen, leaves T2.
        let stream = [Self.prediction(0), Self.prediction(3, t1: 0.4, t2: 0.6), Self.prediction(0),
                      Self.prediction(1), Self.prediction(1), Self.prediction(1)]
        #expect(Self.events(try Self.fitted(), stream) == [nil, nil, 3, nil, nil, nil])
        // Settling over two more decisions lets B outvote it, reported two decisions later.
        var settled = try Self.fitted()
        settled.settle = 2
        #expect(Self.events(settled, stream) == [nil, nil, nil, nil, 2, nil])
        #expect(Self.outputs(settled, stream)[4].event?.since == 10)
        // The decisions meanwhile pass through.
        #expect(Self.classes(settled, stream) == [0, 0, 0, 1, 1, 1])
        // A tie keeps the first decision's class: A once, B once, then a new run ends the settling.
        settled.settle = 3
        let short = [Self.prediction(0), Self.prediction(3, t1: 0.4, t2: 0.6), Self.prediction(0), Self.prediction(1),
                     Self.prediction(2, t1: 0.9), Self.prediction(1)]
        #expect(Self.events(settled, short) == [nil, nil, nil, nil, 3, nil])
        // The stream's end leaves a run still settling unreported, as one still running.
        #expect(Self.events(settled, Array(stream.prefix(4))).compactMap { $0 }.isEmpty)
    }

    /// A live stream reports the event once, spanning its run, and names what follows it: the
    /// stream scoring counts it on the transition's frames, not on the class after it.
    @Test func theEventSpansItsRunAndTheClassAfterKeepsItsFrames() throws {
        // Window 4, hop 2: a decision on frames 3, 5, 7, ... covering the 4 frames up to it.
        let d = Decision(prediction: Self.prediction(1), start: 16, end: 19)
        #expect(d.start(of: Prediction.Event(classIndex: 2, confidence: 1, since: 11)) == 8)
        #expect(d.start(of: Prediction.Event(classIndex: 2, confidence: 1, since: 2)) == 0)
        #expect(d.start(of: Prediction.Event(classIndex: 2, confidence: 1, since: 40)) == 16)

        // Truth: A on frames 0-9, T1 on 10-15, B on 16-29. Decisions on the odd frames name A
        // through frame 9, T2 (scored below T1) through frame 17, then B.
        let labels: [String?] = (0..<30).map { $0 < 10 ? "A" : $0 < 16 ? "T1" : "B" }
        let recording = Recording(series: TimeSeries(values: [Float](repeating: 0, count: 30), channelCount: 1, sampleRate: 10),
                                  labels: labels)
        let steps = stride(from: 3, to: 30, by: 2).map { f -> DecisionTrace.Step in
            let p = f <= 9 ? Self.prediction(0) : f <= 17 ? Self.prediction(3, t1: 0.4, t2: 0.6) : Self.prediction(1)
            return .init(frame: f, decision: Decision(prediction: p, start: f - 3, end: f))
        }
        let examples = Self.names.enumerated().map { Example(series: TimeSeries(values: [Float($0), 1], channelCount: 1), label: $1) }
        let pipeline = try Pipeline.train(PipelineSpec(classifier: .sequence(DTWClassifier())),
                                          on: Dataset(examples: examples, classes: Self.names))
        let report = Evaluation.score([ScoredReplay(recording: recording, trace: DecisionTrace(steps: steps, frames: 30),
                                                    postprocessing: [try Self.fitted()])],
                                      pipeline: pipeline, classes: ["T1", "T2"])
        // One event, T1 by its context, dated from frame 11's window (8-11) so it overlaps T1.
        #expect(report.events == 1)
        #expect(report.perClass["T1"]?.correctEvents == 1)
        #expect(report.perClass["T1"]?.detected == 1)
        // B's frames from the decision that reports the event on (19-29) are B's; 16-18 lag.
        #expect(report.perClass["B"]?.correctDecodedFrames == 11)
    }

    @Test func badSpecsAndMismatchedClassesNameTheField() throws {
        func field(_ spec: String) -> String? { StageTesting.badField(spec, StageKinds.postprocessors, role: "postprocessor") }
        #expect(field(#"{"kind": "transitionFilter"}"#) == "classes")
        #expect(field(#"{"kind": "transitionFilter", "classes": ["a"], "minimumRun": 0}"#) == "minimumRun")
        #expect(field(#"{"kind": "transitionFilter", "classes": ["a"], "smoothing": 0}"#) == "smoothing")
        #expect(field(#"{"kind": "transitionFilter", "classes": ["a"], "settle": -1}"#) == "settle")
        #expect(field(#"{"kind": "transitionFilter", "classes": ["a"], "classCount": 2, "counts": [1]}"#) == "counts")
        #expect(field(#"{"kind": "transitionFilter", "classes": ["a"], "classCount": 1, "counts": [0, 0, 0, 0], "rest": 1}"#) == "rest")
        var f = try Self.fitted()
        #expect(throws: GestureKitError.self) { try f.bind(classes: ["A", "B", "T1", "T2", "C"]) }
        #expect(throws: GestureKitError.self) { try f.bind(classes: ["A", "B", "T1"]) }
        var g = TransitionFilter(classes: ["T1"])
        try g.bind(classes: Self.names)
        #expect(throws: GestureKitError.self) { try g.fit(labelSequences: [[0, 2, 7]], classCount: 4, rest: nil) }
    }
}
