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
