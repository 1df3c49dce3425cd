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
