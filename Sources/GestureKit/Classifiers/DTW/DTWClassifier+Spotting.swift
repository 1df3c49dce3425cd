/// DTW pipelines run live by spotting: subsequence DTW of every template against the stream.
extension DTWClassifier: SpottingClassifier {
    /// `nil` unless the model keeps the stream's time scale and units and has spotting thresholds (see
    /// ``DTWSpotter/init(classifier:)``).
    public func makeSpotter() -> (any Spotter)? {
        guard let inner = try? DTWSpotter(classifier: self) else { return nil }
        return DTWSpotterStage(inner: inner, thresholds: inner.thresholds)
    }
}

/// ``DTWSpotter`` as a pipeline ``Spotter``: a match becomes a prediction whose confidence is how
/// far inside its class's threshold it fell (1 at distance 0, 0 at the threshold).
struct DTWSpotterStage: Spotter {
    var inner: DTWSpotter
    let thresholds: [Float]

    mutating func reset() { inner.reset() }

    mutating func push(_ frame: UnsafeBufferPointer<Float>) -> SpotMatch? {
        guard let m = inner.push(frame) else { return nil }
        let t = thresholds[m.classIndex]
        let confidence = t.isFinite && t > 0 ? max(0, min(1, 1 - m.distance / t)) : 1
        var scores = [Float](repeating: 0, count: thresholds.count)
        scores[m.classIndex] = confidence
        return SpotMatch(prediction: Prediction(classIndex: m.classIndex, confidence: confidence, scores: scores, distance: m.distance),
                         start: m.start, end: m.end)
    }
}
