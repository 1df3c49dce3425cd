/// DTW pipelines run live by spotting: subsequence DTW of every template against the stream,
/// decided by the segmental decoder (``SegmentalSpotter``).
extension DTWClassifier: SpottingClassifier, NegativeLearning {
    /// `nil` unless the model keeps the stream's time scale and units (``canSpot``) and holds the
    /// decoder's model.
    public func makeSpotter() -> (any Spotter)? {
        guard canSpot, let model, let segmental = model.segmental else { return nil }
        return SegmentalSpotter(model: model, segmental: segmental, penalty: insertionPenalty ?? SegmentalSpotter.defaultPenalty,
                                naming: namesWhole ? WholeNaming(self) : nil)
    }
}
