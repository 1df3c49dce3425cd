/// One thing the recogniser says while a stream runs: a class (or null) over a span of frames.
public struct Detection: Sendable, Hashable, Codable {
    /// Class name; `nil` for null.
    public var label: String?
    /// Index into the pipeline's classes; `nil` for null.
    public var classIndex: Int?
    /// How sure the pipeline is, in [0, 1].
    public var confidence: Float
    /// First and last frame (inclusive, counted from the last reset) the decision covers.
    public var start: Int
    /// Last frame the decision covers: the frame it was made on.
    public var end: Int
    /// Time of `end` in seconds from the last reset, when the sample rate is known.
    public var time: Double?

    /// A detection; every parameter is the property of the same name.
    public init(label: String?, classIndex: Int?, confidence: Float, start: Int, end: Int, time: Double? = nil) {
        self.label = label
        self.classIndex = classIndex
        self.confidence = confidence
        self.start = start
        self.end = end
        self.time = time
    }
}

/// Runs a trained ``Pipeline`` on a stream, one frame at a time.
///
/// Pre-processing runs on every frame; then one decision strategy, chosen when the recogniser is
/// made, turns frames into decisions:
/// - windowed pipelines decide every `hop` frames on the last `size` frames (incrementally, with
///   carried state, when the classifier is an ``IncrementalClassifier``);
/// - whole-example pipelines spot their classes in the stream (``SpottingClassifier``) in
///   ``Mode/live`` mode, or keep every frame and decide once at ``finish()`` in ``Mode/wholeSeries``.
/// Each decision goes through post-processing; a non-null, non-rest result is a ``Detection``.
///
/// ```swift
/// var live = pipeline.recognizer()
/// for frame in sensor { if let d = try live.push(frame) { print(d.label!, d.start, d.end) } }
/// ```
///
/// - Complexity: per frame O(channels) for pre-processing plus, on decision frames, the cost of
///   feature extraction and classification (see each classifier). Steady state allocates nothing per
///   frame except on decision frames of non-incremental sequence classifiers (which receive the
///   window as a ``TimeSeries``); live memory is flat.
public struct Recognizer: Sendable {
    /// What a recogniser keeps and when it decides.
    public enum Mode: Sendable, Hashable {
        /// An endless stream: flat memory; whole-example pipelines decide through their classifier's spotter.
        case live
        /// One whole series: whole-example pipelines keep every frame and decide at ``Recognizer/finish()``
        /// (batch prediction); memory grows with the series.
        case wholeSeries
    }

    /// The pipeline this recogniser runs.
    public let pipeline: Pipeline
    /// Live or whole-series.
    public let mode: Mode
    private var preprocessors: [any Preprocessor]
    private var postprocessors: [any Postprocessor]
    private var decider: any Decider
    private let channels: Int
    private let restIndex: Int?
    /// The pipeline's rest weight when it changes decisions (not 1, and rest is a class).
    private let restWeight: Float?
    /// The frame being pre-processed (sized once).
    private var frame: [Float]
    /// Frames pushed since reset.
    public private(set) var frameCount = 0
    private var votes: [Int]
    private var voteConfidence: [Float]
    private var decisions = 0
    /// The post-processed outcome of the latest decision (null included), `nil` before the first.
    public private(set) var lastDecision: Prediction?
    /// The classifier's latest decision before post-processing, `nil` before the first.
    public private(set) var lastRawDecision: Prediction?

    /// - Parameters:
    ///   - pipeline: the trained pipeline to run.
    ///   - mode: ``Mode/live`` (the default) for streams, ``Mode/wholeSeries`` to classify
    ///     one whole series at ``finish()``.
    public init(_ pipeline: Pipeline, mode: Mode = .live) {
        self.pipeline = pipeline
        self.mode = mode
        preprocessors = pipeline.spec.preprocessing
        postprocessors = pipeline.spec.postprocessing
        decider = Recognizer.decider(for: pipeline, mode: mode)
        channels = pipeline.channelCount
        let rest = pipeline.restIndex
        restIndex = rest
        restWeight = pipeline.spec.restWeight.flatMap { $0 == 1 || rest == nil ? nil : $0 }
        frame = [Float](repeating: 0, count: channels)
        votes = [Int](repeating: 0, count: pipeline.classes.count)
        voteConfidence = [Float](repeating: 0, count: pipeline.classes.count)
        reset()
    }

    /// Forgets the stream: filter history, buffered frames, post-processing state and votes.
    public mutating func reset() {
        for i in preprocessors.indices { preprocessors[i].reset() }
        for i in postprocessors.indices { postprocessors[i].reset() }
        decider.reset()
        frameCount = 0
        decisions = 0
        lastDecision = nil
        lastRawDecision = nil
        for i in votes.indices { votes[i] = 0; voteConfidence[i] = 0 }
    }

    /// The buffer form of ``push(_:)``, for a frame inside a larger series without copying it;
    /// package-only so that an app's entry point is the array form.
    package mutating func push(_ frame: UnsafeBufferPointer<Float>) throws -> Detection? {
        guard frame.count == channels else {
            throw GestureKitError("frame has \(frame.count) values, the pipeline expects \(channels)", field: "frame")
        }
        for v in frame where !v.isFinite {
            throw GestureKitError("frame holds a non-finite value", field: "frame")
        }
        return pushChecked(frame)
    }

    /// Pushes one frame (`channels` values, in the pipeline's channel order).
    /// - Returns: a detection when a decision on this frame names a class (not null, not rest).
    /// - Throws: when the frame has the wrong length or a non-finite value; the stream is unchanged.
    /// - Complexity: one frame of the pipeline: O(channels) per pre-processing stage, plus a
    ///   decision every hop (windowed pipelines) or one spotter step (DTW).
    public mutating func push(_ frame: [Float]) throws -> Detection? {
        try frame.withUnsafeBufferPointer { try push($0) }
    }

    /// The input has ended: the detections that were waiting for frames that will not come (a
    /// spotted gesture too close to the end to be final yet). Call it when the input ends.
    /// - Returns: the detections in stream order; always empty for windowed pipelines.
    public mutating func flush() -> [Detection] {
        let n = max(frameCount - 1, 0)
        return flushUndecoded().compactMap { detect($0, frame: n) }
    }

    /// ``flush()``'s decisions before post-processing.
    mutating func flushUndecoded() -> [Decision] {
        decider.flush().map { d in
            var d = d
            d.prediction = weighed(d.prediction)
            return d
        }
    }

    private mutating func pushChecked(_ input: UnsafeBufferPointer<Float>) -> Detection? {
        let n = frameCount
        guard let decision = pushUndecoded(input) else { return nil }
        return detect(decision, frame: n)
    }

    /// Post-processes raw decision `decision`, made on frame `n`; a detection when it names a class.
    private mutating func detect(_ decision: Decision, frame n: Int) -> Detection? {
        let decided = postprocess(decision.prediction, frame: n)
        lastDecision = decided
        decisions += 1
        if let c = decided.classIndex {
            votes[c] += 1
            voteConfidence[c] += decided.confidence
        }
        return decision.detection(decided, classes: pipeline.classes, rest: restIndex, time: time(of: n))
    }

    /// Pre-processes a checked frame and returns the classifier's decision on it, before
    /// post-processing (stream evaluation replays post-processing variants over these).
    mutating func pushUndecoded(_ input: UnsafeBufferPointer<Float>) -> Decision? {
        let n = frameCount
        frameCount += 1
        // Swapped out so the stages and the decider can be mutated while the frame is borrowed (no copy).
        var stages: [any Preprocessor] = [], f: [Float] = []
        swap(&stages, &preprocessors)
        swap(&f, &frame)
        defer {
            swap(&stages, &preprocessors)
            swap(&f, &frame)
        }
        let decision: Decision? = f.withUnsafeMutableBufferPointer { b in
            _ = b.initialize(from: input)
            for i in stages.indices { stages[i].process(b) }
            return decider.push(UnsafeBufferPointer(b), at: n)
        }
        guard var decision else { return nil }
        decision.prediction = weighed(decision.prediction)
        lastRawDecision = decision.prediction
        return decision
    }

    /// The verdict on everything pushed since the last reset.
    ///
    /// When decisions were made while streaming (windowed pipelines, spotting), the class most
    /// post-processed decisions named (ties: higher summed confidence), with the fraction of
    /// decisions as confidence. Otherwise the classifier decides now on the frames held: the whole
    /// series in ``Mode/wholeSeries``, or the frames so far when no window was complete yet.
    public mutating func finish() -> Prediction {
        let classCount = pipeline.classes.count
        guard frameCount > 0 else { return .null(classCount: classCount) }
        if decisions > 0 {
            guard let best = votes.indices.max(by: {
                (votes[$0], voteConfidence[$0]) < (votes[$1], voteConfidence[$1])
            }), votes[best] > 0 else { return .null(classCount: classCount) }
            let scores = votes.map { Float($0) / Float(decisions) }
            return Prediction(classIndex: best, confidence: scores[best], scores: scores)
        }
        guard let raw = decider.classifyHeld() else { return .null(classCount: classCount) }
        return postprocess(weighed(raw), frame: frameCount - 1)
    }

    /// A raw decision under the pipeline's rest weight (unchanged without one).
    private func weighed(_ p: Prediction) -> Prediction {
        guard let w = restWeight, let r = restIndex else { return p }
        return p.weighingRest(w, at: r)
    }

    private mutating func postprocess(_ raw: Prediction, frame: Int) -> Prediction {
        postprocessors.process(raw, frame: frame)
    }

    private func time(of frame: Int) -> Double? {
        pipeline.sampleRate.map { Double(frame) / $0 }
    }
}
