/// Incremental matcher over a stream of pre-processed frames.
public protocol Spotter: Sendable {
    /// Forgets the stream so far.
    mutating func reset()
    /// Pushes one frame, in a buffer; returns a match once it can no longer improve. From an app,
    /// call `push(_:)` with an array.
    mutating func push(_ frame: UnsafeBufferPointer<Float>) -> SpotMatch?
    /// The stream has ended: the matches still waiting for frames that will not come, in order.
    mutating func flush() -> [SpotMatch]
}

extension Spotter {
    public mutating func flush() -> [SpotMatch] { [] }

    /// Pushes one frame; returns a match once it can no longer improve.
    public mutating func push(_ frame: [Float]) -> SpotMatch? {
        frame.withUnsafeBufferPointer { push($0) }
    }
}
