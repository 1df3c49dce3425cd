/// A sequence classifier that can find its classes in an unsegmented stream (subsequence matching),
/// so a whole-example pipeline can still run live.
public protocol SpottingClassifier: SequenceClassifier {
    /// A spotter over the trained model, or `nil` when this configuration cannot spot (for example
    /// templates resampled away from the stream's time scale).
    func makeSpotter() -> (any Spotter)?
}
