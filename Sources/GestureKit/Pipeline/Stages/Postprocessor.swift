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
    /// True for a stage that ``StreamCalibration`` keeps from the spec and runs after the smoothing
    /// and threshold it chooses, instead of replacing it: the stage holds what the user said about
    /// their classes (which are transitions or postures), not a setting calibration tunes.
    /// Default: false.
    var keptByCalibration: Bool { get }
    /// True for a stage that reports an event once and then null while it lasts (a change filter, a
    /// timeout), so its per-frame output no longer says what is going on and a frame accuracy
    /// after post-processing means nothing. Default: false.
    var reportsOnce: Bool { get }
}

extension Postprocessor {
    public mutating func prepare(sampleRate: Double?) throws {}
    public mutating func fit(labelSequences: [[Int?]], classCount: Int) throws {}
    public mutating func bind(classes: [String]) throws {}
    public var keptByCalibration: Bool { false }
    public var reportsOnce: Bool { false }
    public mutating func fit(labelSequences: [[Int?]], classCount: Int, rest: Int?) throws {
        try fit(labelSequences: labelSequences, classCount: classCount)
    }
}
