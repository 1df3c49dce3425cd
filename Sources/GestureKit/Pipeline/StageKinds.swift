import Foundation

/// The closed set of stage types a pipeline file may name, looked up by their `kind`.
/// A new stage type is added here once; there is no registry to mutate at run time.
enum StageKinds {
    static let preprocessors: [any Preprocessor.Type] = [
        MovingAverage.self, LowPass.self, HighPass.self, MedianFilter.self, Derivative.self, DeadZone.self,
        SavitzkyGolay.self, Normalizer.self,
    ]
    static let featureExtractors: [any FeatureExtractor.Type] = [TimeDomainFeatures.self, FFTFeatures.self, MovementIndex.self]
    static let featureTransforms: [any FeatureTransform.Type] = [PCA.self, FeatureScaler.self]
    static let sequenceClassifiers: [any SequenceClassifier.Type] = [DTWClassifier.self, LSTMClassifier.self]
    static let vectorClassifiers: [any VectorClassifier.Type] = [KNNClassifier.self, MinimumDistance.self]
    static let postprocessors: [any Postprocessor.Type] = [LabelFilter.self, ChangeFilter.self, TimeoutFilter.self, ConfidenceThreshold.self, HMMFilter.self]
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
        do {
            let stage = try s.init(from: decoder)
            try stage.validate()
            try rejectUnknownKeys(c.allKeys.map(\.stringValue), of: stage)
            return stage
        } catch var e as GestureKitError {
            let at = codingPathString(decoder.codingPath)
            e.field = [at, e.field].compactMap { $0 }.joined(separator: ".")
            throw e
        }
    }
    let known = types.compactMap { ($0 as? any Stage.Type)?.kind }.joined(separator: ", ")
    throw GestureKitError("unknown \(role) kind \"\(kind)\" (known: \(known))", field: "kind")
}

/// `a.b[2].c` for a coding path, or nil when empty.
func codingPathString(_ path: [CodingKey]) -> String? {
    var s = ""
    for k in path {
        if let i = k.intValue { s += "[\(i)]" } else { s += s.isEmpty ? k.stringValue : "." + k.stringValue }
    }
    return s.isEmpty ? nil : s
}

/// A key the stage does not write back is a key it did not read: most likely a typo in a
/// hand-written spec, which must not be silently ignored.
private func rejectUnknownKeys(_ keys: [String], of stage: any Stage) throws {
    let encoder = JSONEncoder()
    let data = try encoder.encode(StageBox(stage: stage))
    let known = Set(((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?.keys.map { $0 } ?? [])
    if let unknown = keys.first(where: { $0 != "kind" && !known.contains($0) }) {
        throw GestureKitError("unknown key \"\(unknown)\" for \(type(of: stage).kind) (keys: \(known.sorted().joined(separator: ", ")))", field: unknown)
    }
}

private struct StageBox: Encodable {
    let stage: any Stage
    func encode(to encoder: Encoder) throws { try stage.encode(to: encoder) }
}
