/// Turns a window of frames into a feature vector.
public protocol FeatureExtractor: Stage {
    /// Called once before training with the input channel count, sample rate and the training windows.
    mutating func fit(_ windows: [TimeSeries], channels: Int, sampleRate: Double?) throws
    /// Number of features produced per window (valid after `fit`).
    var featureCount: Int { get }
    /// Names of the features, `featureCount` of them (e.g. `mean(accelX)`).
    var featureNames: [String] { get }
    /// Writes the features of `window` (`frames` frames, row-major, the fitted channel count) into
    /// `out`, in buffers: what the pipeline calls on a window inside a larger series. From an app,
    /// call ``extract(_:into:)`` or ``features(of:)``.
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

    /// Writes the features of `window` (the fitted channel count) into `out`, which holds
    /// ``featureCount`` values: ``features(of:)`` without allocating, for a live loop.
    public func extract(_ window: TimeSeries, into out: inout [Float]) {
        precondition(out.count == featureCount, "extract: out holds \(out.count) values, featureCount is \(featureCount)")
        window.values.withUnsafeBufferPointer { w in
            out.withUnsafeMutableBufferPointer { extract(w, frames: window.frameCount, into: $0) }
        }
    }
}
