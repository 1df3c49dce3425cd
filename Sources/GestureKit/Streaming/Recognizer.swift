/// One thing the recogniser says while a stream runs: a class (or null) over a span of frames.
public struct Detection: Sendable, Hashable, Codable {
    /// Class name; `nil` for null.
    public var label: String?
    public var classIndex: Int?
    public var confidence: Float
    /// First and last frame (inclusive, counted from the last reset) the decision covers.
    public var start: Int
    public var end: Int
    /// Time of `end` in seconds from the last reset, when the sample rate is known.
    public var time: Double?
}

/// Runs a trained ``Pipeline`` on a stream, one frame at a time.
///
/// Pre-processing runs on every frame. With a window the classifier decides every `hop` frames on
/// the last `size` frames and each decision goes through post-processing; a non-null result is a
/// ``Detection``. Without a window the classifier decides once, on everything pushed, when
/// ``finish()`` is called. ``finish()`` always gives the verdict on the whole stream since the last
/// reset: the decision of a whole-example pipeline, or the majority of a windowed one's decisions.
///
/// - Complexity: per frame O(channels) for pre-processing plus, on decision frames, the cost of
///   feature extraction and classification. Steady state allocates nothing per frame except on
///   decision frames of sequence classifiers (which receive the window as a ``TimeSeries``).
public struct Recognizer: Sendable {
    public let pipeline: Pipeline
    private var preprocessors: [any Preprocessor]
    private var postprocessors: [any Postprocessor]
    private let channels: Int
    /// Frames pushed since reset.
    public private(set) var frameCount = 0
    /// Windowed: frames mirrored at p and p + size so the last `size` are contiguous.
    /// Whole-example: every frame so far.
    private var buffer: [Float]
    private var features: [Float]
    private var scratch: [Float]
    private var votes: [Int]
    private var voteConfidence: [Float]
    private var decisions = 0
    /// The post-processed outcome of the latest decision (null included), `nil` before the first.
    public private(set) var lastDecision: Prediction?
    /// The classifier's latest decision before post-processing, `nil` before the first.
    public private(set) var lastRawDecision: Prediction?
    /// Whether whole-example pipelines keep every frame for ``finish()``; live streams do not.
    public let keepsHistory: Bool
    private var spotter: (any Spotter)?
    /// Windowed LSTM pipelines: window / hop interleaved slots, each carrying its LSTM state, so a
    /// decision costs a few steps per frame instead of a whole window every hop (same results).
    private var lstmWindows: LSTMWindowStream?

    /// - Parameter keepsHistory: keep the frames of a whole-example pipeline so ``finish()`` can
    ///   classify them (batch use). A live stream passes `false`: memory stays flat and decisions
    ///   come from the classifier's spotter, when it has one.
    public init(_ pipeline: Pipeline, keepsHistory: Bool = true) {
        self.pipeline = pipeline
        self.keepsHistory = keepsHistory
        if !keepsHistory, pipeline.spec.window == nil, case .sequence(let c) = pipeline.spec.classifier,
           let spotting = c as? any SpottingClassifier {
            spotter = spotting.makeSpotter()
        }
        if let w = pipeline.spec.window, w.size % w.hop == 0, case .sequence(let c) = pipeline.spec.classifier,
           let lstm = c as? LSTMClassifier {
            lstmWindows = lstm.windowStream(window: w.size, hop: w.hop)
        }
        preprocessors = pipeline.spec.preprocessing
        postprocessors = pipeline.spec.postprocessing
        channels = pipeline.channelCount
        let size = pipeline.spec.window?.size ?? 0
        buffer = [Float](repeating: 0, count: 2 * size * channels)
        let widest = max(pipeline.training.featureCount,
                         pipeline.spec.extractors.reduce(0) { $0 + $1.featureCount },
                         pipeline.spec.transforms.map(\.outputCount).max() ?? 0)
        features = [Float](repeating: 0, count: widest)
        scratch = [Float](repeating: 0, count: widest)
        votes = [Int](repeating: 0, count: pipeline.classes.count)
        voteConfidence = [Float](repeating: 0, count: pipeline.classes.count)
        reset()
    }

    /// Forgets the stream: filter history, buffered frames, post-processing state and votes.
    public mutating func reset() {
        for i in preprocessors.indices { preprocessors[i].reset() }
        for i in postprocessors.indices { postprocessors[i].reset() }
        frameCount = 0
        decisions = 0
        lastDecision = nil
        lastRawDecision = nil
        spotter?.reset()
        lstmWindows?.reset()
        if pipeline.spec.window == nil { buffer.removeAll(keepingCapacity: true) }
        for i in votes.indices { votes[i] = 0; voteConfidence[i] = 0 }
    }

    /// Pushes one frame (`channels` values, in the pipeline's channel order).
    /// - Returns: a detection when a decision on this frame names a class (not null, not rest).
    /// - Throws: when the frame has the wrong length or a non-finite value; the stream is unchanged.
    public mutating func push(_ frame: UnsafeBufferPointer<Float>) throws -> Detection? {
        guard frame.count == channels else {
            throw GestureKitError("frame has \(frame.count) values, the pipeline expects \(channels)", field: "frame")
        }
        for v in frame where !v.isFinite {
            throw GestureKitError("frame holds a non-finite value", field: "frame")
        }
        return pushChecked(frame)
    }

    public mutating func push(_ frame: [Float]) throws -> Detection? {
        try frame.withUnsafeBufferPointer { try push($0) }
    }

    private mutating func pushChecked(_ frame: UnsafeBufferPointer<Float>) -> Detection? {
        let n = frameCount
        frameCount += 1
        // Swapped out so the stages can be mutated while the buffer is borrowed (no copy).
        var stages: [any Preprocessor] = []
        swap(&stages, &preprocessors)
        defer { swap(&stages, &preprocessors) }
        let channels = self.channels
        guard let window = pipeline.spec.window else {
            if !keepsHistory { buffer.removeAll(keepingCapacity: true) }
            let base = buffer.count
            buffer.append(contentsOf: frame)
            buffer.withUnsafeMutableBufferPointer { b in
                let f = UnsafeMutableBufferPointer(rebasing: b[base..<(base + channels)])
                for i in stages.indices { stages[i].process(f) }
            }
            guard spotter != nil else { return nil }
            let match = buffer.withUnsafeBufferPointer { b in
                spotter!.push(UnsafeBufferPointer(rebasing: b[base..<(base + channels)]))
            }
            guard let match else { return nil }
            lastRawDecision = match.prediction
            let decided = postprocess(match.prediction, frame: n)
            lastDecision = decided
            guard let c = decided.classIndex, c != pipeline.restIndex else { return nil }
            return Detection(label: pipeline.classes[c], classIndex: c, confidence: decided.confidence,
                             start: match.start, end: match.end, time: time(of: n))
        }
        let p = n % window.size
        buffer.withUnsafeMutableBufferPointer { b in
            let f = UnsafeMutableBufferPointer(rebasing: b[(p * channels)..<((p + 1) * channels)])
            _ = f.initialize(from: frame)
            for i in stages.indices { stages[i].process(f) }
            let mirror = (p + window.size) * channels
            for c in 0..<channels { b[mirror + c] = f[c] }
        }
        let raw: Prediction
        if var slots = lstmWindows.take() {
            let decision = buffer.withUnsafeBufferPointer { b in
                slots.step(UnsafeBufferPointer(rebasing: b[(p * channels)..<((p + 1) * channels)]))
            }
            lstmWindows = slots
            guard let decision else { return nil }
            raw = decision
        } else {
            guard n + 1 >= window.size, (n + 1 - window.size) % window.hop == 0 else { return nil }
            let start = (p + 1) % window.size
            raw = classify(frames: start..<(start + window.size))
        }
        let decided = postprocess(raw, frame: n)
        lastRawDecision = raw
        lastDecision = decided
        if let c = decided.classIndex {
            decisions += 1
            votes[c] += 1
            voteConfidence[c] += decided.confidence
        } else {
            decisions += 1
        }
        guard let c = decided.classIndex, c != pipeline.restIndex else { return nil }
        return Detection(label: pipeline.classes[c], classIndex: c, confidence: decided.confidence,
                         start: n + 1 - window.size, end: n, time: time(of: n))
    }

    /// The verdict on everything pushed since the last reset.
    ///
    /// Whole-example pipelines classify the buffered series now. Windowed pipelines return the class
    /// most post-processed decisions named (ties: higher summed confidence), with the fraction of
    /// decisions as confidence, or classify the frames so far when no window was complete yet.
    public mutating func finish() -> Prediction {
        let classCount = pipeline.classes.count
        guard frameCount > 0 else { return .null(classCount: classCount) }
        if let window = pipeline.spec.window, frameCount >= window.size {
            guard let best = votes.indices.max(by: {
                (votes[$0], voteConfidence[$0]) < (votes[$1], voteConfidence[$1])
            }), votes[best] > 0 else { return .null(classCount: classCount) }
            let scores = votes.map { Float($0) / Float(max(decisions, 1)) }
            return Prediction(classIndex: best, confidence: scores[best], scores: scores)
        }
        let range = 0..<min(frameCount, pipeline.spec.window?.size ?? frameCount)
        return postprocess(classify(frames: range), frame: frameCount - 1)
    }

    private mutating func postprocess(_ raw: Prediction, frame: Int) -> Prediction {
        var p = raw
        for i in postprocessors.indices { p = postprocessors[i].process(p, frame: frame) }
        return p
    }

    /// Classifies buffered frames `range` (contiguous in ``buffer``).
    private mutating func classify(frames range: Range<Int>) -> Prediction {
        switch pipeline.spec.classifier {
        case .sequence(let classifier):
            let s = TimeSeries(values: Array(buffer[(range.lowerBound * channels)..<(range.upperBound * channels)]),
                               channelCount: channels, channelNames: pipeline.channelNames,
                               sampleRate: pipeline.sampleRate)
            return classifier.predict(s)
        case .vector(let classifier):
            let extractors = pipeline.spec.extractors
            let transforms = pipeline.spec.transforms
            let frames = range.count
            let channels = self.channels
            var features: [Float] = [], scratch: [Float] = []
            swap(&features, &self.features)
            swap(&scratch, &self.scratch)
            defer {
                swap(&features, &self.features)
                swap(&scratch, &self.scratch)
            }
            return buffer.withUnsafeBufferPointer { b in
                let window = UnsafeBufferPointer(rebasing: b[(range.lowerBound * channels)..<(range.upperBound * channels)])
                return features.withUnsafeMutableBufferPointer { f in
                    scratch.withUnsafeMutableBufferPointer { s in
                        var offset = 0
                        for e in extractors {
                            e.extract(window, frames: frames, into: UnsafeMutableBufferPointer(rebasing: f[offset..<(offset + e.featureCount)]))
                            offset += e.featureCount
                        }
                        var input = f, output = s
                        var width = offset
                        for t in transforms {
                            t.transform(UnsafeBufferPointer(rebasing: input[0..<width]),
                                        into: UnsafeMutableBufferPointer(rebasing: output[0..<t.outputCount]))
                            width = t.outputCount
                            swap(&input, &output)
                        }
                        return classifier.predict(UnsafeBufferPointer(rebasing: input[0..<width]))
                    }
                }
            }
        }
    }

    private func time(of frame: Int) -> Double? {
        pipeline.sampleRate.map { Double(frame) / $0 }
    }
}
