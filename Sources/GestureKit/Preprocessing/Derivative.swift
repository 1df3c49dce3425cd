/// First or second derivative per channel by backward differences, in units per second when the
/// sample rate is known (per frame otherwise).
///
/// JSON: `{"kind": "derivative", "order": 1}`. Keys: `order` (1 or 2, default 1); `sampleRate` (Hz,
/// optional, set by `fit` when the data has one); `channels` (learned).
///
/// Order 1: `(x[n] - x[n-1]) * fs`; order 2: `(x[n] - 2 x[n-1] + x[n-2]) * fs^2` (the exact derivative
/// of a ramp, resp. a parabola, delayed by one frame). See `FilterSupport` for start-up (the first
/// output is 0) and non-finite input.
/// - Complexity: O(channels) per frame, no allocation.
public struct Derivative: Preprocessor {
    public static let kind = "derivative"
    /// 1 for velocity-like, 2 for acceleration-like differences.
    public var order: Int
    /// When known, differences are scaled to units per second.
    public var sampleRate: Double?
    /// Channels seen (learned).
    public private(set) var channels: Int?

    private var previous: [Float] = []
    private var previous2: [Float] = []
    private var primed = false

    /// A derivative of `order`.
    public init(order: Int = 1, sampleRate: Double? = nil) {
        self.order = order
        self.sampleRate = sampleRate
    }

    enum CodingKeys: String, CodingKey { case order, sampleRate, channels }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        order = try c.decodeIfPresent(Int.self, forKey: .order) ?? 1
        sampleRate = try c.decodeIfPresent(Double.self, forKey: .sampleRate)
        channels = try c.decodeIfPresent(Int.self, forKey: .channels)
        try validate()  // before reset sizes the state
        if channels != nil { reset() }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(order, forKey: .order)
        try c.encodeIfPresent(sampleRate, forKey: .sampleRate)
        try c.encodeIfPresent(channels, forKey: .channels)
    }

    public func validate() throws {
        if order != 1 && order != 2 { throw GestureKitError("must be 1 or 2, found \(order)", field: "order") }
        try FilterSupport.checkSampleRate(sampleRate)
        try FilterSupport.checkChannels(channels)
    }

    public mutating func fit(_ training: [TimeSeries], channels: Int, sampleRate: Double?) throws {
        if let sampleRate { self.sampleRate = sampleRate }
        try validate()
        self.channels = channels
        reset()
    }

    public mutating func reset() {
        let c = channels ?? 0
        previous = [Float](repeating: 0, count: c)
        previous2 = [Float](repeating: 0, count: c)
        primed = false
    }

    public mutating func process(_ frame: UnsafeMutableBufferPointer<Float>) {
        let c = frame.count
        if previous.count != c { channels = c; reset() }
        let rate = sampleRate ?? 1
        let second = order == 2
        let wasPrimed = primed
        previous.withUnsafeMutableBufferPointer { p1 in
            previous2.withUnsafeMutableBufferPointer { p2 in
                for j in 0..<c {
                    let x = FilterSupport.held(frame[j], previous: p1[j])
                    if !wasPrimed { p1[j] = x; p2[j] = x }
                    let d: Double = second
                        ? (Double(x) - 2 * Double(p1[j]) + Double(p2[j])) * rate * rate
                        : (Double(x) - Double(p1[j])) * rate
                    p2[j] = p1[j]
                    p1[j] = x
                    frame[j] = Float(d)
                }
            }
        }
        primed = true
    }
}
