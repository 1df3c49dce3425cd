/// How a pipeline does on a continuous recording replayed frame by frame, as it would run live.
///
/// - Frame accuracy: each frame takes the label of the classifier's latest decision before
///   post-processing (null before the first), so it measures the classifier. Decoded frame accuracy
///   takes the latest decision after post-processing (a rejected decision is null), so it measures
///   what a user sees, as the event scores do (pipelines that report a change once, with
///   `changeFilter` or `timeout`, name most frames null by design). Unlabelled frames and the rest
///   class count as null truth.
/// - Events: consecutive detections of one label whose spans touch or overlap form one event. An
///   event is correct when it overlaps a true segment of the same label not matched before.
///   Precision = correct events / events; recall = matched true segments / true segments.
/// - False activations per minute: events that overlap no labelled frame at all, per minute of null
///   or rest truth.
/// - Latency: for each matched segment, time from its first frame to the end frame of the first
///   detection that matched it (median over segments).
public struct StreamReport: Sendable, Codable, Hashable {
    /// Fraction of frames whose raw decision (or null) equals the truth.
    public var frameAccuracy: Double
    /// Fraction of frames whose post-processed decision (or null) equals the truth.
    public var decodedFrameAccuracy: Double
    /// Fraction of events that overlapped a true segment of their class.
    public var eventPrecision: Double
    /// Fraction of true segments that an event of their class overlapped.
    public var eventRecall: Double
    /// Harmonic mean of event precision and recall.
    public var eventF1: Double
    /// Events reported during rest or unlabelled time, per minute of it.
    public var falseActivationsPerMinute: Double
    /// Minutes of null truth (unlabelled or rest) the false activations are counted over.
    public var nullMinutes: Double
    /// `nil` when no segment was detected or the sample rate is unknown.
    public var medianLatencyMs: Double?
    /// Frames replayed.
    public var frames: Int
    /// Events reported (label changes to a non-null class).
    public var events: Int
    /// Labelled segments in the truth.
    public var trueSegments: Int
    /// Event-level scores per class (recall over that class's segments).
    public var perClass: [String: ClassEvents]
    /// Frames by truth, then by the class the raw decisions named (`null` for none, rest included),
    /// over the labelled frames: where the classifier's errors go.
    public var frameConfusion: [String: [String: Int]]

    /// Event and frame counts of one class in a stream replay.
    public struct ClassEvents: Sendable, Codable, Hashable {
        /// True segments of this class.
        public var segments = 0
        /// Segments that some event of this class overlapped.
        public var detected = 0
        /// Events reported as this class.
        public var events = 0
        /// Events of this class that overlapped a segment of it.
        public var correctEvents = 0
        /// Frames of this class in the truth, and how many of them the classifier named right.
        public var frames = 0
        /// Frames of this class the classifier named right.
        public var correctFrames = 0
        /// Frames of this class the post-processed output named right.
        public var correctDecodedFrames = 0
    }

    /// Frame accuracy over the frames whose truth is one of `classes` (after post-processing when
    /// `decoded`).
    public func frameAccuracy(of classes: Set<String>, decoded: Bool = false) -> Double {
        let f = perClass.filter { classes.contains($0.key) }.values
        let n = f.reduce(0) { $0 + $1.frames }
        return n > 0 ? Double(f.reduce(0) { $0 + (decoded ? $1.correctDecodedFrames : $1.correctFrames) }) / Double(n) : 0
    }

    enum CodingKeys: String, CodingKey {
        case frameAccuracy, decodedFrameAccuracy, eventPrecision, eventRecall, eventF1, falseActivationsPerMinute
        case nullMinutes, medianLatencyMs, frames, events, trueSegments, perClass, frameConfusion
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(frameAccuracy, forKey: .frameAccuracy)
        try c.encode(decodedFrameAccuracy, forKey: .decodedFrameAccuracy)
        try c.encode(eventPrecision, forKey: .eventPrecision)
        try c.encode(eventRecall, forKey: .eventRecall)
        try c.encode(eventF1, forKey: .eventF1)
        try c.encode(falseActivationsPerMinute, forKey: .falseActivationsPerMinute)
        try c.encode(nullMinutes, forKey: .nullMinutes)
        try c.encode(medianLatencyMs, forKey: .medianLatencyMs)
        try c.encode(frames, forKey: .frames)
        try c.encode(events, forKey: .events)
        try c.encode(trueSegments, forKey: .trueSegments)
        try c.encode(perClass, forKey: .perClass)
        try c.encode(frameConfusion, forKey: .frameConfusion)
    }
}

/// The classifier's decisions on one recording, before post-processing: what a stream replay
/// computes once, so post-processing variants can be scored without classifying again.
struct DecisionTrace: Sendable {
    struct Step: Sendable {
        /// Frame the decision was made on.
        var frame: Int
        var decision: Decision
    }
    var steps: [Step]
    var frames: Int

    /// These decisions as a pipeline with rest weight `weight` would have made them.
    func weighingRest(_ weight: Float, at rest: Int) -> DecisionTrace {
        var t = self
        for i in t.steps.indices { t.steps[i].decision.prediction = steps[i].decision.prediction.weighingRest(weight, at: rest) }
        return t
    }
}

/// One recording to score: its decisions and the post-processing (prepared, and fitted where it
/// learns) to run over them.
struct ScoredReplay {
    var recording: Recording
    var trace: DecisionTrace
    var postprocessing: [any Postprocessor]
}

extension Evaluation {
    /// Replays each recording through a fresh recogniser and scores frames and events.
    /// - Parameters:
    ///   - pipeline: the trained pipeline to replay.
    ///   - recordings: continuous recordings with per-frame labels, the truth.
    ///   - classes: the classes whose segments count as events (default: all the pipeline
    ///   reports, i.e. every class but the rest class).
    /// - Complexity: one ``Recognizer/push(_:)`` per frame.
    public static func evaluateStream(_ pipeline: Pipeline, on recordings: [Recording], classes: Set<String>? = nil) throws -> StreamReport {
        let replays = try recordings.map {
            ScoredReplay(recording: $0, trace: try trace(pipeline, $0), postprocessing: pipeline.spec.postprocessing)
        }
        return score(replays, pipeline: pipeline, classes: classes)
    }

    /// The undecoded decisions of a fresh recogniser over `recording`.
    static func trace(_ pipeline: Pipeline, _ rec: Recording) throws -> DecisionTrace {
        guard rec.series.channelCount == pipeline.channelCount else {
            throw GestureKitError("recording has \(rec.series.channelCount) channels, the pipeline expects \(pipeline.channelCount)", field: "channels")
        }
        if let bad = rec.series.values.firstIndex(where: { !$0.isFinite }) {
            throw GestureKitError("frame \(bad / max(pipeline.channelCount, 1)) holds a non-finite value", field: "frame")
        }
        var r = pipeline.recognizer()
        var steps: [DecisionTrace.Step] = []
        let c = rec.series.channelCount
        rec.series.values.withUnsafeBufferPointer { all in
            for f in 0..<rec.series.frameCount {
                if let d = r.pushUndecoded(UnsafeBufferPointer(rebasing: all[(f * c)..<((f + 1) * c)])) {
                    steps.append(.init(frame: f, decision: d))
                }
            }
        }
        steps += r.flushUndecoded().map { .init(frame: rec.series.frameCount - 1, decision: $0) }
        return DecisionTrace(steps: steps, frames: rec.series.frameCount)
    }

    /// Runs each replay's post-processing (reset first) over its trace, as ``Recognizer`` does
    /// live, and scores frames and events over all of them together.
    static func score(_ replays: [ScoredReplay], pipeline: Pipeline, classes: Set<String>? = nil) -> StreamReport {
        let rate = pipeline.sampleRate ?? replays.first?.recording.series.sampleRate
        let eventClasses = classes ?? Set(pipeline.classes.filter { $0 != pipeline.spec.rest })
        var correctFrames = 0, correctDecoded = 0, frames = 0
        var events = 0, correctEvents = 0, segmentsTotal = 0, segmentsMatched = 0, falseEvents = 0
        var nullFrames = 0
        var latencies: [Double] = []
        var per: [String: StreamReport.ClassEvents] = [:]
        for c in eventClasses { per[c] = .init() }
        var confusion: [String: [String: Int]] = [:]

        for replay in replays {
            let rec = replay.recording
            let truth: [String?] = rec.labels.map { $0 == pipeline.spec.rest ? nil : $0 }
            var post = replay.postprocessing
            for i in post.indices { post[i].reset() }
            var detections: [Detection] = []
            var raw: String?, decoded: String?
            var next = 0
            for f in 0..<replay.trace.frames {
                if next < replay.trace.steps.count, replay.trace.steps[next].frame == f {
                    let d = replay.trace.steps[next].decision
                    next += 1
                    raw = pipeline.label(of: d.prediction)
                    let p = post.process(d.prediction, frame: f)
                    decoded = pipeline.label(of: p)
                    if let det = d.detection(p, classes: pipeline.classes, rest: pipeline.restIndex) { detections.append(det) }
                }
                if raw == truth[f] { correctFrames += 1 }
                if decoded == truth[f] { correctDecoded += 1 }
                if let t = truth[f] {
                    confusion[t, default: [:]][raw ?? "null", default: 0] += 1
                    per[t, default: .init()].frames += 1
                    if raw == t { per[t]!.correctFrames += 1 }
                    if decoded == t { per[t]!.correctDecodedFrames += 1 }
                } else {
                    nullFrames += 1
                }
            }
            frames += rec.series.frameCount

            // Merge detections into events.
            var merged: [(label: String, start: Int, end: Int, firstEnd: Int)] = []
            for d in detections {
                guard let l = d.label else { continue }
                if let last = merged.last, last.label == l, d.start <= last.end + 1 {
                    merged[merged.count - 1].end = max(last.end, d.end)
                } else {
                    merged.append((l, d.start, d.end, d.end))
                }
            }
            let all = Recording(series: rec.series, labels: truth).segments.filter { $0.label != nil }
            let segments = all.filter { eventClasses.contains($0.label!) }
            var matched = [Bool](repeating: false, count: segments.count)
            for e in merged where eventClasses.contains(e.label) {
                events += 1
                per[e.label]!.events += 1
                let span = e.start..<(e.end + 1)
                if !all.contains(where: { $0.range.overlaps(span) }) { falseEvents += 1 }
                let same = segments.indices.filter { segments[$0].label == e.label && segments[$0].range.overlaps(span) }
                guard !same.isEmpty else { continue }
                correctEvents += 1
                per[e.label]!.correctEvents += 1
                if let s = same.first(where: { !matched[$0] }) {
                    matched[s] = true
                    if let rate { latencies.append(Double(max(0, e.firstEnd - segments[s].range.lowerBound)) / rate * 1000) }
                }
            }
            segmentsTotal += segments.count
            segmentsMatched += matched.filter { $0 }.count
            for (i, s) in segments.enumerated() {
                per[s.label!]!.segments += 1
                if matched[i] { per[s.label!]!.detected += 1 }
            }
        }
        let precision = events > 0 ? Double(correctEvents) / Double(events) : 0
        let recall = segmentsTotal > 0 ? Double(segmentsMatched) / Double(segmentsTotal) : 0
        let f1 = precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0
        let nullMinutes = rate.map { Double(nullFrames) / $0 / 60 } ?? 0
        latencies.sort()
        return StreamReport(
            frameAccuracy: frames > 0 ? Double(correctFrames) / Double(frames) : 0,
            decodedFrameAccuracy: frames > 0 ? Double(correctDecoded) / Double(frames) : 0,
            eventPrecision: precision, eventRecall: recall, eventF1: f1,
            falseActivationsPerMinute: nullMinutes > 0 ? Double(falseEvents) / nullMinutes : 0,
            nullMinutes: nullMinutes,
            medianLatencyMs: latencies.isEmpty ? nil : latencies[latencies.count / 2],
            frames: frames, events: events, trueSegments: segmentsTotal, perClass: per, frameConfusion: confusion)
    }
}
