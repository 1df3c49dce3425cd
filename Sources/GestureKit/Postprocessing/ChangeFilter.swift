/// Reports a class only when the raw prediction changes to it, otherwise null (GRT's
/// ClassLabelChangeFilter): the stream A A A B B A gives A - - B - A.
///
/// "Change" is against the previous raw prediction, null included, so A, null, A reports A twice —
/// a gesture repeated after a pause is two events. The first non-null prediction after `reset()` is
/// reported.
///
/// JSON: `{"kind": "changeFilter"}`. No keys.
/// - Complexity: O(1) per prediction.
public struct ChangeFilter: Postprocessor {
    public static let kind = "changeFilter"
    public var reportsOnce: Bool { true }
    private var previous: Int?

    /// A change filter that has seen nothing yet.
    public init() {}

    public init(from decoder: Decoder) throws {}
    public func encode(to encoder: Encoder) throws {
        _ = encoder.container(keyedBy: KeyPlaceholder.self)  // an object, so "kind" can be added
    }
    private enum KeyPlaceholder: CodingKey {}

    public mutating func reset() { previous = nil }

    public mutating func process(_ prediction: Prediction, frame: Int) -> Prediction {
        let label = prediction.classIndex
        defer { previous = label }
        return label != nil && label != previous ? prediction : prediction.suppressed
    }
}
