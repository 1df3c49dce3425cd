import Foundation
import Testing
@testable import GestureKit

/// Stream calibration and the decision-trace replay it relies on.
@Suite struct StreamCalibrationTests {
    /// One user's continuous recording, 50 Hz, one channel: rest (noise around 0, with a spike now and
    /// then that a bare classifier takes for a gesture), then A (level 1) and B (level -1) segments.
    static func recording(user: String, seed: UInt64) -> Recording {
        var rng = SeededGenerator(seed: seed)
        func noise() -> Float { Float(Double(rng.next() >> 11) * 0x1p-53 - 0.5) * 0.4 }
        var values: [Float] = [], labels: [String?] = []
        for round in 0..<6 {
            for i in 0..<300 {
                // A short spike in rest: one window that looks like A.
                let spike = round % 2 == 0 && (120..<132).contains(i)
                values.append((spike ? 1.2 : 0) + noise())
                labels.append("rest")
            }
            let (label, level): (String, Float) = round % 2 == 0 ? ("A", 1) : ("B", -1)
            for _ in 0..<120 {
                values.append(level + noise())
                labels.append(label)
            }
        }
        return Recording(series: TimeSeries(values: values, channelCount: 1, channelNames: ["x"], sampleRate: 50),
                         labels: labels, user: user)
    }

    static func dataset(users: Int = 4) -> Dataset {
        let recordings = (0..<users).map { recording(user: "u\($0)", seed: UInt64($0) + 1) }
        return Dataset(recordings: recordings, cut: .windows(size: 20, hop: 5, labelling: .majority), classes: ["A", "B", "rest"])
    }

    static let spec = """
        {"features": {"window": 20, "hop": 5, "extractors": [{"kind": "timeDomain"}]},
         "classifier": {"kind": "centroid"}, "rest": "rest"}
        """

    @Test func replayedPostprocessingEqualsTheLiveRecognizer() throws {
        let (report, _) = try Self.replayEqualsLive([HMMFilter(stay: 0.9), ConfidenceThreshold(threshold: 0.6)], restWeight: 0.5)
        #expect(report.decodedFrameAccuracy != report.frameAccuracy, "the post-processing should change something here")
    }

    @Test func replayedEventsOfATransitionFilterEqualTheLiveRecognizer() throws {
        // A as a transition: each run of A decisions is one event, reported when the run ends and
        // dated from its first window, so it spans more than the 20 frames of one window.
        let (report, detections) = try Self.replayEqualsLive([TransitionFilter(classes: ["A"])], restWeight: nil)
        let a = detections.filter { $0.label == "A" }
        #expect(!a.isEmpty)
        #expect(a.allSatisfy { $0.end - $0.start + 1 > 20 })
        #expect(report.perClass["A"]?.events == a.count)
        // The three A segments (rounds 0, 2, 4) each found by one event; the other A events are
        // the spikes in rest.
        #expect(report.perClass["A"]?.segments == 3)
        #expect(report.perClass["A"]?.detected == 3)
        #expect(report.perClass["A"]?.correctEvents == 3)
    }

    /// Trains the spec with `postprocessing` and checks that the trace replay behind
    /// evaluateStream says what Recognizer.push says, frame by frame and event by event.
    static func replayEqualsLive(_ postprocessing: [any Postprocessor], restWeight: Float?) throws -> (StreamReport, [Detection]) {
        var spec = try TestData.spec(Self.spec)
        spec.postprocessing = postprocessing
        spec.restWeight = restWeight
        let data = Self.dataset(users: 2)
        let pipeline = try Pipeline.train(spec, on: data)
        let rec = Self.recording(user: "x", seed: 99)
        let report = try Evaluation.evaluateStream(pipeline, on: [rec])
        var r = pipeline.recognizer()
        var raw = 0, decoded = 0, detections: [Detection] = []
        for f in 0..<rec.series.frameCount {
            if let d = try r.push(Array(rec.series.frame(f))) { detections.append(d) }
            let truth = rec.labels[f] == "rest" ? nil : rec.labels[f]
            if r.lastRawDecision.flatMap({ pipeline.label(of: $0) }) == truth { raw += 1 }
            if r.lastDecision.flatMap({ pipeline.label(of: $0) }) == truth { decoded += 1 }
        }
        let n = Double(rec.series.frameCount)
        #expect(report.frameAccuracy == Double(raw) / n)
        #expect(report.decodedFrameAccuracy == Double(decoded) / n)
        // Events: runs of touching detections of one label.
        var events = 0, last: Detection?
        for d in detections {
            if let l = last, l.label == d.label, d.start <= l.end + 1 { last!.end = max(l.end, d.end) } else { events += 1; last = d }
        }
        #expect(report.events == events)
        return (report, detections)
    }

    @Test func choosesWithinTheCapAndKeepsUsersApart() throws {
        var spec = try TestData.spec(Self.spec)
        let settings = StreamCalibration.Settings(folds: 2, maxFalseActivationsPerMinute: 0.5)
        spec.calibration = settings
        let data = Self.dataset(users: 4)
        let result = try StreamCalibration.calibrate(spec, on: data, settings: settings)
        #expect(result.groupedBy == .user)
        #expect(Set(result.folds.flatMap { $0 }) == ["u0", "u1", "u2", "u3"])
        #expect(result.folds.flatMap { $0 }.count == 4)
        let weights = StreamCalibration.restWeights(for: spec, classes: data.classes)
        #expect(weights == [1, 0.3, 0.1, 0.03, 0.01, 0.003])
        #expect(result.table.count == StreamCalibration.candidates().count * weights.count)
        let chosen = result.table[result.chosen].report
        let within = result.table.filter { $0.report.falseActivationsPerMinute <= 0.5 }
        if within.isEmpty {
            #expect(result.table.allSatisfy { $0.report.falseActivationsPerMinute >= chosen.falseActivationsPerMinute })
        } else {
            #expect(chosen.falseActivationsPerMinute <= 0.5)
            #expect(within.allSatisfy { $0.merit <= result.table[result.chosen].merit })
        }
        // Merit is event F1 plus decoded accuracy over labelled frames (A and B), not rest.
        let row = result.table[result.chosen]
        #expect(row.labelledFrameAccuracy == row.report.frameAccuracy(of: ["A", "B"], decoded: true))
        // The spikes in rest make the bare classifier fire; the choice must beat it.
        let bare = result.table[0]
        #expect(bare.name == "rest x1.0, none")
        #expect(bare.report.falseActivationsPerMinute > 0.5)
        #expect(chosen.eventF1 > bare.report.eventF1)
        let post = StreamCalibration.candidates()
        #expect(result.spec.postprocessing.map { type(of: $0).kind }
                == post[result.chosen % post.count].stages.map { type(of: $0).kind })
        #expect(result.spec.restWeight == weights[result.chosen / post.count])
        // Trained with the choice, the pipeline saves and reloads it.
        let pipeline = try Pipeline.train(result.spec, on: data)
        let back = try Pipeline.decode(try pipeline.encoded())
        #expect(back.spec.postprocessing.count == result.spec.postprocessing.count)
        #expect(back.spec.calibration == settings)
        #expect(back.spec.restWeight == result.spec.restWeight)
        // A pinned weight is the only one tried.
        spec.restWeight = 0.2
        #expect(StreamCalibration.restWeights(for: spec, classes: data.classes) == [0.2])
    }

    @Test func restWeightRescalesTheScoresAndRetakesTheBest() {
        let p = Prediction(classIndex: 2, confidence: 0.6, scores: [0.3, 0.1, 0.6])
        let w = p.weighingRest(0.1, at: 2)
        let total: Float = 0.3 + 0.1 + 0.06
        #expect(w.classIndex == 0)
        for (a, b) in zip(w.scores, [0.3 / total, 0.1 / total, 0.06 / total]) { #expect(abs(a - b) < 1e-6) }
        #expect(abs(w.confidence - 0.3 / total) < 1e-6)
        // A smaller cut keeps rest on top, with its renormalised share.
        let mild = p.weighingRest(0.6, at: 2)
        #expect(mild.classIndex == 2)
        #expect(abs(mild.confidence - 0.36 / 0.76) < 1e-6)
        #expect(p.weighingRest(1, at: 2) == p)
        // Rejections, a rest score alone and a missing rest class are left as they are.
        #expect(Prediction.null(classCount: 3).weighingRest(0.1, at: 2) == .null(classCount: 3))
        let alone = Prediction(classIndex: 2, confidence: 1, scores: [0, 0, 1])
        #expect(alone.weighingRest(0, at: 2) == alone)
        #expect(p.weighingRest(0.1, at: 7) == p)
    }

    @Test func aPipelineWithRestWeightZeroNeverDecidesRest() throws {
        var spec = try TestData.spec(Self.spec)
        let data = Self.dataset(users: 2)
        let rec = Self.recording(user: "x", seed: 7)
        func restDecisions(_ weight: Float?) throws -> Int {
            spec.restWeight = weight
            let pipeline = try Pipeline.train(spec, on: data)
            var r = pipeline.recognizer(), n = 0
            for f in 0..<rec.series.frameCount {
                _ = try r.push(Array(rec.series.frame(f)))
                if f % 5 == 4, r.lastRawDecision?.classIndex == pipeline.restIndex { n += 1 }
            }
            return n
        }
        #expect(try restDecisions(nil) > 50)
        #expect(try restDecisions(0) == 0)
    }

    @Test func restWeightIsCheckedInTheSpec() throws {
        #expect(throws: GestureKitError.self) {
            try TestData.spec(#"{"features": {"window": 20, "extractors": [{"kind": "timeDomain"}]}, "classifier": {"kind": "centroid"}, "restWeight": 0.1}"#).check()
        }
        #expect(throws: GestureKitError.self) {
            try TestData.spec(#"{"features": {"window": 20, "extractors": [{"kind": "timeDomain"}]}, "classifier": {"kind": "centroid"}, "rest": "rest", "restWeight": -1}"#).check()
        }
        var spec = try TestData.spec(Self.spec)
        spec.restWeight = 0.03
        let back = try JSONDecoder().decode(PipelineSpec.self, from: try JSONEncoder().encode(spec))
        #expect(back.restWeight == 0.03)
    }

    @Test func refusesWhatItCannotCalibrate() throws {
        let spec = try TestData.spec(Self.spec)
        // Too few users for the folds.
        #expect(throws: GestureKitError.self) {
            try StreamCalibration.calibrate(spec, on: Self.dataset(users: 2), settings: .init(folds: 3))
        }
        // Whole-example pipeline.
        let whole = try TestData.spec(#"{"classifier": {"kind": "dtw"}}"#)
        #expect(throws: GestureKitError.self) {
            try StreamCalibration.calibrate(whole, on: Self.dataset(), settings: .init())
        }
        // An event class the data does not have; bad settings in a spec.
        #expect(throws: GestureKitError.self) {
            try StreamCalibration.calibrate(spec, on: Self.dataset(), settings: .init(folds: 2, events: ["C"]))
        }
        #expect(throws: GestureKitError.self) {
            try TestData.spec(#"{"classifier": {"kind": "centroid"}, "calibration": {"folds": 1}}"#)
        }
        #expect(throws: GestureKitError.self) {
            try TestData.spec(#"{"classifier": {"kind": "centroid"}, "calibration": {"fold": 3}}"#)
        }
    }

    @Test func keepsTheSpecsOnsetAndPostureFiltersAfterTheChoice() throws {
        var spec = try TestData.spec(Self.spec)
        spec.postprocessing = [HMMFilter(stay: 0.5), OnsetFilter(decisions: 3, classes: ["A"]), PostureFilter(classes: ["A"])]
        let settings = StreamCalibration.Settings(folds: 2, maxFalseActivationsPerMinute: 0.5)
        let data = Self.dataset(users: 4)
        let result = try StreamCalibration.calibrate(spec, on: data, settings: settings)
        let chosen = StreamCalibration.candidates()[result.chosen % StreamCalibration.candidates().count]
        #expect(result.spec.postprocessing.map { type(of: $0).kind } == chosen.stages.map { type(of: $0).kind } + ["onsetFilter", "postureFilter"])
        #expect((result.spec.postprocessing.dropLast().last as? OnsetFilter)?.decisions == 3)
        // Every candidate was replayed with it: the bare one now holds A back, so its events differ.
        var bare = spec
        bare.postprocessing = []
        let without = try StreamCalibration.calibrate(bare, on: data, settings: settings)
        #expect(result.table[0].name == without.table[0].name)
        #expect(result.table[0].report.eventPrecision != without.table[0].report.eventPrecision
                || result.table[0].report.eventRecall != without.table[0].report.eventRecall
                || result.table[0].labelledFrameAccuracy != without.table[0].labelledFrameAccuracy)
    }

    /// A stage calibration knows nothing of but its `keptByCalibration`: the property alone decides.
    struct KeptMarker: Postprocessor {
        static let kind = "keptMarker"
        var keptByCalibration: Bool { true }
        mutating func reset() {}
        mutating func process(_ prediction: Prediction, frame: Int) -> Prediction { prediction }
    }

    @Test func keepsExactlyTheStagesThatSayTheyAreKept() throws {
        var spec = try TestData.spec(Self.spec)
        spec.postprocessing = [LabelFilter(minimumCount: 2, bufferSize: 3), KeptMarker(), ChangeFilter(),
                               TransitionFilter(classes: ["A"])]
        #expect(spec.postprocessing.map(\.keptByCalibration) == [false, true, false, true])
        let result = try StreamCalibration.calibrate(spec, on: Self.dataset(), settings: .init(folds: 2, maxFalseActivationsPerMinute: 0.5))
        let chosen = StreamCalibration.candidates()[result.chosen % StreamCalibration.candidates().count]
        #expect(result.spec.postprocessing.map { type(of: $0).kind }
                == chosen.stages.map { type(of: $0).kind } + ["keptMarker", "transitionFilter"])
    }
}
