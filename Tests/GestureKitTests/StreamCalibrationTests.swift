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
        // The trace replay behind evaluateStream must say what Recognizer.push says, frame by frame.
        var spec = try TestData.spec(Self.spec)
        spec.postprocessing = [HMMFilter(stay: 0.9), ConfidenceThreshold(threshold: 0.6)]
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
        #expect(report.decodedFrameAccuracy != report.frameAccuracy, "the post-processing should change something here")
        // Events: runs of touching detections of one label.
        var events = 0, last: Detection?
        for d in detections {
            if let l = last, l.label == d.label, d.start <= l.end + 1 { last!.end = max(l.end, d.end) } else { events += 1; last = d }
        }
        #expect(report.events == events)
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
        #expect(result.table.count == StreamCalibration.candidates().count)
        let chosen = result.table[result.chosen].report
        let within = result.table.filter { $0.report.falseActivationsPerMinute <= 0.5 }
        if within.isEmpty {
            #expect(result.table.allSatisfy { $0.report.falseActivationsPerMinute >= chosen.falseActivationsPerMinute })
        } else {
            #expect(chosen.falseActivationsPerMinute <= 0.5)
            #expect(within.allSatisfy { $0.report.eventF1 <= chosen.eventF1 })
        }
        // The spikes in rest make the bare classifier fire; the choice must beat it.
        let bare = result.table[0]
        #expect(bare.name == "none")
        #expect(bare.report.falseActivationsPerMinute > 0.5)
        #expect(chosen.eventF1 > bare.report.eventF1)
        #expect(result.spec.postprocessing.map { type(of: $0).kind }
                == StreamCalibration.candidates()[result.chosen].stages.map { type(of: $0).kind })
        // Trained with the choice, the pipeline saves and reloads it.
        let pipeline = try Pipeline.train(result.spec, on: data)
        let back = try Pipeline.decode(try pipeline.encoded())
        #expect(back.spec.postprocessing.count == result.spec.postprocessing.count)
        #expect(back.spec.calibration == settings)
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
}
