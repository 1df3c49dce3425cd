/// Turns a window of frames into a feature vector.
public protocol FeatureExtractor: Stage {
    /// Called once before training with the input channel count, sample rate and the training windows.
    mutating func fit(_ windows: [TimeSeries], channels: Int, sampleRate: Double?) throws
    /// Number of features produced per window (valid after `fit`).
    var featureCount: Int { get }
    /// Names of the features, `featureCount` of them (e.g. `mean(accelX)`).
    var featureNames: [String] { get }
    /// Writes the features of `window` (`frames` frames, row-major, the fitted channel count) into `out`.
    func extract(_ window: UnsafeBufferPointer<Float>, frames: Int, into out: UnsafeMutableBufferPointer<Float>)
}

extension FeatureExtractor {
    /// The features of a whole series.
    public func features(of series: TimeSeries) -> [Float] {
        var out = [Float](repeating: 0, count: featureCount)
        series.values.withUnsafeBufferPointer { w in
            out.withUnsafeMutableBufferPointer { extract(w, frames: series.frameCount, into: $0) }
        }
        return out
    }
}
