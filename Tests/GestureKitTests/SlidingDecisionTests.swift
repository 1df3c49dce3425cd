import Foundation
import Testing
@testable import GestureKit

/// Whole-example pipelines whose classifier cannot spot (kNN, centroid, ridge, LSTM) decide live
/// through sliding windows of about one example (``LiveWindow``).
@Suite struct SlidingDecisionTests {
    /// Two 2-channel gestures of 60 frames from rest to rest: two periods of a sine on channel 0, or
    /// a rise and fall on channel 1 (amplitudes varying by example).
    static func gesture(_ label: String, _ k: Int) -> TimeSeries {
        let a = 1 + 0.1 * Float(k % 5)
        let frames: [[Float]] = (0..<60).map { i in
            let t = Float(i) / 59
            return label == "wave"
                ? [a * sin(2 * .pi * 2 * t), 0.05 * Float((i * 7 + k) % 3)]
                : [0.05 * Float((i * 5 + k) % 3), a * (1 - abs(2 * t - 1))]
        }
        return TimeSeries(frames: frames)
    }

    static func data() -> Dataset {
        let examples = (0..<20).map { Example(series: gesture($0 % 2 == 0 ? "wave" : "tent", $0), label: $0 % 2 == 0 ? "wave" : "tent") }
        return Dataset(examples: examples, classes: ["tent", "wave"])
    }

    static func knn() throws -> Pipeline {
        try Pipeline.train(try DefaultSpecs.pipeline(named: "knn").spec, on: data())
    }

    /// `labels` as gestures with 150 still frames (the last frame held) before, between and after.
    static func stream(_ labels: [String]) -> (frames: [[Float]], spans: [(range: ClosedRange<Int>, label: String)]) {
        var frames: [[Float]] = Array(repeating: [0, 0], count: 150)
        var spans: [(range: ClosedRange<Int>, label: String)] = []
        for (k, l) in labels.enumerated() {
            let s = gesture(l, 100 + k)
            let begin = frames.count
            for f in 0..<s.frameCount { frames.append(Array(s.frame(f))) }
            spans.append((begin...(frames.count - 1), l))
            frames += Array(repeating: frames.last!, count: 150)
        }
        return (frames, spans)
    }

    static func detections(_ p: Pipeline, _ frames: [[Float]]) throws -> [Detection] {
        var live = p.recognizer()
        return try frames.compactMap { try live.push($0) }
    }

    @Test func fittedWindowIsTheMedianLengthAndTheFloorHalfTheLowActivity() throws {
        // Lengths 10, 20, ..., 100: median (upper) 60. Channel 0 is i * step, channel 1 constant.
        let series = (1...10).map { n -> TimeSeries in
            TimeSeries(frames: (0..<(10 * n)).map { [Float($0) * Float(n), 3] })
        }
        let live = try #require(LiveWindow.fitted(to: series))
        #expect(live.window == 60)
        #expect(live.hop == 7)
        #expect(live.minRun == LiveWindow.defaultMinRun)
        // Activity: sqrt((var(ch0) + 0) / 2); var of n * (0..<m) is n^2 (m^2 - 1) / 12.
        let activities = (1...10).map { n -> Double in
            let m = Double(10 * n)
            return (Double(n * n) * (m * m - 1) / 12 / 2).squareRoot()
        }.sorted()
        let expected = 0.5 * activities[Int(Double(activities.count - 1) * 0.1)]
        #expect(abs(Double(live.activityFloor) - expected) < 1e-3 * expected)
    }

    @Test func aKNNPipelineReportsEachGestureOnceAndNothingWhileStill() throws {
        let p = try Self.knn()
        let live = try #require(p.liveWindow)
        #expect(p.decidesLive)
        #expect(live.window == 60)
        let labels = ["wave", "tent", "tent", "wave", "tent", "wave"]
        let (frames, spans) = Self.stream(labels)
        let found = try Self.detections(p, frames)
        #expect(found.count == labels.count, "\(found.map { ($0.label ?? "-", $0.start, $0.end) })")
        for (d, span) in zip(found, spans) {
            #expect(d.label == span.label, "\(found.map { ($0.label ?? "-", $0.start, $0.end) }) vs \(spans.map { ($0.label, $0.range) })")
            let overlap = min(d.end, span.range.upperBound) - max(d.start, span.range.lowerBound) + 1
            #expect(overlap > live.window / 2, "detection \(d.start)...\(d.end) vs gesture \(span.range)")
        }
    }

    @Test func aStillSensorNeverFiresWhateverTheClassifierSays() throws {
        let p = try Self.knn()
        // Held at a frame of each class's gesture: every window is still, though kNN names a class.
        for held: [Float] in [[1, 0], [0, 1], [0, 0], [-3, 7]] {
            #expect(try Self.detections(p, Array(repeating: held, count: 2_000)).isEmpty)
        }
    }

    @Test func reloadedPipelineKeepsTheLiveWindowAndDecidesTheSame() throws {
        let p = try Self.knn()
        let back = try Pipeline.decode(try p.encoded())
        #expect(back.liveWindow == p.liveWindow)
        let (frames, _) = Self.stream(["tent", "wave", "wave"])
        #expect(try Self.detections(back, frames) == Self.detections(p, frames))
    }

    @Test func spottingAndWindowedPipelinesHaveNoLiveWindow() throws {
        let data = Self.data()
        let dtw = try Pipeline.train(try DefaultSpecs.pipeline(named: "dtw").spec, on: data)
        #expect(dtw.liveWindow == nil && dtw.decidesLive)
        var spec = try DefaultSpecs.pipeline(named: "knn").spec
        spec.window = PipelineSpec.Window(size: 20, hop: 10)
        let windowed = try Pipeline.train(spec, on: data)
        #expect(windowed.liveWindow == nil && windowed.decidesLive)
    }

    @Test func aFileFromBeforeLiveWindowsIsRefusedWithAReason() throws {
        var p = try Self.knn()
        p.liveWindow = nil
        let old = try Pipeline.decode(try p.encoded())
        #expect(!old.decidesLive)
        #expect(throws: GestureKitError.self) { _ = try SwappableRecognizer(old) }
        do {
            _ = try SwappableRecognizer(old)
        } catch let e as GestureKitError {
            #expect(e.message.contains("train it again"))
        }
    }

    @Test func aCorruptLiveWindowIsRefusedByName() throws {
        var p = try Self.knn()
        p.liveWindow = LiveWindow(window: 0, hop: 1, minRun: 3, activityFloor: 0.1)
        do {
            _ = try Pipeline.decode(try p.encoded())
            Issue.record("a window of 0 frames was accepted")
        } catch let e as GestureKitError {
            #expect(e.field?.contains("liveWindow") == true || e.message.contains("liveWindow"), "\(e)")
        }
    }
}
