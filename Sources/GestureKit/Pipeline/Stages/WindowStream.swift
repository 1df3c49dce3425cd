/// Overlapping windows of a stream followed incrementally (see ``IncrementalClassifier``).
public protocol WindowStream: Sendable {
    /// Forgets all windows in progress.
    mutating func reset()
    /// Feeds one frame, in a buffer; returns the decision on the window that ends on it, every `hop`
    /// frames once a whole window has been seen, otherwise `nil`. From an app, call
    /// `step(_:)` with an array.
    mutating func step(_ frame: UnsafeBufferPointer<Float>) -> Prediction?
}

extension WindowStream {
    /// Feeds one frame; returns the decision on the window that ends on it, every `hop` frames once
    /// a whole window has been seen, otherwise `nil`.
    public mutating func step(_ frame: [Float]) -> Prediction? {
        frame.withUnsafeBufferPointer { step($0) }
    }
}
