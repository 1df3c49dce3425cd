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
    var parameters: ScalingParameters
    /// Z-score or min-max.
    public var method: ScalingMethod {
        get { parameters.method }
        set { parameters.method = newValue }
    }
    /// Subtracted from each channel (learned; `nil` before fitting).
    public var offsets: [Float]? { parameters.offsets?.values }
    /// Each channel is multiplied by this after the offset (learned).
    public var scales: [Float]? { parameters.scales?.values }

    /// An unfitted normaliser.
    public init(method: ScalingMethod = .zscore) { parameters = ScalingParameters(method: method) }
    public init(from decoder: Decoder) throws { parameters = try ScalingParameters(from: decoder) }
    public func encode(to encoder: Encoder) throws { try parameters.encode(to: encoder) }

    public func validate() throws { try parameters.validate() }

    public mutating func fit(_ training: [TimeSeries], channels: Int, sampleRate: Double?) throws {
        guard training.contains(where: { $0.frameCount > 0 }) else {
            throw GestureKitError("no training frames to fit the normaliser on", field: "offsets")
        }
        try parameters.fit(columns: channels) { body in
            for s in training where s.channelCount == channels {
                s.values.withUnsafeBufferPointer { all in
                    for f in 0..<s.frameCount {
                        body(UnsafeBufferPointer(rebasing: all[(f * channels)..<((f + 1) * channels)]))
                    }
                }
            }
        }
    }

    public mutating func reset() {}

    public mutating func process(_ frame: UnsafeMutableBufferPointer<Float>) {
        guard let o = offsets, let s = scales, o.count == frame.count else { return }
        o.withUnsafeBufferPointer { o in
            s.withUnsafeBufferPointer { s in
                for j in frame.indices { frame[j] = (frame[j] - o[j]) / s[j] }
            }
        }
    }
}
