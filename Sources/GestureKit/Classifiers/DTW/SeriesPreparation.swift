/// What the DTW classifier does to every series, training and prediction alike, before comparing:
/// trim still frames at both ends, resample to a fixed length, z-normalise each channel. The output
/// is channel-major (see `DTWKernel`).
public struct SeriesPreparation: Sendable, Hashable {
    /// Trim threshold as a fraction of the series' largest frame-to-frame motion; `nil` = no trim.
    public var trim: Float?
    /// Fixed length to resample to (linear interpolation); `nil` keeps the length.
    public var resample: Int?
    /// Per-series, per-channel z-normalisation.
    public var zNormalize: Bool

    /// A preparation; every parameter is the property of the same name.
    public init(trim: Float? = nil, resample: Int? = nil, zNormalize: Bool = false) {
        self.trim = trim
        self.resample = resample
        self.zNormalize = zNormalize
    }

    /// The prepared series, channel-major, and its frame count.
    /// - Complexity: O(frames * channels).
    public func prepare(_ series: TimeSeries) -> (values: [Float], frames: Int) {
        let c = series.channelCount
        var range = 0..<series.frameCount
        if let trim { range = SeriesPreparation.stillTrimmed(series, threshold: trim) }
        let n = range.count
        var out: [Float]
        var frames = n
        if let target = resample, target > 0, n > 0, target != n {
            frames = target
            out = [Float](repeating: 0, count: target * c)
            series.values.withUnsafeBufferPointer { v in
                let scale = target > 1 ? Double(n - 1) / Double(target - 1) : 0
                for t in 0..<target {
                    let x = Double(t) * scale
                    let i0 = min(Int(x), n - 1), i1 = min(i0 + 1, n - 1)
                    let f = Float(x - Double(i0))
                    for ch in 0..<c {
                        let a = v[(range.lowerBound + i0) * c + ch], b = v[(range.lowerBound + i1) * c + ch]
                        out[ch * target + t] = a + (b - a) * f
                    }
                }
            }
        } else {
            out = [Float](repeating: 0, count: n * c)
            series.values.withUnsafeBufferPointer { v in
                out.withUnsafeMutableBufferPointer { o in
                    SeriesPreparation.transpose(v.baseAddress! + range.lowerBound * c, frames: n, channels: c,
                                                into: o.baseAddress!)
                }
            }
        }
        if zNormalize, frames > 0 {
            for ch in 0..<c {
                var mean = 0.0
                for t in 0..<frames { mean += Double(out[ch * frames + t]) }
                mean /= Double(frames)
                var v = 0.0
                for t in 0..<frames { let d = Double(out[ch * frames + t]) - mean; v += d * d }
                let sd = (v / Double(frames)).squareRoot()
                // A constant channel carries no shape: map it to zeros rather than dividing by ~0.
                let inv = sd > 1e-8 ? 1 / sd : 0
                for t in 0..<frames { out[ch * frames + t] = Float((Double(out[ch * frames + t]) - mean) * inv) }
            }
        }
        return (out, frames)
    }

    /// The frames between the first and last frame whose motion (sum over channels of the absolute
    /// change from the previous frame) exceeds `threshold` times the largest motion in the series.
    /// A still series, or a trim that would leave fewer than 2 frames, keeps everything.
    /// - Complexity: O(frames * channels).
    public static func stillTrimmed(_ series: TimeSeries, threshold: Float) -> Range<Int> {
        let n = series.frameCount, c = series.channelCount
        guard n > 2 else { return 0..<n }
        var energy = [Float](repeating: 0, count: n)
        series.values.withUnsafeBufferPointer { v in
            for i in 1..<n {
                var e: Float = 0
                for ch in 0..<c { e += abs(v[i * c + ch] - v[(i - 1) * c + ch]) }
                energy[i] = e
            }
        }
        let peak = energy.max() ?? 0
        guard peak > 0 else { return 0..<n }
        let limit = threshold * peak
        guard let first = energy.firstIndex(where: { $0 > limit }),
              let last = energy.lastIndex(where: { $0 > limit }) else { return 0..<n }
        // Frame `first` moved away from frame `first - 1`, so keep that one too.
        let start = max(0, first - 1)
        return last + 1 - start >= 2 ? start..<(last + 1) : 0..<n
    }

    /// Row-major `frames x channels` to channel-major.
    @inlinable
    static func transpose(_ src: UnsafePointer<Float>, frames: Int, channels: Int, into dst: UnsafeMutablePointer<Float>) {
        if channels == 1 {
            dst.update(from: src, count: frames)
            return
        }
        for i in 0..<frames {
            for c in 0..<channels { dst[c * frames + i] = src[i * channels + c] }
        }
    }
}
