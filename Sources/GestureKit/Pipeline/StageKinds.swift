import Foundation

/// The closed set of stage types a pipeline file may name, looked up by their `kind`.
/// A new stage type is added here once; there is no registry to mutate at run time.
enum StageKinds {
    static let preprocessors: [any Preprocessor.Type] = [
        MovingAverage.self, LowPass.self, HighPass.self, MedianFilter.self, Derivative.self, DeadZone.self,
        SavitzkyGolay.self, Normalizer.self,
    ]
    static let featureExtractors: [any FeatureExtractor.Type] = [TimeDomainFeatures.self, FFTFeatures.self, MovementIndex.self, MiniRocket.self, GravityFeatures.self]
    static let featureTransforms: [any FeatureTransform.Type] = [PCA.self, FeatureScaler.self]
    /// Sequence and vector classifiers; also the order of `--classifier` names in help texts.
    static let classifiers: [any Classifier.Type] = [DTWClassifier.self, KNNClassifier.self, MinimumDistance.self, LSTMClassifier.self, RidgeClassifier.self]
    static let postprocessors: [any Postprocessor.Type] = [LabelFilter.self, ChangeFilter.self, TimeoutFilter.self, ConfidenceThreshold.self, HMMFilter.self, OnsetFilter.self, TransitionFilter.self, PostureFilter.self]
}

/// A JSON key by name: a stage's `"kind"`, or any key of an object whose unknown keys are refused.
struct StringKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
    static let kind = StringKey(stringValue: "kind")
}

/// Encodes a stage as its own keyed fields plus `"kind"`.
func encodeStage(_ stage: any Stage, to encoder: Encoder) throws {
    try stage.encode(to: encoder)
    var c = encoder.container(keyedBy: StringKey.self)
    try c.encode(type(of: stage).kind, forKey: .kind)
}

/// Decodes a stage whose `"kind"` names one of `types`, and validates it.
func decodeStage<T>(_ types: [T], role: String, from decoder: Decoder) throws -> any Stage {
    let c = try decoder.container(keyedBy: StringKey.self)
    let kind = try c.decode(String.self, forKey: .kind)
    for t in types {
        guard let s = t as? any Stage.Type, s.kind == kind else { continue }
        do {
            let read = KeyLog()
            let stage = try s.init(from: RecordingDecoder(inner: decoder, log: read))
            try stage.validate()
            if let unknown = c.allKeys.map(\.stringValue).first(where: { $0 != "kind" && !read.keys.contains($0) }) {
                throw GestureKitError("unknown key \"\(unknown)\" for \(kind) (keys: \(read.keys.sorted().joined(separator: ", ")))", field: unknown)
            }
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

/// The keys a stage looked at while decoding. A key in the input it never asked for is most likely
/// a typo in a hand-written spec, which must not be silently ignored; an explicit `null` for an
/// optional key it asked for is fine.
private final class KeyLog: @unchecked Sendable {
    var keys: Set<String> = []
}

/// A decoder that records the keys asked for at its top level and forwards everything.
private struct RecordingDecoder: Decoder {
    let inner: Decoder
    let log: KeyLog
    var codingPath: [CodingKey] { inner.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { inner.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RecordingContainer(inner: try inner.container(keyedBy: type), log: log))
    }
    func unkeyedContainer() throws -> UnkeyedDecodingContainer { try inner.unkeyedContainer() }
    func singleValueContainer() throws -> SingleValueDecodingContainer { try inner.singleValueContainer() }
}

private struct RecordingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let inner: KeyedDecodingContainer<Key>
    let log: KeyLog
    var codingPath: [CodingKey] { inner.codingPath }
    var allKeys: [Key] { inner.allKeys }

    private func saw(_ key: Key) { log.keys.insert(key.stringValue) }

    func contains(_ key: Key) -> Bool { saw(key); return inner.contains(key) }
    func decodeNil(forKey key: Key) throws -> Bool { saw(key); return try inner.decodeNil(forKey: key) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { saw(key); return try inner.decode(type, forKey: key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { saw(key); return try inner.decode(type, forKey: key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { saw(key); return try inner.decode(type, forKey: key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { saw(key); return try inner.decode(type, forKey: key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { saw(key); return try inner.decode(type, forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { saw(key); return try inner.decode(type, forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { saw(key); return try inner.decode(type, forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { saw(key); return try inner.decode(type, forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { saw(key); return try inner.decode(type, forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { saw(key); return try inner.decode(type, forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { saw(key); return try inner.decode(type, forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { saw(key); return try inner.decode(type, forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { saw(key); return try inner.decode(type, forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { saw(key); return try inner.decode(type, forKey: key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { saw(key); return try inner.decode(type, forKey: key) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        saw(key)
        return try inner.decodeIfPresent(type, forKey: key)
    }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        saw(key)
        return try inner.nestedContainer(keyedBy: type, forKey: key)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer {
        saw(key)
        return try inner.nestedUnkeyedContainer(forKey: key)
    }
    func superDecoder() throws -> Decoder { try inner.superDecoder() }
    func superDecoder(forKey key: Key) throws -> Decoder { saw(key); return try inner.superDecoder(forKey: key) }
}
