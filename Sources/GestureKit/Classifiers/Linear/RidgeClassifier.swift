import Foundation

/// One-vs-rest ridge regression on standardised feature vectors (kind `ridge`), with its
/// regularisation chosen by exact leave-one-out cross-validation and calibrated probabilities:
/// the classifier MiniRocket is paired with (as scikit-learn's `RidgeClassifierCV`).
///
/// Training standardises each feature (mean 0, population standard deviation 1; constant features
/// keep scale 1), regresses targets +1 (the class) / -1 (the others) with an unpenalised intercept,
/// and keeps the `alphas` value with the least summed squared held-out error. Held out how is
/// `selection`: `leaveOneOut` (every alpha from one eigen-decomposition, see `RidgeSolver`) or
/// `groups`: `folds` folds of whole groups (users, else sessions, from the training context), which
/// is what counts when the vectors are overlapping windows of recordings, where leaving one window
/// out leaves its near copies in. `auto` (the default) is `groups` when the training data names at
/// least three groups, else `leaveOneOut`. A softmax over decision values divided by a temperature
/// gives the class probabilities; the temperature minimises the log loss of the held-out decision
/// values, so confidences say how often held-out predictions were right and a confidence threshold
/// or null rejection works live.
///
/// JSON: `{"kind": "ridge", "alphas": [0.001, ..., 1000], "selection": "auto", "folds": 5}`
/// (default alphas: 10 values spaced evenly in log between 1e-3 and 1e3). Learned, under
/// `trained`: `classes`, `dimensions`, `means`, `scales`, `weights` (dimension-major per class,
/// PackedFloats), `intercepts`, `alpha`, `temperature`, `chosenBy` (how alpha was chosen).
///
/// ```swift
/// var ridge = RidgeClassifier()
/// try ridge.train(vectors, labels: labels, classes: names)
/// let p = ridge.predict(x)   // p.scores are probabilities
/// ```
/// - Complexity: training O(n^2 p + min(n, p)^3 + alphas * n * min(n, p) * classes) for n vectors of p
///   features, in Double through BLAS/LAPACK; prediction O(p * classes).
public struct RidgeClassifier: VectorClassifier {
    public static let kind = "ridge"
    /// Largest min(vectors, features) trained (a 8000-square Double eigen-decomposition: 0.5 GB).
    public static let maxDecomposition = 8000
    /// Ten regularisation strengths, log-spaced from 1e-3 to 1e3.
    public static let defaultAlphas: [Double] = (0..<10).map { pow(10, -3 + 6 * Double($0) / 9) }

    /// Candidate regularisations.
    public var alphas: [Double]
    /// How the regularisation is chosen among `alphas`.
    public var selection: AlphaSelection
    /// Folds of groups when `selection` holds out groups (at most one per group).
    public var folds: Int
    package internal(set) var model: Model?

    package struct Model: Sendable, Hashable {
        public var classes: [String]
        public var dimensions: Int
        public var means: [Float]
        public var scales: [Float]
        /// Class c's weights at `c * dimensions ..< (c + 1) * dimensions`.
        public var weights: [Float]
        public var intercepts: [Float]
        public var alpha: Double
        public var temperature: Float
        /// How `alpha` was chosen, e.g. "leave-one-out" or "5 folds of groups".
        public var chosenBy: String
    }

    /// How the regularisation is chosen.
    public enum AlphaSelection: String, Codable, Sendable, Hashable, CaseIterable {
        /// Folds of groups when the training data names at least three, else leave-one-out.
        case auto
        /// Exact leave-one-out: each vector held out alone.
        case leaveOneOut
        /// Folds of whole groups (users, else sessions); training without groups is an error.
        case groups
    }

    /// A ridge classifier choosing its regularisation among `alphas` by `selection`.
    public init(alphas: [Double] = RidgeClassifier.defaultAlphas, selection: AlphaSelection = .auto, folds: Int = 5) {
        self.alphas = alphas
        self.selection = selection
        self.folds = folds
    }

    /// Classes of the trained model (0 before training).
    public var classCount: Int { model?.classes.count ?? 0 }

    public var summary: [String: String] {
        var s = ["alphas": alphas.map { String(format: "%g", $0) }.joined(separator: ", ")]
        if let m = model {
            s["alpha"] = String(format: "%g", m.alpha) + " (\(m.chosenBy))"
            s["temperature"] = "\(m.temperature)"
            s["training"] = "\(m.dimensions) features, \(m.classes.count) classes"
        }
        return s
    }

    // MARK: training

    public mutating func train(_ vectors: [[Float]], labels: [Int], classes: [String]) throws {
        try train(vectors, labels: labels, classes: classes, context: TrainingContext())
    }

    public mutating func train(_ vectors: [[Float]], labels: [Int], classes: [String], context: TrainingContext) throws {
        try validate()
        guard !vectors.isEmpty else { throw GestureKitError("no training vectors", field: "vectors") }
        guard vectors.count == labels.count else {
            throw GestureKitError("\(vectors.count) vectors but \(labels.count) labels", field: "labels")
        }
        guard !classes.isEmpty else { throw GestureKitError("no classes", field: "classes") }
        let p = vectors[0].count, n = vectors.count, k = classes.count
        guard p > 0 else { throw GestureKitError("vectors are empty", field: "vectors") }
        for (i, v) in vectors.enumerated() {
            guard v.count == p else { throw GestureKitError("vector \(i) has \(v.count) values, expected \(p)", field: "vectors") }
            guard v.allSatisfy(\.isFinite) else { throw GestureKitError("vector \(i) has non-finite values", field: "vectors") }
            guard classes.indices.contains(labels[i]) else {
                throw GestureKitError("label \(labels[i]) of vector \(i) is not a class index", field: "labels")
            }
        }
        // The decomposition is min(n, p) squared in Double and cubed in time: refuse what would take
        // gigabytes and many minutes rather than appear to hang.
        if min(n, p) > Self.maxDecomposition {
            throw GestureKitError("\(n) training vectors of \(p) features: ridge decomposes a \(min(n, p))-square matrix; use at most \(Self.maxDecomposition) vectors or features (a larger hop, fewer features)", field: "classifier")
        }
        let (means, scales) = Self.standardisation(vectors)
        // The design is standardised in Float exactly as `predict` does, then widened.
        var z = [Double](repeating: 0, count: n * p)
        for i in 0..<n { for j in 0..<p { z[i * p + j] = Double((vectors[i][j] - means[j]) / scales[j]) } }
        var y = [Double](repeating: -1, count: n * k)
        for i in 0..<n { y[i * k + labels[i]] = 1 }
        let groupFolds = try heldOutGroups(context.groups, count: n)
        try context.checkCancellation()
        let heldOut: [[Double]]
        if let (fold, count) = groupFolds {
            heldOut = try RidgeSolver.foldDecisions(design: z, rows: n, columns: p, targets: y, outputs: k,
                                                    fold: fold, folds: count, alphas: alphas)
        } else {
            heldOut = []
        }
        try context.checkCancellation()
        let solver = try RidgeSolver(design: z, rows: n, columns: p, targets: y, outputs: k)
        let candidates = alphas
        func decisions(_ a: Int) -> [Double] { groupFolds == nil ? solver.looDecisions(alpha: candidates[a]) : heldOut[a] }
        let errors = alphas.indices.map { RidgeSolver.squaredError(decisions($0), y) }
        let best = errors.indices.min { errors[$0] < errors[$1] }!
        let alpha = alphas[best]
        let (w, b) = solver.coefficients(alpha: alpha)
        let temperature = Self.fitTemperature(decisions(best), labels: labels, classes: k)
        model = Model(classes: classes, dimensions: p, means: means, scales: scales, weights: w.map { Float($0) },
                      intercepts: b.map { Float($0) }, alpha: alpha, temperature: Float(temperature),
                      chosenBy: groupFolds.map { "\($0.count) folds of groups" } ?? "leave-one-out")
    }

    /// The fold of each vector when `selection` holds out groups, dealing the groups (in order of
    /// first appearance) round-robin into at most `folds` folds; nil for leave-one-out.
    func heldOutGroups(_ groups: [String?], count n: Int) throws -> (fold: [Int], count: Int)? {
        if selection == .leaveOneOut { return nil }
        var index: [String: Int] = [:]
        var ids = [Int](repeating: -1, count: n)
        if groups.count == n {
            for (i, g) in groups.enumerated() {
                guard let g else { continue }
                if index[g] == nil { index[g] = index.count }
                ids[i] = index[g]!
            }
        }
        // Vectors without a group form one group of their own.
        if ids.contains(-1) { let none = index.count; index["\u{0}none"] = none; ids = ids.map { $0 < 0 ? none : $0 } }
        let distinct = groups.count == n && groups.contains { $0 != nil } ? index.count : 0
        switch selection {
        case .groups where distinct < 2:
            throw GestureKitError("ridge selection \"groups\" needs training data from at least two users or sessions (found \(distinct))",
                                  field: "selection")
        case .auto where distinct < 3: return nil
        default: break
        }
        let count = min(folds, distinct)
        return (ids.map { $0 % count }, count)
    }

    /// Per-feature means and population standard deviations (1 where a feature is constant).
    static func standardisation(_ vectors: [[Float]]) -> (means: [Float], scales: [Float]) {
        let p = vectors[0].count, n = Double(vectors.count)
        var sum = [Double](repeating: 0, count: p), sq = [Double](repeating: 0, count: p)
        for v in vectors { for j in 0..<p { sum[j] += Double(v[j]) } }
        let mean = sum.map { $0 / n }
        for v in vectors { for j in 0..<p { let d = Double(v[j]) - mean[j]; sq[j] += d * d } }
        let scales = sq.map { s -> Float in
            let sd = Float((s / n).squareRoot())
            return sd > 0 && sd.isFinite ? sd : 1
        }
        return (mean.map { Float($0) }, scales)
    }

    /// The temperature T minimising the log loss of softmax(decisions / T) on the true labels
    /// (golden-section search over log T in [-7, 7]).
    static func fitTemperature(_ d: [Double], labels: [Int], classes k: Int) -> Double {
        func loss(_ logT: Double) -> Double {
            let t = exp(logT)
            var total = 0.0
            for (i, label) in labels.enumerated() {
                let row = (0..<k).map { d[i * k + $0] / t }
                let top = row.max()!
                let lse = top + log(row.reduce(0) { $0 + exp($1 - top) })
                total += lse - row[label]
            }
            return total
        }
        var lo = -7.0, hi = 7.0
        let g = (5.0.squareRoot() - 1) / 2
        var a = hi - g * (hi - lo), b = lo + g * (hi - lo)
        var fa = loss(a), fb = loss(b)
        for _ in 0..<80 {
            if fa <= fb { hi = b; b = a; fb = fa; a = hi - g * (hi - lo); fa = loss(a) } else { lo = a; a = b; fa = fb; b = lo + g * (hi - lo); fb = loss(b) }
        }
        return exp((lo + hi) / 2)
    }

    // MARK: prediction

    /// Decision values (one per class) of a raw feature vector.
    /// - Complexity: O(dimensions * classes).
    public func decisions(_ x: [Float]) -> [Float] {
        x.withUnsafeBufferPointer { decisions($0) }
    }

    /// The buffer form of ``decisions(_:)``, what ``predict(_:)`` calls.
    package func decisions(_ x: UnsafeBufferPointer<Float>) -> [Float] {
        guard let m = model else { return [] }
        precondition(x.count >= m.dimensions, "ridge: vector has \(x.count) values, expected \(m.dimensions)")
        let p = m.dimensions, k = m.classes.count
        var out = m.intercepts
        withUnsafeTemporaryAllocation(of: Float.self, capacity: p) { z in
            m.means.withUnsafeBufferPointer { mean in
                m.scales.withUnsafeBufferPointer { scale in
                    for j in 0..<p { z[j] = (x[j] - mean[j]) / scale[j] }
                }
            }
            m.weights.withUnsafeBufferPointer { w in
                out.withUnsafeMutableBufferPointer { o in
                    Linalg.gemv(transpose: .transpose, m: p, n: k, a: w.baseAddress!, lda: p, x: UnsafePointer(z.baseAddress!),
                                beta: 1, y: o.baseAddress!)
                }
            }
        }
        return out
    }

    public func predict(_ vector: UnsafeBufferPointer<Float>) -> Prediction {
        guard let m = model else { return .null(classCount: 0) }
        let d = decisions(vector)
        guard d.allSatisfy(\.isFinite) else { return .null(classCount: m.classes.count) }
        let t = Double(m.temperature)
        let top = Double(d.max()!)
        let e = d.map { exp((Double($0) - top) / t) }
        let total = e.reduce(0, +)
        let probs = e.map { Float($0 / total) }
        let best = d.indices.max { d[$0] < d[$1] }!
        return Prediction(classIndex: best, confidence: probs[best], scores: probs)
    }
}
