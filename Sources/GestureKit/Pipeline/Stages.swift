import Foundation

/// What every pipeline stage shares: a stable `kind` tag under which its configuration and learned
/// state are stored in the pipeline file (`{"kind": "movingAverage", ...}`).
///
/// Stages are value types. Their `Codable` form holds configuration and learned parameters only;
/// per-stream state (filter history, LSTM state) is rebuilt by `reset()` after loading.
public protocol Stage: Sendable, Codable {
    /// The tag written to the pipeline file; unique among stages of the same role.
    static var kind: String { get }
    /// Checks a decoded stage for consistency (shapes, finite values) and throws a
    /// ``GestureKitError`` naming the offending field. Default: nothing to check.
    func validate() throws
}

extension Stage {
    public func validate() throws {}
}

/// A per-frame transform applied before anything else (filters, normalisers). It keeps the channel
/// count and may remember earlier frames.
public protocol Preprocessor: Stage {
    /// Called once before training with the channel count and sample rate, and the training series as
    /// they leave the previous stage. Stages that learn (normalisers) fit here; others size their state.
    mutating func fit(_ training: [TimeSeries], channels: Int, sampleRate: Double?) throws
    /// Forgets all history, as at the start of a new stream.
    mutating func reset()
    /// Transforms one frame of `channels` values in place.
    /// - Complexity: O(channels) for most filters; stated per stage.
    mutating func process(_ frame: UnsafeMutableBufferPointer<Float>)
}

extension Preprocessor {
    /// Runs a whole series through a fresh copy of this stage (history reset first).
    public func apply(to series: TimeSeries) -> TimeSeries {
        var stage = self
        stage.reset()
        var out = series
        let c = series.channelCount
        out.values.withUnsafeMutableBufferPointer { all in
            for f in 0..<series.frameCount {
                stage.process(UnsafeMutableBufferPointer(rebasing: all[(f * c)..<((f + 1) * c)]))
            }
        }
        return out
    }
}

/// Turns a window of frames into a feature vector.
public protocol FeatureExtractor: Stage {
    /// Called once before training with the input channel count, sample rate and the training windows.
    mutating func fit(_ windows: [TimeSeries], channels: Int, sampleRate: Double?) throws
    /// Number of features produced per window (valid after `fit`).
    var featureCount: Int { get }
    /// Names of the features, `featureCount` of them (e.g. `mean(accelX)`).
    var featureNames: [String] { get }
    /// Writes the features of `window` (`frames` frames, row-major, the fitted channel count) into `out`.
    func extract(_ window: UnsafeBufferPointer<Float>, frames: Int, into out: UnsafeMutableBufferPointer<Float>)
}

extension FeatureExtractor {
    /// The features of a whole series.
    public func features(of series: TimeSeries) -> [Float] {
        var out = [Float](repeating: 0, count: featureCount)
        series.values.withUnsafeBufferPointer { w in
            out.withUnsafeMutableBufferPointer { extract(w, frames: series.frameCount, into: $0) }
        }
        return out
    }
}

/// A learned map from feature vectors to feature vectors (PCA, feature scaling).
public protocol FeatureTransform: Stage {
    /// Learns the map from training feature vectors.
    mutating func fit(_ features: [[Float]]) throws
    /// Length of the input vectors (0 before fitting).
    var inputCount: Int { get }
    /// Length of the output vectors (0 before fitting).
    var outputCount: Int { get }
    /// Writes the transform of `input` (``inputCount`` values) to `out` (``outputCount`` values).
    func transform(_ input: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>)
}

extension FeatureTransform {
    /// The transform of `input`, in a new array.
    public func transform(_ input: [Float]) -> [Float] {
        var out = [Float](repeating: 0, count: outputCount)
        input.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { transform(i, into: $0) } }
        return out
    }
}

/// The output of a classifier for one input.
public struct Prediction: Sendable, Hashable, Codable {
    /// Index into the pipeline's classes; `nil` when the input was rejected as null.
    public var classIndex: Int?
    /// How sure the classifier is of `classIndex`, in [0, 1] (a probability, or a distance-derived
    /// score for distance classifiers).
    public var confidence: Float
    /// One score per class (probabilities for the LSTM, similarities for distance classifiers).
    public var scores: [Float]
    /// Distance to the best match, for distance classifiers; used by null rejection.
    public var distance: Float?
    /// An event that has just ended, reported with this decision by a post-processor that names it
    /// after the fact (``TransitionFilter`` names a run of transitions when it ends). `classIndex`
    /// stays what is happening now; a ``Recognizer`` reports the event in its place.
    public var event: Event?

    /// An event named after it ended.
    public struct Event: Sendable, Hashable, Codable {
        /// Index into the pipeline's classes.
        public var classIndex: Int
        /// How sure the post-processor is of it, in [0, 1].
        public var confidence: Float
        /// The frame of the decision it began on.
        public var since: Int

        /// An event; every parameter is the property of the same name.
        public init(classIndex: Int, confidence: Float, since: Int) {
            self.classIndex = classIndex
            self.confidence = confidence
            self.since = since
        }
    }

    /// A prediction; every parameter is the property of the same name.
    public init(classIndex: Int?, confidence: Float, scores: [Float], distance: Float? = nil) {
        self.classIndex = classIndex
        self.confidence = confidence
        self.scores = scores
        self.distance = distance
    }

    /// A rejection: no class, confidence 0, all scores 0.
    public static func null(classCount: Int) -> Prediction {
        Prediction(classIndex: nil, confidence: 0, scores: [Float](repeating: 0, count: classCount))
    }
}

/// What a classifier may use while it trains besides its examples: where each example came from
/// and where to report progress.
public struct TrainingContext: Sendable {
    /// Per example, the user it came from, else its session (`nil` when neither is known), so a
    /// classifier that holds out validation data can hold out whole groups; empty when no example
    /// has one.
    public var groups: [String?]
    /// Receives progress while training runs (on the training thread).
    public var progress: (@Sendable (TrainingProgress) -> Void)?
    /// Asked between epochs, folds and templates; when it answers true, training throws
    /// `CancellationError` (the async API wires it to `Task.isCancelled`).
    public var isCancelled: @Sendable () -> Bool
    /// Recordings in which no gesture happens (everyday motion, already pre-processed), for a
    /// classifier that learns "not a gesture" from them (see ``Pipeline/train(_:on:negatives:progress:isCancelled:)``).
    public var negatives: [TimeSeries] = []

    /// A context; every parameter is the property of the same name.
    public init(groups: [String?] = [], progress: (@Sendable (TrainingProgress) -> Void)? = nil,
                isCancelled: @escaping @Sendable () -> Bool = { false }, negatives: [TimeSeries] = []) {
        self.groups = groups
        self.progress = progress
        self.isCancelled = isCancelled
        self.negatives = negatives
    }

    /// Throws `CancellationError` when training was cancelled. - Complexity: one call of ``isCancelled``.
    public func checkCancellation() throws {
        if isCancelled() { throw CancellationError() }
    }
}

/// One step of ``Pipeline/train(_:on:negatives:progress:isCancelled:)``, as it happens.
public enum TrainingProgress: Sendable, CustomStringConvertible {
    /// A pre-processing stage of this kind was fitted.
    case fitted(stage: String)
    /// Features were extracted: `count` per input, from `inputs` examples or windows.
    case extracted(count: Int, inputs: Int, windowed: Bool)
    /// An iterative classifier finished an epoch.
    case epoch(LSTMEpochReport)
    /// The classifier of this kind was trained on `inputs` examples or windows.
    case trained(classifier: String, inputs: Int, windowed: Bool)

    public var description: String {
        switch self {
        case .fitted(let stage): return "fitted \(stage)"
        case .extracted(let count, let inputs, let windowed):
            return "extracted \(count) features from \(inputs) \(windowed ? "windows" : "examples")"
        case .epoch(let r):
            var line = String(format: "epoch %3d  loss %.4f  accuracy %.3f", r.epoch, r.loss, r.accuracy)
            if let vl = r.validationLoss, let va = r.validationAccuracy {
                line += String(format: "  validation loss %.4f  accuracy %.3f", vl, va)
            }
            return line + String(format: "  lr %.2g  %.2f s", Double(r.learningRate), r.seconds)
        case .trained(let classifier, let inputs, let windowed):
            return "trained \(classifier) on \(inputs) \(windowed ? "windows" : "examples")"
        }
    }
}

/// What every classifier shares, whatever it reads.
public protocol Classifier: Stage {
    /// Classes of the trained model (0 before training).
    var classCount: Int { get }
    /// What `gesture info` prints about the trained model (one short line per entry).
    var summary: [String: String] { get }
    /// The command-line settings this classifier has. Default: none.
    static var settings: Set<ClassifierSetting> { get }
    /// Applies `settings`, which hold only settings in ``settings``. Default: nothing to apply.
    mutating func apply(_ settings: ClassifierSettings) throws
    /// The pipeline `--classifier NAME` builds around this classifier, if it has one. Default: none.
    static var defaultPipeline: DefaultPipeline? { get }
}

extension Classifier {
    public static var settings: Set<ClassifierSetting> { [] }
    public mutating func apply(_ settings: ClassifierSettings) throws {}
    public static var defaultPipeline: DefaultPipeline? { nil }
}

/// A classifier of whole series (DTW, LSTM).
public protocol SequenceClassifier: Classifier {
    /// - Parameters:
    ///   - examples: the training series.
    ///   - labels: class index of each example, into `classes`.
    ///   - classes: the class names, in index order.
    mutating func train(_ examples: [TimeSeries], labels: [Int], classes: [String]) throws
    /// Training with its context (groups, progress). Default: ignores the context.
    mutating func train(_ examples: [TimeSeries], labels: [Int], classes: [String], context: TrainingContext) throws
    /// Classifies one whole series.
    func predict(_ series: TimeSeries) -> Prediction
}

extension SequenceClassifier {
    public mutating func train(_ examples: [TimeSeries], labels: [Int], classes: [String], context: TrainingContext) throws {
        try train(examples, labels: labels, classes: classes)
    }
}

/// A sequence classifier that can follow overlapping windows of a stream frame by frame, carrying
/// its state, so a live decision costs a few steps per frame instead of a whole window every hop.
public protocol IncrementalClassifier: SequenceClassifier {
    /// A stream over windows of `window` frames every `hop` frames, giving the same decisions as
    /// ``SequenceClassifier/predict(_:)`` on each window; `nil` when this window and hop cannot be
    /// followed incrementally.
    func incrementalWindows(window: Int, hop: Int) -> (any WindowStream)?
}

/// Overlapping windows of a stream followed incrementally (see ``IncrementalClassifier``).
public protocol WindowStream: Sendable {
    /// Forgets all windows in progress.
    mutating func reset()
    /// Feeds one frame; returns the decision on the window that ends on it, every `hop` frames once
    /// a whole window has been seen, otherwise `nil`.
    mutating func step(_ frame: UnsafeBufferPointer<Float>) -> Prediction?
}

/// A classifier of feature vectors (kNN, minimum distance).
public protocol VectorClassifier: Classifier {
    /// Trains on feature vectors, `labels` indexing into `classes`.
    mutating func train(_ vectors: [[Float]], labels: [Int], classes: [String]) throws
    /// Training with its context (groups, progress). Default: ignores the context.
    mutating func train(_ vectors: [[Float]], labels: [Int], classes: [String], context: TrainingContext) throws
    /// Classifies one feature vector.
    func predict(_ vector: UnsafeBufferPointer<Float>) -> Prediction
}

extension VectorClassifier {
    public mutating func train(_ vectors: [[Float]], labels: [Int], classes: [String], context: TrainingContext) throws {
        try train(vectors, labels: labels, classes: classes)
    }

    /// Classifies one feature vector.
    public func predict(_ vector: [Float]) -> Prediction {
        vector.withUnsafeBufferPointer { predict($0) }
    }
}

/// Turns the stream of raw predictions into the predictions a user sees (filters, timeouts,
/// thresholds). Counts time in frames so a replayed file always gives the same result.
public protocol Postprocessor: Stage {
    /// Forgets the stream so far.
    mutating func reset()
    /// Called once before use (after training, and after loading) with the stream's sample rate, so
    /// stages configured in seconds can convert to frames. Throws when the stage needs a rate and
    /// none is known. Default: nothing to prepare.
    mutating func prepare(sampleRate: Double?) throws
    /// Called once while training with the label sequence of each continuous training recording at
    /// the decision rate (one class index per window decision; `nil` = unlabelled), so stages that
    /// learn how activities follow each other (temporal decoding) can fit. Not called when the
    /// training data has no continuous recordings. Default: nothing to learn.
    mutating func fit(labelSequences: [[Int?]], classCount: Int) throws
    /// `fit(labelSequences:classCount:)` knowing which class index is the pipeline's rest class
    /// (`nil`: none), for stages that treat rest apart. Default: the call without it.
    mutating func fit(labelSequences: [[Int?]], classCount: Int, rest: Int?) throws
    /// Called with the pipeline's class names (in index order) after training and after loading, so
    /// stages configured by class name can resolve them. Throws on a name that is not a class.
    /// Default: nothing to resolve.
    mutating func bind(classes: [String]) throws
    /// Receives the raw prediction made at `frame` (frame numbers increase) and returns what to
    /// report: the same or another prediction, or a null one (`classIndex == nil`) to say nothing.
    mutating func process(_ prediction: Prediction, frame: Int) -> Prediction
}

extension Postprocessor {
    public mutating func prepare(sampleRate: Double?) throws {}
    public mutating func fit(labelSequences: [[Int?]], classCount: Int) throws {}
    public mutating func bind(classes: [String]) throws {}
    public mutating func fit(labelSequences: [[Int?]], classCount: Int, rest: Int?) throws {
        try fit(labelSequences: labelSequences, classCount: classCount)
    }
}

/// A sequence classifier that can find its classes in an unsegmented stream (subsequence matching),
/// so a whole-example pipeline can still run live.
public protocol SpottingClassifier: SequenceClassifier {
    /// A spotter over the trained model, or `nil` when this configuration cannot spot (for example
    /// templates resampled away from the stream's time scale).
    func makeSpotter() -> (any Spotter)?
}

/// A classifier that learns "not a gesture" from recordings with no gesture in them
/// (``TrainingContext/negatives``) instead of taking them as examples of a rest class.
public protocol NegativeLearning {}

/// Incremental matcher over a stream of pre-processed frames.
public protocol Spotter: Sendable {
    /// Forgets the stream so far.
    mutating func reset()
    /// Pushes one frame; returns a match once it can no longer improve.
    mutating func push(_ frame: UnsafeBufferPointer<Float>) -> SpotMatch?
    /// The stream has ended: the matches still waiting for frames that will not come, in order.
    mutating func flush() -> [SpotMatch]
}

extension Spotter {
    public mutating func flush() -> [SpotMatch] { [] }
}

/// A gesture found in a stream: its class (`nil` when rejected), how well it matched, and its span.
public struct SpotMatch: Sendable, Hashable {
    /// The match's class and confidence.
    public var prediction: Prediction
    /// First and last frame of the match, counted from the spotter's last reset.
    public var start: Int
    /// Last frame of the match.
    public var end: Int

    /// A match; every parameter is the property of the same name.
    public init(prediction: Prediction, start: Int, end: Int) {
        self.prediction = prediction
        self.start = start
        self.end = end
    }
}

extension Prediction {
    /// This decision under another prior for class `rest`: its score times `weight`, the scores
    /// rescaled to their former total, the best class taken again with its share of the total as
    /// confidence. A rejection (no class) or a prediction without per-class scores is unchanged.
    /// - Parameters:
    ///   - weight: the rest class's prior relative to the one the classifier learned (0 up).
    ///   - rest: index of the rest class.
    /// - Complexity: O(classes).
    public func weighingRest(_ weight: Float, at rest: Int) -> Prediction {
        guard classIndex != nil, scores.indices.contains(rest) else { return self }
        let total = scores.reduce(0, +)
        var s = scores
        s[rest] *= weight
        let after = s.reduce(0, +)
        guard total > 0, after > 0 else { return self }
        let k = total / after
        var best = 0
        for i in s.indices {
            s[i] *= k
            if s[i] > s[best] { best = i }
        }
        var p = self
        p.scores = s
        p.classIndex = best
        p.confidence = s[best] / total
        return p
    }
}
