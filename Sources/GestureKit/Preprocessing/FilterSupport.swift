/// Conventions shared by the streaming filters in this folder.
///
/// - Start-up: every filter starts as if the input had held its first frame forever, so a stream that
///   begins at rest (gravity on an accelerometer, a sensor offset) gives no start-up transient.
/// - Non-finite input: a NaN or infinite sample is replaced by the channel's previous input (0 before
///   the first frame) before it is filtered, so one bad sample never poisons the filter's history.
/// - Channel count: learned by `fit` (stored as `"channels"`); a stage that was never fitted sizes its
///   state on the first frame it sees (a one-off allocation).
enum FilterSupport {
    /// `value` when finite, otherwise `previous` (sample-and-hold over a dropped sample).
    @inline(__always)
    static func held(_ value: Float, previous: Float) -> Float {
        value.isFinite ? value : previous
    }

    /// Upper bounds for sizes read from pipeline files, checked before anything is allocated: a
    /// hostile or corrupt file must fail with an error, not trap or ask for gigabytes.
    static let maxChannels = 4096
    static let maxWindowValues = 1 << 24

    static func checkChannels(_ channels: Int?) throws {
        if let channels, channels <= 0 {
            throw GestureKitError("must be positive, found \(channels)", field: "channels")
        }
        if let channels, channels > maxChannels {
            throw GestureKitError("must be at most \(maxChannels), found \(channels)", field: "channels")
        }
    }

    /// A window of at least 1 frame whose ring (window x channels values) stays within bounds.
    static func checkWindow(_ window: Int, channels: Int?) throws {
        if window < 1 { throw GestureKitError("must be at least 1, found \(window)", field: "window") }
        if window > maxWindowValues / max(channels ?? 1, 1) {
            throw GestureKitError("window x channels must be at most \(maxWindowValues), found \(window) x \(channels ?? 1)", field: "window")
        }
    }

    static func checkSampleRate(_ rate: Double?) throws {
        if let rate, !(rate.isFinite && rate > 0) {
            throw GestureKitError("must be a positive finite number, found \(rate)", field: "sampleRate")
        }
    }
}

/// The method of a fitted scaler (``Normalizer`` for frames, ``FeatureScaler`` for feature vectors).
public enum ScalingMethod: String, Sendable, Codable, CaseIterable {
    /// `(x - mean) / std` (population standard deviation).
    case zscore
    /// `(x - min) / (max - min)`, mapping the training range to [0, 1].
    case minmax
}

/// The configuration and learned state both scaling stages store, under the same JSON keys:
/// `method` (`"zscore"` default, `"minmax"`), and once fitted `offsets` and `scales`.
struct ScalingParameters: Sendable, Hashable, Codable {
    var method: ScalingMethod
    var offsets: PackedFloats?
    var scales: PackedFloats?

    init(method: ScalingMethod) { self.method = method }

    enum CodingKeys: String, CodingKey { case method, offsets, scales }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let m = try c.decodeIfPresent(String.self, forKey: .method) ?? ScalingMethod.zscore.rawValue
        guard let method = ScalingMethod(rawValue: m) else {
            throw GestureKitError("unknown method \"\(m)\" (known: zscore, minmax)", field: "method")
        }
        self.method = method
        offsets = try c.decodeIfPresent(PackedFloats.self, forKey: .offsets)
        scales = try c.decodeIfPresent(PackedFloats.self, forKey: .scales)
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(method.rawValue, forKey: .method)
        try c.encodeIfPresent(offsets, forKey: .offsets)
        try c.encodeIfPresent(scales, forKey: .scales)
    }

    func validate() throws { try ScalingFit.check(offsets: offsets, scales: scales, count: nil) }

    /// Fits offsets and scales on the rows `rows` hands to its body.
    mutating func fit(columns: Int, rows: ((UnsafeBufferPointer<Float>) -> Void) -> Void) throws {
        let fitted = try ScalingFit.fit(method: method, columns: columns, field: "offsets", rows: rows)
        offsets = PackedFloats(fitted.offsets)
        scales = PackedFloats(fitted.scales)
    }
}

/// Per-column offset and scale learned from training rows: `y = (x - offset) / scale`.
enum ScalingFit {
    /// - Parameters:
    ///   - columns: values per row.
    ///   - rows: calls `body` with each training row (a buffer of `columns` values).
    /// - Returns: offsets and scales; a column with zero spread gets scale 1 so it maps to 0.
    /// - Throws: when a column has no finite value.
    static func fit(method: ScalingMethod, columns: Int, field: String,
                    rows: ((UnsafeBufferPointer<Float>) -> Void) -> Void) throws -> (offsets: [Float], scales: [Float]) {
        var count = [Int](repeating: 0, count: columns)
        var sum = [Double](repeating: 0, count: columns)
        var sumSq = [Double](repeating: 0, count: columns)
        var lo = [Float](repeating: .infinity, count: columns)
        var hi = [Float](repeating: -.infinity, count: columns)
        rows { row in
            for j in 0..<columns {
                let v = row[j]
                guard v.isFinite else { continue }
                count[j] += 1
                sum[j] += Double(v)
                lo[j] = min(lo[j], v)
                hi[j] = max(hi[j], v)
            }
        }
        // Second pass for the variance (two-pass is exact enough where sum-of-squares cancels).
        if method == .zscore {
            rows { row in
                for j in 0..<columns where row[j].isFinite && count[j] > 0 {
                    let d = Double(row[j]) - sum[j] / Double(count[j])
                    sumSq[j] += d * d
                }
            }
        }
        var offsets = [Float](repeating: 0, count: columns)
        var scales = [Float](repeating: 1, count: columns)
        for j in 0..<columns {
            guard count[j] > 0 else {
                throw GestureKitError("column \(j) has no finite training value", field: field)
            }
            switch method {
            case .zscore:
                offsets[j] = Float(sum[j] / Double(count[j]))
                let s = Float((sumSq[j] / Double(count[j])).squareRoot())
                scales[j] = s > 0 && s.isFinite ? s : 1
            case .minmax:
                offsets[j] = lo[j]
                let r = hi[j] - lo[j]
                scales[j] = r > 0 && r.isFinite ? r : 1
            }
        }
        return (offsets, scales)
    }

    static func check(offsets: PackedFloats?, scales: PackedFloats?, count: Int?) throws {
        switch (offsets, scales) {
        case (nil, nil): return
        case (let o?, let s?):
            try o.check("offsets", count: count)
            try s.check("scales", count: count ?? o.values.count)
            if let bad = s.values.firstIndex(where: { $0 == 0 }) {
                throw GestureKitError("scale \(bad) is zero", field: "scales")
            }
        default:
            throw GestureKitError("offsets and scales must be given together", field: offsets == nil ? "offsets" : "scales")
        }
    }
}

/// The configuration of a filter over the last `window` frames (moving average, median): JSON keys
/// `window` (default 5, at least 1) and `channels` (learned by `fit`, optional).
struct WindowedFilterConfig: Sendable, Hashable, Codable {
    var window: Int
    var channels: Int?

    init(window: Int) { self.window = window }

    enum CodingKeys: String, CodingKey { case window, channels }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        window = try c.decodeIfPresent(Int.self, forKey: .window) ?? 5
        channels = try c.decodeIfPresent(Int.self, forKey: .channels)
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(window, forKey: .window)
        try c.encodeIfPresent(channels, forKey: .channels)
    }

    func validate() throws {
        try FilterSupport.checkChannels(channels)
        try FilterSupport.checkWindow(window, channels: channels)
    }
}

/// A filter configured by a ``WindowedFilterConfig``: the coding and fitting are the same for all of
/// them. (Members of this internal protocol's extension are not API outside the module: public
/// initialisers and properties stay on the types.)
protocol WindowedFilter: Preprocessor {
    var config: WindowedFilterConfig { get set }
    init(config: WindowedFilterConfig)
}

extension WindowedFilter {
    public init(from decoder: Decoder) throws {
        self.init(config: try WindowedFilterConfig(from: decoder))
        // Validated before reset sizes the ring (FuzzPipelineFile: "channels": -6 trapped).
        try config.validate()
        if config.channels != nil { reset() }
    }

    public var channels: Int? { config.channels }

    public func encode(to encoder: Encoder) throws { try config.encode(to: encoder) }
    public func validate() throws { try config.validate() }

    public mutating func fit(_ training: [TimeSeries], channels: Int, sampleRate: Double?) throws {
        try validate()
        config.channels = channels
        reset()
    }
}

/// The last `window` samples of every channel, kept the way each windowed filter needs them: non-finite
/// samples held, and primed with the first frame (see ``FilterSupport``). Frames sit in arrival order
/// in a ring of `window * channels` values.
struct SampleWindow: Sendable {
    private(set) var ring: [Float] = []
    private var last: [Float] = []
    private var position = 0
    private var primed = false
    private(set) var window = 0
    private(set) var channels = 0

    /// Empties the window and sizes it, as at the start of a stream.
    mutating func reset(window: Int, channels: Int) {
        self.window = max(window, 1)
        self.channels = channels
        ring = [Float](repeating: 0, count: self.window * channels)
        last = [Float](repeating: 0, count: channels)
        position = 0
        primed = false
    }

    /// Stores one frame and replaces each sample by `output(j, x, leaving, ring, slot)`: channel `j`'s
    /// new sample `x` (held when non-finite), the sample it pushed out of the window (`nil` on the first
    /// frame, which fills the whole window with `x`), the ring and the slot `x` was stored in (the
    /// oldest sample is in the next slot).
    /// - Complexity: O(channels) plus the cost of `output`; no allocation.
    @inline(__always)
    mutating func push(_ frame: UnsafeMutableBufferPointer<Float>,
                       _ output: (_ j: Int, _ x: Float, _ leaving: Float?, _ ring: UnsafeBufferPointer<Float>, _ slot: Int) -> Float) {
        let c = channels, w = window, pos = position, wasPrimed = primed
        ring.withUnsafeMutableBufferPointer { ring in
            last.withUnsafeMutableBufferPointer { last in
                for j in 0..<c {
                    let x = FilterSupport.held(frame[j], previous: last[j])
                    last[j] = x
                    var leaving: Float? = nil
                    if wasPrimed {
                        leaving = ring[pos * c + j]
                    } else {
                        for k in 0..<w { ring[k * c + j] = x }
                    }
                    ring[pos * c + j] = x
                    frame[j] = output(j, x, leaving, UnsafeBufferPointer(ring), pos)
                }
            }
        }
        primed = true
        position = pos == w - 1 ? 0 : pos + 1
    }
}
