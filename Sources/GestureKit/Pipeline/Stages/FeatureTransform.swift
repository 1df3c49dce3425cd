/// A learned map from feature vectors to feature vectors (PCA, feature scaling).
public protocol FeatureTransform: Stage {
    /// Learns the map from training feature vectors.
    mutating func fit(_ features: [[Float]]) throws
    /// Length of the input vectors (0 before fitting).
    var inputCount: Int { get }
    /// Length of the output vectors (0 before fitting).
    var outputCount: Int { get }
    /// Writes the transform of `input` (``inputCount`` values) to `out` (``outputCount`` values), in
    /// buffers: what the pipeline calls. From an app, call `transform(_:into:)` with arrays, or
    /// ``transform(_:)``.
    func transform(_ input: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>)
}

extension FeatureTransform {
    /// The transform of `input`, in a new array.
    public func transform(_ input: [Float]) -> [Float] {
        var out = [Float](repeating: 0, count: outputCount)
        input.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { transform(i, into: $0) } }
        return out
    }

    /// Writes the transform of `input` (``inputCount`` values) to `out` (``outputCount`` values),
    /// without allocating.
    public func transform(_ input: [Float], into out: inout [Float]) {
        precondition(input.count == inputCount && out.count == outputCount,
                     "transform: \(input.count) in, \(out.count) out, expected \(inputCount) and \(outputCount)")
        input.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { transform(i, into: $0) } }
    }
}
