/// A raw decision of the classifier over a span of pre-processed frames, before post-processing.
struct Decision {
    var prediction: Prediction
    /// First and last frame (inclusive, counted from the last reset) the decision covers.
    var start: Int
    var end: Int

    /// The first frame of `event`: that of the window of the decision it began on, as long as this
    /// decision's and ending on that decision's frame.
    func start(of event: Prediction.Event) -> Int {
        max(0, min(event.since, end) - (end - start))
    }

    /// What `decided` (this decision post-processed) reports: the event a post-processor named,
    /// else its class unless that is null or the rest class.
    func detection(_ decided: Prediction, classes: [String], rest: Int?, time: Double? = nil) -> Detection? {
        if let e = decided.event {
            return Detection(label: classes[e.classIndex], classIndex: e.classIndex, confidence: e.confidence,
                             start: start(of: e), end: end, time: time)
        }
        guard let c = decided.classIndex, c != rest else { return nil }
        return Detection(label: classes[c], classIndex: c, confidence: decided.confidence, start: start, end: end, time: time)
    }
}

/// How a ``Recognizer`` turns pre-processed frames into decisions. Chosen once, when the recogniser
/// is made, from the pipeline's shape: each strategy is its own small type, so the per-frame path
/// has no branching on the classifier's kind.
protocol Decider: Sendable {
    mutating func reset()
    /// Receives pre-processed frame `n`; returns a decision when one is made on it.
    mutating func push(_ frame: UnsafeBufferPointer<Float>, at n: Int) -> Decision?
    /// The classifier's verdict on the frames held, for ``Recognizer/finish()`` when no decision was
    /// made while streaming (whole-example pipelines, or fewer frames than one window). `nil` when
    /// this strategy holds nothing to classify.
    mutating func classifyHeld() -> Prediction?
    /// The stream has ended: decisions that were waiting for more frames.
    mutating func flush() -> [Decision]
}

extension Decider {
    mutating func flush() -> [Decision] { [] }
}

extension Recognizer {
    /// The strategy for `pipeline` in `mode`.
    static func decider(for pipeline: Pipeline, mode: Mode) -> any Decider {
        let channels = pipeline.channelCount
        guard let window = pipeline.spec.window else {
            if mode == .wholeSeries { return WholeSeriesDecider(pipeline: pipeline) }
            if case .sequence(let c) = pipeline.spec.classifier, let spotting = c as? any SpottingClassifier,
               let spotter = spotting.makeSpotter() {
                return SpottingDecider(spotter: spotter)
            }
            guard let live = pipeline.liveWindow else { return SilentDecider() }
            let ring = WindowRing(window: PipelineSpec.Window(size: live.window, hop: live.hop), channels: channels)
            switch pipeline.spec.classifier {
            case .vector(let classifier):
                let inner = WindowedVectorDecider(ring: ring, classifier: classifier, extractors: pipeline.spec.extractors,
                                                  transforms: pipeline.spec.transforms, featureWidth: pipeline.training.featureCount)
                return SlidingExampleDecider(inner: inner, live: live, restIndex: pipeline.restIndex)
            case .sequence(let classifier):
                let series = SeriesShape(channels: channels, names: pipeline.channelNames, sampleRate: pipeline.sampleRate)
                return SlidingExampleDecider(inner: WindowedSequenceDecider(ring: ring, classifier: classifier, series: series),
                                             live: live, restIndex: pipeline.restIndex)
            }
        }
        let ring = WindowRing(window: window, channels: channels)
        switch pipeline.spec.classifier {
        case .vector(let classifier):
            return WindowedVectorDecider(ring: ring, classifier: classifier, extractors: pipeline.spec.extractors,
                                         transforms: pipeline.spec.transforms, featureWidth: pipeline.training.featureCount)
        case .sequence(let classifier):
            let series = SeriesShape(channels: channels, names: pipeline.channelNames, sampleRate: pipeline.sampleRate)
            if let incremental = classifier as? any IncrementalClassifier,
               let stream = incremental.incrementalWindows(window: window.size, hop: window.hop) {
                return IncrementalWindowDecider(ring: ring, stream: stream, classifier: classifier, series: series)
            }
            return WindowedSequenceDecider(ring: ring, classifier: classifier, series: series)
        }
    }
}

/// What a sequence classifier needs to see buffered frames as a ``TimeSeries``.
struct SeriesShape: Sendable {
    let channels: Int
    let names: [String]
    let sampleRate: Double?

    func series(_ values: ArraySlice<Float>) -> TimeSeries {
        TimeSeries(values: Array(values), channelCount: channels, channelNames: names, sampleRate: sampleRate)
    }
}

/// The last `window.size` frames, each stored at `p` and `p + size` so the newest window is always
/// contiguous, and a clock that says when a window decision is due.
struct WindowRing: Sendable {
    let window: PipelineSpec.Window
    let channels: Int
    private(set) var values: [Float]
    private(set) var frames = 0

    init(window: PipelineSpec.Window, channels: Int) {
        self.window = window
        self.channels = channels
        values = [Float](repeating: 0, count: 2 * window.size * channels)
    }

    mutating func reset() { frames = 0 }

    /// Stores frame `frames`; true when a window ends on it (every `hop` frames from the first full window).
    /// - Complexity: O(channels), no allocation.
    mutating func append(_ frame: UnsafeBufferPointer<Float>) -> Bool {
        let size = window.size, c = channels
        let p = frames % size
        values.withUnsafeMutableBufferPointer { b in
            for j in 0..<c {
                b[p * c + j] = frame[j]
                b[(p + size) * c + j] = frame[j]
            }
        }
        frames += 1
        return frames >= size && (frames - size) % window.hop == 0
    }

    /// Index range in ``values`` of the newest window, or of every frame so far before the first is full.
    var held: Range<Int> {
        guard frames >= window.size else { return 0..<(frames * channels) }
        let start = frames % window.size
        return (start * channels)..<((start + window.size) * channels)
    }

    /// The decision span of the window ending on the newest frame.
    var span: (start: Int, end: Int) { (frames - window.size, frames - 1) }
}

/// No window, live: the classifier finds its gestures in the stream (subsequence DTW).
struct SpottingDecider: Decider {
    var spotter: any Spotter

    mutating func reset() { spotter.reset() }

    mutating func push(_ frame: UnsafeBufferPointer<Float>, at n: Int) -> Decision? {
        spotter.push(frame).map { Decision(prediction: $0.prediction, start: $0.start, end: $0.end) }
    }

    mutating func flush() -> [Decision] {
        spotter.flush().map { Decision(prediction: $0.prediction, start: $0.start, end: $0.end) }
    }

    mutating func classifyHeld() -> Prediction? { nil }
}

/// No window, live, a classifier that cannot spot and no ``Pipeline/liveWindow`` (a file from
/// before it): it never decides (the CLI refuses such a pipeline before streaming; see
/// ``Pipeline/decidesLive``).
struct SilentDecider: Decider {
    mutating func reset() {}
    mutating func push(_ frame: UnsafeBufferPointer<Float>, at n: Int) -> Decision? { nil }
    mutating func classifyHeld() -> Prediction? { nil }
}

/// No window, batch: keeps every frame and classifies them all at ``Recognizer/finish()``.
struct WholeSeriesDecider: Decider {
    let classifier: ClassifierStage
    let extractors: [any FeatureExtractor]
    let transforms: [any FeatureTransform]
    let series: SeriesShape
    var history: [Float] = []

    init(pipeline: Pipeline) {
        classifier = pipeline.spec.classifier
        extractors = pipeline.spec.extractors
        transforms = pipeline.spec.transforms
        series = SeriesShape(channels: pipeline.channelCount, names: pipeline.channelNames, sampleRate: pipeline.sampleRate)
    }

    mutating func reset() { history.removeAll(keepingCapacity: true) }

    mutating func push(_ frame: UnsafeBufferPointer<Float>, at n: Int) -> Decision? {
        history.append(contentsOf: frame)
        return nil
    }

    mutating func classifyHeld() -> Prediction? {
        let s = series.series(history[...])
        switch classifier {
        case .sequence(let c): return c.predict(s)
        case .vector(let c):
            var v = extractors.flatMap { $0.features(of: s) }
            for t in transforms { v = t.transform(v) }
            return c.predict(v)
        }
    }
}

/// Windows of feature vectors: extract, transform and classify every `hop` frames, into buffers
/// sized once.
struct WindowedVectorDecider: Decider {
    var ring: WindowRing
    let classifier: any VectorClassifier
    let extractors: [any FeatureExtractor]
    let transforms: [any FeatureTransform]
    var features: [Float]
    var scratch: [Float]

    init(ring: WindowRing, classifier: any VectorClassifier, extractors: [any FeatureExtractor],
         transforms: [any FeatureTransform], featureWidth: Int) {
        self.ring = ring
        self.classifier = classifier
        self.extractors = extractors
        self.transforms = transforms
        let widest = max(featureWidth, extractors.reduce(0) { $0 + $1.featureCount },
                         transforms.map(\.outputCount).max() ?? 0)
        features = [Float](repeating: 0, count: widest)
        scratch = [Float](repeating: 0, count: widest)
    }

    mutating func reset() { ring.reset() }

    mutating func push(_ frame: UnsafeBufferPointer<Float>, at n: Int) -> Decision? {
        guard ring.append(frame) else { return nil }
        let span = ring.span
        return Decision(prediction: classifyHeld()!, start: span.start, end: span.end)
    }

    /// - Complexity: the extractors' and transforms' cost on one window, then the classifier's; no allocation.
    mutating func classifyHeld() -> Prediction? {
        let range = ring.held
        guard !range.isEmpty else { return nil }
        let frames = range.count / ring.channels
        let (extractors, transforms, classifier) = (self.extractors, self.transforms, self.classifier)
        let values = ring.values
        return values.withUnsafeBufferPointer { b in
            let window = UnsafeBufferPointer(rebasing: b[range])
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

/// What the deciders of sequence classifiers over windows share: the frames held, handed to the
/// classifier as a ``TimeSeries``.
protocol SequenceWindows {
    var ring: WindowRing { get }
    var classifier: any SequenceClassifier { get }
    var series: SeriesShape { get }
}

extension SequenceWindows {
    func classifyHeld() -> Prediction? {
        let range = ring.held
        guard !range.isEmpty else { return nil }
        return classifier.predict(series.series(ring.values[range]))
    }
}

/// Windows of frames for a sequence classifier: the window is handed over as a ``TimeSeries`` every
/// `hop` frames (one allocation per decision).
struct WindowedSequenceDecider: Decider, SequenceWindows {
    var ring: WindowRing
    let classifier: any SequenceClassifier
    let series: SeriesShape

    mutating func reset() { ring.reset() }

    mutating func push(_ frame: UnsafeBufferPointer<Float>, at n: Int) -> Decision? {
        guard ring.append(frame) else { return nil }
        let span = ring.span
        return Decision(prediction: classifyHeld()!, start: span.start, end: span.end)
    }
}

/// Windows followed by a classifier that carries state across frames (``IncrementalClassifier``):
/// a few steps per frame instead of a whole window every hop, with the same decisions. The ring is
/// kept only for ``classifyHeld()`` before the first window is complete.
struct IncrementalWindowDecider: Decider, SequenceWindows {
    var ring: WindowRing
    var stream: any WindowStream
    let classifier: any SequenceClassifier
    let series: SeriesShape

    mutating func reset() {
        ring.reset()
        stream.reset()
    }

    mutating func push(_ frame: UnsafeBufferPointer<Float>, at n: Int) -> Decision? {
        _ = ring.append(frame)
        guard let p = stream.step(frame) else { return nil }
        let span = ring.span
        return Decision(prediction: p, start: span.start, end: span.end)
    }
}
