/// DTW pipelines run live by spotting: subsequence DTW of every template against the stream.
extension DTWClassifier: SpottingClassifier {
    /// `nil` unless the model keeps the stream's time scale and units and has spotting thresholds (see
    /// ``DTWSpotter/init(classifier:)``).
    public func makeSpotter() -> (any Spotter)? {
        guard let inner = try? DTWSpotter(classifier: self) else { return nil }
        return DTWSpotterStage(inner: inner, classifier: self)
    }
}

/// ``DTWSpotter`` as a pipeline ``Spotter``, in two stages. The spotter proposes a stretch of the
/// stream (a subsequence match within its class's threshold, final once nothing overlapping can beat
/// it); the whole-example classifier then labels that stretch (the variant and band the pipeline
/// trained, every template), which tells close classes apart better than the one template whose
/// subsequence matched cheapest. Labelling does not delay the report, and the stretch is the
/// spotter's: frames the classifier sees are frames the spotter already matched (causal).
///
/// The prediction's confidence is how far inside its class's spotting threshold the subsequence match
/// fell (1 at distance 0, 0 at the threshold); its scores are the classifier's on the stretch.
struct DTWSpotterStage: Spotter {
    var inner: DTWSpotter
    let classifier: DTWClassifier
    /// The last frames pushed, enough to hold any match when it becomes final (see ``capacity``).
    var ring: [Float]
    let capacity: Int
    var frames = 0

    /// A match is longer than ``DTWSpotter/maxWarp`` times the longest template at most and becomes
    /// final at most that long after the paths that could beat it started, so four such lengths hold
    /// every match when it is reported.
    static func capacity(maxLength: Int) -> Int { 4 * DTWSpotter.maxWarp * max(maxLength, 1) + 1 }

    init(inner: DTWSpotter, classifier: DTWClassifier) {
        self.inner = inner
        self.classifier = classifier
        capacity = Self.capacity(maxLength: inner.lengths.max() ?? 0)
        ring = [Float](repeating: 0, count: capacity * inner.channels)
    }

    mutating func reset() {
        inner.reset()
        frames = 0
    }

    mutating func push(_ frame: UnsafeBufferPointer<Float>) -> SpotMatch? {
        let c = inner.channels, base = (frames % capacity) * c
        ring.withUnsafeMutableBufferPointer { r in
            for ch in 0..<c { r[base + ch] = frame[ch] }
        }
        frames += 1
        guard let m = inner.push(frame) else { return nil }
        let t = inner.thresholds[m.classIndex]
        let confidence = t.isFinite && t > 0 ? max(0, min(1, 1 - m.distance / t)) : 1
        var scores = [Float](repeating: 0, count: inner.thresholds.count)
        scores[m.classIndex] = confidence
        var label = m.classIndex
        if let whole = stretch(m.start, m.end) {
            let p = classifier.predict(whole)
            if let top = p.scores.indices.max(by: { p.scores[$0] < p.scores[$1] }), p.scores[top] > 0 {
                label = top
                scores = p.scores
            }
        }
        return SpotMatch(prediction: Prediction(classIndex: label, confidence: confidence, scores: scores, distance: m.distance),
                         start: m.start, end: m.end)
    }

    /// Frames `start...end` of the stream as a series (clipped to what the ring still holds).
    func stretch(_ start: Int, _ end: Int) -> TimeSeries? {
        let c = inner.channels
        let lo = max(start, frames - capacity, 0), hi = min(end, frames - 1)
        guard hi > lo else { return nil }
        var v = [Float]()
        v.reserveCapacity((hi - lo + 1) * c)
        for f in lo...hi {
            let base = (f % capacity) * c
            v += ring[base..<(base + c)]
        }
        return TimeSeries(values: v, channelCount: c)
    }
}
