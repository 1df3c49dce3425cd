/// Reports null when the prediction's confidence is below `threshold` (a NaN confidence counts as
/// below).
///
/// JSON: `{"kind": "confidenceThreshold", "threshold": 0.6}`. Keys: `threshold` (default 0.5, in [0, 1]).
/// - Complexity: O(1) per prediction.
public struct ConfidenceThreshold: Postprocessor {
    public static let kind = "confidenceThreshold"
    /// Decisions less confident than this become null.
    public var threshold: Float

    /// A threshold at `threshold`.
    public init(threshold: Float = 0.5) { self.threshold = threshold }

    enum CodingKeys: String, CodingKey { case threshold }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        threshold = try c.decodeIfPresent(Float.self, forKey: .threshold) ?? 0.5
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(threshold, forKey: .threshold)
    }

    public func validate() throws {
        if !(threshold >= 0 && threshold <= 1) {
            throw GestureKitError("must be in [0, 1], found \(threshold)", field: "threshold")
        }
    }

    public mutating func reset() {}

    public mutating func process(_ prediction: Prediction, frame: Int) -> Prediction {
        prediction.confidence >= threshold ? prediction : prediction.suppressed
    }
}
