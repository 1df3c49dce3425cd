/// The closed set of stage types a pipeline file may name, looked up by their `kind`.
/// A new stage type is added here once; there is no registry to mutate at run time.
enum StageKinds {
    static let preprocessors: [any Preprocessor.Type] = []
    static let featureExtractors: [any FeatureExtractor.Type] = []
    static let featureTransforms: [any FeatureTransform.Type] = []
    static let sequenceClassifiers: [any SequenceClassifier.Type] = [LSTMClassifier.self]
    static let vectorClassifiers: [any VectorClassifier.Type] = []
    static let postprocessors: [any Postprocessor.Type] = []
}

private struct KindKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
    static let kind = KindKey(stringValue: "kind")
}

/// Encodes a stage as its own keyed fields plus `"kind"`.
func encodeStage(_ stage: any Stage, to encoder: Encoder) throws {
    try stage.encode(to: encoder)
    var c = encoder.container(keyedBy: KindKey.self)
    try c.encode(type(of: stage).kind, forKey: .kind)
}

/// Decodes a stage whose `"kind"` names one of `types`, and validates it.
func decodeStage<T>(_ types: [T], role: String, from decoder: Decoder) throws -> any Stage {
    let c = try decoder.container(keyedBy: KindKey.self)
    let kind = try c.decode(String.self, forKey: .kind)
    for t in types {
        guard let s = t as? any Stage.Type, s.kind == kind else { continue }
        let stage = try s.init(from: decoder)
        try stage.validate()
        return stage
    }
    let known = types.compactMap { ($0 as? any Stage.Type)?.kind }.joined(separator: ", ")
    throw GestureKitError("unknown \(role) kind \"\(kind)\" (known: \(known))", field: "kind")
}
