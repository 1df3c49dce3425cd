/// A sequence classifier that can follow overlapping windows of a stream frame by frame, carrying
/// its state, so a live decision costs a few steps per frame instead of a whole window every hop.
public protocol IncrementalClassifier: SequenceClassifier {
    /// A stream over windows of `window` frames every `hop` frames, giving the same decisions as
    /// ``SequenceClassifier/predict(_:)`` on each window; `nil` when this window and hop cannot be
    /// followed incrementally.
    func incrementalWindows(window: Int, hop: Int) -> (any WindowStream)?
}
