/// Dead zone per channel, GRT style: values inside `(lower, upper)` become 0, values outside are
/// shifted towards 0 by the limit they crossed (`x - upper` above, `x - lower` below), so the output
/// is continuous.
///
/// JSON: `{"kind": "deadZone", "lower": -0.1, "upper": 0.1}`. Keys: `lower` (default -0.1), `upper`
/// (default 0.1); `lower <= upper`. Stateless: a non-finite input is passed through unchanged.
/// - Complexity: O(channels) per frame.
public struct DeadZone: Preprocessor {
    public static let kind = "deadZone"
    /// Lower limit of the zone.
    public var lower: Float
    /// Upper limit of the zone.
    public var upper: Float

    /// A dead zone over (`lower`, `upper`).
    public init(lower: Float = -0.1, upper: Float = 0.1) {
        self.lower = lower
        self.upper = upper
    }

    enum CodingKeys: String, CodingKey { case lower, upper }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        lower = try c.decodeIfPresent(Float.self, forKey: .lower) ?? -0.1
        upper = try c.decodeIfPresent(Float.self, forKey: .upper) ?? 0.1
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(lower, forKey: .lower)
        try c.encode(upper, forKey: .upper)
    }

    public func validate() throws {
        guard lower.isFinite else { throw GestureKitError("must be finite", field: "lower") }
        guard upper.isFinite else { throw GestureKitError("must be finite", field: "upper") }
        if lower > upper { throw GestureKitError("lower \(lower) is above upper \(upper)", field: "lower") }
    }

    public mutating func fit(_ training: [TimeSeries], channels: Int, sampleRate: Double?) throws {
        try validate()
    }

    public mutating func reset() {}

    public mutating func process(_ frame: UnsafeMutableBufferPointer<Float>) {
        for j in frame.indices {
            let x = frame[j]
            if x >= upper { frame[j] = x - upper }
            else if x <= lower { frame[j] = x - lower }
            else if x.isFinite { frame[j] = 0 }
        }
    }
}
