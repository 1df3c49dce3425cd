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
