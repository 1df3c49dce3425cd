/// Per-feature scaling fitted on the training features: z-score (`(x - mean) / std`) or min-max
/// (`(x - min) / (max - min)`); a feature constant in training gets scale 1.
///
/// JSON: `{"kind": "scale", "method": "zscore"}`. Keys: `method` (`"zscore"` default, `"minmax"`);
/// learned by `fit` and absent until then: `offsets`, `scales` (PackedFloats, one per feature).
/// Non-finite training values are ignored by `fit`; non-finite inputs stay non-finite.
/// - Complexity: `fit` O(n d); `transform` O(d), no allocation.
public struct FeatureScaler: FeatureTransform {
    public static let kind = "scale"
    var parameters: ScalingParameters
    /// Z-score or min-max.
    public var method: ScalingMethod {
        get { parameters.method }
        set { parameters.method = newValue }
    }
    /// Subtracted from each feature (learned; `nil` before fitting).
    public var offsets: [Float]? { parameters.offsets?.values }
    /// Each feature is multiplied by this after the offset (learned).
    public var scales: [Float]? { parameters.scales?.values }

    /// An unfitted scaler.
    public init(method: ScalingMethod = .zscore) { parameters = ScalingParameters(method: method) }
    public init(from decoder: Decoder) throws { parameters = try ScalingParameters(from: decoder) }
    public func encode(to encoder: Encoder) throws { try parameters.encode(to: encoder) }

    public func validate() throws { try parameters.validate() }

    public var inputCount: Int { offsets?.count ?? 0 }
    public var outputCount: Int { inputCount }

    public mutating func fit(_ features: [[Float]]) throws {
        guard let d = features.first?.count, d > 0 else {
            throw GestureKitError("no training features", field: "offsets")
        }
        if let bad = features.firstIndex(where: { $0.count != d }) {
            throw GestureKitError("vector \(bad) has \(features[bad].count) features, expected \(d)", field: "offsets")
        }
        try parameters.fit(columns: d) { body in
            for v in features { v.withUnsafeBufferPointer { body($0) } }
        }
    }

    public func transform(_ input: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>) {
        guard let o = offsets, let s = scales else { return }
        precondition(input.count >= o.count && out.count >= o.count, "scale: buffer sizes do not match")
        o.withUnsafeBufferPointer { o in
            s.withUnsafeBufferPointer { s in
                for i in 0..<o.count { out[i] = (input[i] - o[i]) / s[i] }
            }
        }
    }
}
