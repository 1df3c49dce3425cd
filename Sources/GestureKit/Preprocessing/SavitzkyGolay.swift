/// Savitzky-Golay smoothing per channel: a least-squares polynomial of degree `polynomialOrder` is
/// fitted to the last `window` frames and evaluated at one point. Polynomials up to that degree pass
/// unchanged (only delayed, in centred mode) while noise is averaged out.
///
/// Streaming has no future frames, so there are two causal forms (`mode`):
/// - `"centered"` (default): the classic symmetric filter evaluated at the middle of the window, so
///   the output at frame n is the smoothed value of frame `n - (window - 1) / 2` — a delay of half a
///   window, with the best noise reduction and linear phase. Needs an odd window.
/// - `"endpoint"`: the fit is evaluated at the newest frame; no delay but noisier (the end of a
///   least-squares fit is its least certain point).
///
/// JSON: `{"kind": "savitzkyGolay", "window": 7, "polynomialOrder": 2}`. Keys: `window` (default 5,
/// at most 4096), `polynomialOrder` (default 2, below `window`, at most 10), `mode` (default
/// `"centered"`), `channels` (learned).
/// See `FilterSupport` for start-up and non-finite input.
/// - Complexity: O(channels * window) per frame, no allocation; the weights are designed once, O(window * order^2).
public struct SavitzkyGolay: Preprocessor {
    /// Where in the window the smoothed value is taken: its centre (delayed by half a window) or its newest frame (no delay, noisier).
    public enum Mode: String, Sendable, Codable {
        /// The window's centre: smoother, delayed by half a window.
        case centered
        /// The window's newest frame: no delay, noisier.
        case endpoint
    }

    public static let kind = "savitzkyGolay"
    static let maxOrder = 10, maxWindow = 4096
    /// Frames in the fitted window (odd).
    public private(set) var window: Int
    /// Degree of the local polynomial, below `window`.
    public private(set) var polynomialOrder: Int
    /// Where in the window the value is taken.
    public private(set) var mode: Mode
    /// Channels seen (learned).
    public private(set) var channels: Int?

    /// The filter weights, oldest frame first (`window` of them).
    public private(set) var weights: [Float] = []
    private var samples = SampleWindow()

    /// A filter; every parameter is the property of the same name.
    public init(window: Int = 5, polynomialOrder: Int = 2, mode: Mode = .centered) {
        self.window = window
        self.polynomialOrder = polynomialOrder
        self.mode = mode
        weights = Self.design(window: window, order: polynomialOrder, mode: mode)
    }

    /// Frames of delay between input and output (half a window in centred mode, 0 at the end point).
    public var delay: Int { mode == .centered ? (window - 1) / 2 : 0 }

    enum CodingKeys: String, CodingKey { case window, polynomialOrder, mode, channels }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        window = try c.decodeIfPresent(Int.self, forKey: .window) ?? 5
        polynomialOrder = try c.decodeIfPresent(Int.self, forKey: .polynomialOrder) ?? 2
        let m = try c.decodeIfPresent(String.self, forKey: .mode) ?? Mode.centered.rawValue
        guard let mode = Mode(rawValue: m) else {
            throw GestureKitError("unknown mode \"\(m)\" (known: centered, endpoint)", field: "mode")
        }
        self.mode = mode
        channels = try c.decodeIfPresent(Int.self, forKey: .channels)
        weights = []
        try validate()  // before design (O(window)) and reset size anything
        weights = Self.design(window: window, order: polynomialOrder, mode: mode)
        if channels != nil { reset() }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(window, forKey: .window)
        try c.encode(polynomialOrder, forKey: .polynomialOrder)
        try c.encode(mode.rawValue, forKey: .mode)
        try c.encodeIfPresent(channels, forKey: .channels)
    }

    public func validate() throws {
        try FilterSupport.checkWindow(window, channels: channels)
        if mode == .centered && window % 2 == 0 {
            throw GestureKitError("a centred Savitzky-Golay window must be odd, found \(window)", field: "window")
        }
        if polynomialOrder < 0 || polynomialOrder >= window {
            throw GestureKitError("must be from 0 to window - 1 (\(window - 1)), found \(polynomialOrder)", field: "polynomialOrder")
        }
        // The design costs O(window * order^2): bounded, so a pipeline file cannot stall a load.
        if polynomialOrder > Self.maxOrder {
            throw GestureKitError("must be at most \(Self.maxOrder), found \(polynomialOrder)", field: "polynomialOrder")
        }
        if window > Self.maxWindow {
            throw GestureKitError("must be at most \(Self.maxWindow), found \(window)", field: "window")
        }
        try FilterSupport.checkChannels(channels)
    }

    public mutating func fit(_ training: [TimeSeries], channels: Int, sampleRate: Double?) throws {
        try validate()
        self.channels = channels
        reset()
    }

    public mutating func reset() {
        samples.reset(window: window, channels: channels ?? 0)
    }

    public mutating func process(_ frame: UnsafeMutableBufferPointer<Float>) {
        let c = frame.count
        if samples.channels != c { channels = c; reset() }
        let w = weights.count
        guard w > 0, samples.window == w else { return }  // invalid configuration: validate() reports it
        weights.withUnsafeBufferPointer { h in
            samples.push(frame) { j, _, _, ring, slot in
                // Oldest frame sits just after the newest one in the ring.
                var acc = 0.0
                var s = slot + 1 == w ? 0 : slot + 1
                for k in 0..<w {
                    acc += Double(h[k]) * Double(ring[s * c + j])
                    s = s + 1 == w ? 0 : s + 1
                }
                return Float(acc)
            }
        }
    }

    /// Least-squares weights `h = A (A^T A)^-1 e0` for positions `t` relative to the output point
    /// (A[i][k] = t_i^k), so `sum h_i x_i` is the fitted polynomial's value at `t = 0`. Positions are
    /// scaled to [-1, 1] for conditioning (this does not change the fitted value). Empty when invalid.
    static func design(window w: Int, order p: Int, mode: Mode) -> [Float] {
        guard w >= 1, p >= 0, p < w, mode == .endpoint || w % 2 == 1 else { return [] }
        let scale = Double(max(w - 1, 1))
        let t: [Double] = (0..<w).map { i in
            Double(mode == .centered ? i - (w - 1) / 2 : i - (w - 1)) / scale
        }
        let n = p + 1
        // Normal matrix M[j][k] = sum t^(j+k), solved against e0 by Gauss-Jordan with partial pivoting.
        var m = [[Double]](repeating: [Double](repeating: 0, count: n + 1), count: n)
        for j in 0..<n {
            for k in 0..<n { m[j][k] = t.reduce(0) { $0 + pow($1, j + k) } }
            m[j][n] = j == 0 ? 1 : 0
        }
        for col in 0..<n {
            let pivot = (col..<n).max { abs(m[$0][col]) < abs(m[$1][col]) }!
            m.swapAt(col, pivot)
            let d = m[col][col]
            for k in col...n { m[col][k] /= d }
            for r in 0..<n where r != col {
                let f = m[r][col]
                if f != 0 { for k in col...n { m[r][k] -= f * m[col][k] } }
            }
        }
        return t.map { ti in Float((0..<n).reduce(0.0) { $0 + m[$1][n] * pow(ti, $1) }) }
    }
}

private func pow(_ x: Double, _ n: Int) -> Double {
    var r = 1.0
    for _ in 0..<n { r *= x }
    return r
}
