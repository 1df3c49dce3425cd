/// Per-channel normaliser fitted on the training data: z-score (`(x - mean) / std`) or min-max
/// (`(x - min) / (max - min)`). A channel that is constant in training gets scale 1.
///
/// JSON: `{"kind": "normalize", "method": "zscore"}`. Keys: `method` (`"zscore"` default, or
/// `"minmax"`); learned by `fit` and absent until then: `offsets` (means or minimums) and `scales`
/// (standard deviations or ranges), PackedFloats with one value per channel.
///
/// Before fitting the stage passes frames unchanged. Non-finite inputs stay non-finite (the stage
/// is stateless); non-finite training values are ignored by `fit`.
/// - Complexity: O(channels) per frame; `fit` is O(total training values).
public struct Normalizer: Preprocessor {
    public static let kind = "normalize"
    public var method: ScalingMethod
    public private(set) var offsets: PackedFloats?
    public private(set) var scales: PackedFloats?

    public init(method: ScalingMethod = .zscore) { self.method = method }

    enum CodingKeys: String, CodingKey { case method, offsets, scales }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let m = try c.decodeIfPresent(String.self, forKey: .method) ?? ScalingMethod.zscore.rawValue
        guard let method = ScalingMethod(rawValue: m) else {
            throw GestureKitError("unknown method \"\(m)\" (known: zscore, minmax)", field: "method")
        }
        self.method = method
        offsets = try c.decodeIfPresent(PackedFloats.self, forKey: .offsets)
        scales = try c.decodeIfPresent(PackedFloats.self, forKey: .scales)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(method.rawValue, forKey: .method)
        try c.encodeIfPresent(offsets, forKey: .offsets)
        try c.encodeIfPresent(scales, forKey: .scales)
    }

    public func validate() throws {
        try ScalingFit.check(offsets: offsets, scales: scales, count: nil)
    }

    public mutating func fit(_ training: [TimeSeries], channels: Int, sampleRate: Double?) throws {
        guard training.contains(where: { $0.frameCount > 0 }) else {
            throw GestureKitError("no training frames to fit the normaliser on", field: "offsets")
        }
        let fitted = try ScalingFit.fit(method: method, columns: channels, field: "offsets") { body in
            for s in training where s.channelCount == channels {
                s.values.withUnsafeBufferPointer { all in
                    for f in 0..<s.frameCount {
                        body(UnsafeBufferPointer(rebasing: all[(f * channels)..<((f + 1) * channels)]))
                    }
                }
            }
        }
        offsets = PackedFloats(fitted.offsets)
        scales = PackedFloats(fitted.scales)
    }

    public mutating func reset() {}

    public mutating func process(_ frame: UnsafeMutableBufferPointer<Float>) {
        guard let o = offsets?.values, let s = scales?.values, o.count == frame.count else { return }
        o.withUnsafeBufferPointer { o in
            s.withUnsafeBufferPointer { s in
                for j in frame.indices { frame[j] = (frame[j] - o[j]) / s[j] }
            }
        }
    }
}
