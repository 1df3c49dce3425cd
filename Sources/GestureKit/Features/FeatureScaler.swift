/// Per-feature scaling fitted on the training features: z-score (`(x - mean) / std`) or min-max
/// (`(x - min) / (max - min)`); a feature constant in training gets scale 1.
///
/// JSON: `{"kind": "scale", "method": "zscore"}`. Keys: `method` (`"zscore"` default, `"minmax"`);
/// learned by `fit` and absent until then: `offsets`, `scales` (PackedFloats, one per feature).
/// Non-finite training values are ignored by `fit`; non-finite inputs stay non-finite.
/// - Complexity: `fit` O(n d); `transform` O(d), no allocation.
public struct FeatureScaler: FeatureTransform {
    public static let kind = "scale"
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

    public func validate() throws { try ScalingFit.check(offsets: offsets, scales: scales, count: nil) }

    public var inputCount: Int { offsets?.values.count ?? 0 }
    public var outputCount: Int { inputCount }

    public mutating func fit(_ features: [[Float]]) throws {
        guard let d = features.first?.count, d > 0 else {
            throw GestureKitError("no training features", field: "offsets")
        }
        if let bad = features.firstIndex(where: { $0.count != d }) {
            throw GestureKitError("vector \(bad) has \(features[bad].count) features, expected \(d)", field: "offsets")
        }
        let fitted = try ScalingFit.fit(method: method, columns: d, field: "offsets") { body in
            for v in features { v.withUnsafeBufferPointer { body($0) } }
        }
        offsets = PackedFloats(fitted.offsets)
        scales = PackedFloats(fitted.scales)
    }

    public func transform(_ input: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>) {
        guard let o = offsets?.values, let s = scales?.values else { return }
        precondition(input.count >= o.count && out.count >= o.count, "scale: buffer sizes do not match")
        o.withUnsafeBufferPointer { o in
            s.withUnsafeBufferPointer { s in
                for i in 0..<o.count { out[i] = (input[i] - o[i]) / s[i] }
            }
        }
    }
}
