/// The output of a classifier for one input.
public struct Prediction: Sendable, Hashable, Codable {
    /// Index into the pipeline's classes; `nil` when the input was rejected as null.
    public var classIndex: Int?
    /// How sure the classifier is of `classIndex`, in [0, 1] (a probability, or a distance-derived
    /// score for distance classifiers).
    public var confidence: Float
    /// One score per class (probabilities for the LSTM, similarities for distance classifiers).
    public var scores: [Float]
    /// Distance to the best match, for distance classifiers; used by null rejection.
    public var distance: Float?
    /// An event that has just ended, reported with this decision by a post-processor that names it
    /// after the fact (``TransitionFilter`` names a run of transitions when it ends). `classIndex`
    /// stays what is happening now; a ``Recognizer`` reports the event in its place.
    public var event: Event?

    /// An event named after it ended.
    public struct Event: Sendable, Hashable, Codable {
        /// Index into the pipeline's classes.
        public var classIndex: Int
        /// How sure the post-processor is of it, in [0, 1].
        public var confidence: Float
        /// The frame of the decision it began on.
        public var since: Int

        /// An event; every parameter is the property of the same name.
        public init(classIndex: Int, confidence: Float, since: Int) {
            self.classIndex = classIndex
            self.confidence = confidence
            self.since = since
        }
    }

    /// A prediction; every parameter is the property of the same name.
    public init(classIndex: Int?, confidence: Float, scores: [Float], distance: Float? = nil) {
        self.classIndex = classIndex
        self.confidence = confidence
        self.scores = scores
        self.distance = distance
    }

    /// A rejection: no class, confidence 0, all scores 0.
    public static func null(classCount: Int) -> Prediction {
        Prediction(classIndex: nil, confidence: 0, scores: [Float](repeating: 0, count: classCount))
    }
}

extension Prediction {
    /// This decision under another prior for class `rest`: its score times `weight`, the scores
    /// rescaled to their former total, the best class taken again with its share of the total as
    /// confidence. A rejection (no class) or a prediction without per-class scores is unchanged.
    /// - Parameters:
    ///   - weight: the rest class's prior relative to the one the classifier learned (0 up).
    ///   - rest: index of the rest class.
    /// - Complexity: O(classes).
    public func weighingRest(_ weight: Float, at rest: Int) -> Prediction {
        guard classIndex != nil, scores.indices.contains(rest) else { return self }
        let total = scores.reduce(0, +)
        var s = scores
        s[rest] *= weight
        let after = s.reduce(0, +)
        guard total > 0, after > 0 else { return self }
        let k = total / after
        var best = 0
        for i in s.indices {
            s[i] *= k
            if s[i] > s[best] { best = i }
        }
        var p = self
        p.scores = s
        p.classIndex = best
        p.confidence = s[best] / total
        return p
    }
}
