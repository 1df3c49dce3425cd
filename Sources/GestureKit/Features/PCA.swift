/// Principal component analysis of feature vectors: projects onto the top eigenvectors of the
/// training covariance (LAPACK `ssyevd` through `Linalg.symmetricEigen`).
///
/// `y = B (x - mean)`, with B's rows the unit principal axes, largest variance first. Each axis's
/// sign is fixed so that its largest-magnitude entry is positive (eigenvectors are only defined up
/// to sign; this makes training deterministic across LAPACK builds).
///
/// JSON: `{"kind": "pca", "components": 3}` or `{"kind": "pca", "varianceFraction": 0.9}`. Keys:
/// `components` (keep exactly this many) or `varianceFraction` (keep the fewest components whose
/// eigenvalues sum to at least this fraction of the total; default 0.95 when neither is given);
/// learned by `fit` and absent until then: `inputCount`, `mean` (inputCount values), `basis`
/// (components x inputCount, row-major), `explainedVariance` (eigenvalue of each kept component).
/// - Complexity: `fit` O(n d^2 + d^3) for n vectors of d features; `transform` O(k d), no allocation.
public struct PCA: FeatureTransform {
    public static let kind = "pca"
    /// Components to keep, when fixed.
    public var components: Int?
    /// Keep the fewest components explaining this fraction of the variance.
    public var varianceFraction: Double?
    /// The training mean (learned).
    public private(set) var mean: [Float]?
    /// The principal axes, row-major (components x inputs; learned).
    public private(set) var basis: [Float]?
    /// Variance along each kept axis (learned).
    public private(set) var explainedVariance: [Float]?
    private var fittedInputs: Int?

    /// An unfitted PCA keeping `components`, or enough for `varianceFraction` (0.95 when neither is given).
    public init(components: Int? = nil, varianceFraction: Double? = nil) {
        self.components = components
        self.varianceFraction = varianceFraction
    }

    enum CodingKeys: String, CodingKey { case components, varianceFraction, inputCount, mean, basis, explainedVariance }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        components = try c.decodeIfPresent(Int.self, forKey: .components)
        varianceFraction = try c.decodeIfPresent(Double.self, forKey: .varianceFraction)
        fittedInputs = try c.decodeIfPresent(Int.self, forKey: .inputCount)
        mean = try c.decodeIfPresent(PackedFloats.self, forKey: .mean)?.values
        basis = try c.decodeIfPresent(PackedFloats.self, forKey: .basis)?.values
        explainedVariance = try c.decodeIfPresent(PackedFloats.self, forKey: .explainedVariance)?.values
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(components, forKey: .components)
        try c.encodeIfPresent(varianceFraction, forKey: .varianceFraction)
        try c.encodeIfPresent(fittedInputs, forKey: .inputCount)
        try c.encodeIfPresent(mean.map(PackedFloats.init), forKey: .mean)
        try c.encodeIfPresent(basis.map(PackedFloats.init), forKey: .basis)
        try c.encodeIfPresent(explainedVariance.map(PackedFloats.init), forKey: .explainedVariance)
    }

    public func validate() throws {
        try validateConfiguration()
        try validateFit()
    }

    private func validateConfiguration() throws {
        if let k = components, k < 1 { throw GestureKitError("must be at least 1, found \(k)", field: "components") }
        if let f = varianceFraction, !(f > 0 && f <= 1) {
            throw GestureKitError("must be in (0, 1], found \(f)", field: "varianceFraction")
        }
        if components != nil && varianceFraction != nil {
            throw GestureKitError("give either \"components\" or \"varianceFraction\", not both", field: "varianceFraction")
        }
    }

    private func validateFit() throws {
        guard mean != nil || basis != nil || fittedInputs != nil || explainedVariance != nil else { return }
        guard let d = fittedInputs, d > 0 else { throw GestureKitError("missing or not positive", field: "inputCount") }
        guard let mean, let basis, let explainedVariance else {
            throw GestureKitError("a fitted PCA needs mean, basis and explainedVariance", field: "basis")
        }
        try PackedFloats(mean).check("mean", count: d)
        let k = explainedVariance.count
        if k < 1 || k > d { throw GestureKitError("\(k) components for \(d) inputs", field: "explainedVariance") }
        try PackedFloats(explainedVariance).check("explainedVariance")
        try PackedFloats(basis).check("basis", count: k * d)
        if let want = components, want != k {
            throw GestureKitError("components is \(want) but the basis has \(k)", field: "components")
        }
    }

    public var inputCount: Int { fittedInputs ?? 0 }
    public var outputCount: Int { explainedVariance?.count ?? 0 }

    public mutating func fit(_ features: [[Float]]) throws {
        try validateConfiguration()  // an earlier fit is replaced, whatever its shape
        guard let d = features.first?.count, d > 0 else {
            throw GestureKitError("no training features", field: "basis")
        }
        let n = features.count
        guard n >= 2 else { throw GestureKitError("PCA needs at least 2 training vectors, found \(n)", field: "basis") }
        if let bad = features.firstIndex(where: { $0.count != d }) {
            throw GestureKitError("vector \(bad) has \(features[bad].count) features, expected \(d)", field: "basis")
        }
        if let bad = features.firstIndex(where: { !$0.allSatisfy(\.isFinite) }) {
            throw GestureKitError("training vector \(bad) has a non-finite value", field: "basis")
        }
        if let k = components, k > d {
            throw GestureKitError("\(k) components asked for \(d) features", field: "components")
        }
        var mu = [Double](repeating: 0, count: d)
        for v in features { for i in 0..<d { mu[i] += Double(v[i]) } }
        for i in 0..<d { mu[i] /= Double(n) }
        // Centred data, row-major n x d == column-major d x n, so cov = X X^T / (n - 1) is one gemm.
        var centred = [Float](repeating: 0, count: n * d)
        for (r, v) in features.enumerated() { for i in 0..<d { centred[r * d + i] = Float(Double(v[i]) - mu[i]) } }
        var cov = Matrix(rows: d, columns: d)
        centred.withUnsafeBufferPointer { x in
            cov.values.withUnsafeMutableBufferPointer { cv in
                Linalg.gemm(transposeB: .transpose, m: d, n: d, k: n, alpha: 1 / Float(n - 1),
                            a: x.baseAddress!, lda: d, b: x.baseAddress!, ldb: d, c: cv.baseAddress!, ldc: d)
            }
        }
        let eig: (values: [Float], vectors: Matrix)
        do { eig = try Linalg.symmetricEigen(cov) } catch {
            throw GestureKitError("eigen-decomposition failed: \(error)", field: "basis")
        }
        // LAPACK gives ascending order; take from the top and clamp round-off negatives.
        let order = Array((0..<d).reversed())
        let lambda = order.map { max(eig.values[$0], 0) }
        var k = components ?? d
        if components == nil {
            let fraction = varianceFraction ?? 0.95
            let total = lambda.reduce(0.0) { $0 + Double($1) }
            k = 1
            var acc = Double(lambda[0])
            while k < d && acc < fraction * total { acc += Double(lambda[k]); k += 1 }
        }
        var b = [Float](repeating: 0, count: k * d)
        for r in 0..<k {
            let col = order[r]
            var biggest: Float = 0
            for i in 0..<d where abs(eig.vectors[i, col]) > abs(biggest) { biggest = eig.vectors[i, col] }
            let sign: Float = biggest < 0 ? -1 : 1
            for i in 0..<d { b[r * d + i] = sign * eig.vectors[i, col] }
        }
        fittedInputs = d
        mean = mu.map { Float($0) }
        basis = b
        explainedVariance = Array(lambda[0..<k])
    }

    public func transform(_ input: UnsafeBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>) {
        guard let mean, let basis else { return }
        let d = mean.count, k = outputCount
        precondition(input.count >= d && out.count >= k, "pca: buffer sizes do not match")
        mean.withUnsafeBufferPointer { mu in
            basis.withUnsafeBufferPointer { b in
                for r in 0..<k {
                    var acc: Float = 0
                    for i in 0..<d { acc += b[r * d + i] * (input[i] - mu[i]) }
                    out[r] = acc
                }
            }
        }
    }
}
