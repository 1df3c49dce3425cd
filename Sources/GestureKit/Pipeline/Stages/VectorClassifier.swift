/// A classifier of feature vectors (kNN, minimum distance).
public protocol VectorClassifier: Classifier {
    /// Trains on feature vectors, `labels` indexing into `classes`.
    mutating func train(_ vectors: [[Float]], labels: [Int], classes: [String]) throws
    /// Training with its context (groups, progress). Default: ignores the context.
    mutating func train(_ vectors: [[Float]], labels: [Int], classes: [String], context: TrainingContext) throws
    /// Classifies one feature vector.
    func predict(_ vector: UnsafeBufferPointer<Float>) -> Prediction
}

extension VectorClassifier {
    public mutating func train(_ vectors: [[Float]], labels: [Int], classes: [String], context: TrainingContext) throws {
        try train(vectors, labels: labels, classes: classes)
    }

    /// Classifies one feature vector.
    public func predict(_ vector: [Float]) -> Prediction {
        vector.withUnsafeBufferPointer { predict($0) }
    }
}
