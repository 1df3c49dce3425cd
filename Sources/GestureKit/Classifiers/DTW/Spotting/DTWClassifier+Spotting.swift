/// DTW pipelines run live by spotting: subsequence DTW of every template against the stream,
/// decided by the segmental decoder (``SegmentalSpotter``).
extension DTWClassifier: SpottingClassifier, NegativeLearning {
    /// The insertion penalty the spotter pays per report: the pipeline's, or the default for
    /// whether the model holds the unlearned check.
    var penalty: Float { insertionPenalty ?? SegmentalSpotter.defaultPenalty(checked: model?.unlearned != nil) }

    /// `nil` unless the model keeps the stream's time scale and units (``canSpot``) and holds the
    /// decoder's model.
    public func makeSpotter() -> (any Spotter)? {
        guard canSpot, let model, let segmental = model.segmental else { return nil }
        return SegmentalSpotter(model: model, segmental: segmental, penalty: penalty,
                                naming: namesWhole ? WholeNaming(self) : nil)
    }
}

extension DTWClassifier.Model {
    /// Learns the segmental decoder's model and, with `checkUnlearned`, the unlearned check,
    /// calibrated on the decoder's cuts of the training examples.
    mutating func learnSpotting(_ examples: [TimeSeries], labels: [Int], templateOf: [Int?], negatives: [TimeSeries],
                                checkUnlearned: Bool) {
        let learned = SegmentalModel.learnWithCuts(self, examples: examples, labels: labels, templateOf: templateOf,
                                                   negatives: negatives)
        segmental = learned?.model
        guard checkUnlearned else { return }
        if let learned {
            unlearned = UnlearnedCheck.learn(examples, labels: labels, cuts: learned.cuts, context: SegmentalModel.context(self),
                                             typical: learned.model.typicalLength.map { Int($0) },
                                             shortest: SegmentalSpotter.shortest(self, learned.model))
        } else {
            unlearned = UnlearnedCheck.learn(examples, labels: labels)
        }
    }
}
