/// Minimum-distance (nearest class centroid) classifier of feature vectors, with per-class null
/// rejection.
///
/// Training stores each class's mean vector. Prediction takes the Euclidean distance `d_c` to every
/// centroid and picks the nearest. Null rejection (``NullRejection``, GRT style) learns, per class,
/// the mean and standard deviation of its training vectors' distances to their own centroid
/// (in-sample); a match farther than `mean + k * std` is rejected as null.
///
/// Scores and confidence: `score_c = (1 / d_c) / sum_j (1 / d_j)` (inverse distances normalised to
/// sum to 1; when some distances are 0 those classes share the score equally), and the confidence
/// is the best class's score, in [1/classCount, 1]. A rejected prediction has no class and
/// confidence 0 but keeps its scores and distance.
///
/// JSON: `{"kind": "centroid", "nullRejection": 3}`. Keys: `nullRejection` (default absent = no
/// rejection; can be changed after training); learned by `train` and absent until then: `classes`,
/// `dimension`, `centroids` (classCount x dimension, row-major), `distanceMeans`, `distanceStds`.
/// - Complexity: `train` O(n d); `predict` O(classCount * d) plus one score array.
public struct MinimumDistance: VectorClassifier {
    public static let kind = "centroid"
    /// The class names, in index order.
    public private(set) var classes: [String] = []
    /// Feature vector length.
    public private(set) var dimension = 0
    /// Class means, row-major (classes x dimension).
    public private(set) var centroids: [Float] = []
    /// Per-class null-rejection thresholds.
    public private(set) var rejection: NullRejection

    /// Multiplier of the standard deviation in the rejection threshold; nil switches rejection off.
    public var nullRejection: Float? {
        get { rejection.k }
        set { rejection.k = newValue }
    }

    /// A nearest-centroid classifier; `nullRejection` is the multiplier k (`nil`: off).
    public init(nullRejection: Float? = nil) {
        rejection = NullRejection(k: nullRejection, classCount: 0)
    }

    enum CodingKeys: String, CodingKey { case nullRejection, classes, dimension, centroids, distanceMeans, distanceStds }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        rejection = NullRejection(k: try c.decodeIfPresent(Float.self, forKey: .nullRejection), classCount: 0)
        classes = try c.decodeIfPresent([String].self, forKey: .classes) ?? []
        dimension = try c.decodeIfPresent(Int.self, forKey: .dimension) ?? 0
        centroids = try c.decodeIfPresent(PackedFloats.self, forKey: .centroids)?.values ?? []
        if let m = try c.decodeIfPresent(PackedFloats.self, forKey: .distanceMeans) { rejection.means = m }
        if let s = try c.decodeIfPresent(PackedFloats.self, forKey: .distanceStds) { rejection.stds = s }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(rejection.k, forKey: .nullRejection)
        guard isTrained else { return }
        try c.encode(classes, forKey: .classes)
        try c.encode(dimension, forKey: .dimension)
        try c.encode(PackedFloats(centroids), forKey: .centroids)
        try c.encode(rejection.means, forKey: .distanceMeans)
        try c.encode(rejection.stds, forKey: .distanceStds)
    }

    /// Whether the model has centroids.
    public var isTrained: Bool { !classes.isEmpty }
    /// Classes of the trained model (0 before training).
    public var classCount: Int { classes.count }

    public func validate() throws {
        if let k = rejection.k, !(k.isFinite && k >= 0) {
            throw GestureKitError("must be a non-negative number, found \(k)", field: "nullRejection")
        }
        guard isTrained || !centroids.isEmpty else { return }
        if dimension < 1 { throw GestureKitError("must be positive, found \(dimension)", field: "dimension") }
        if classes.isEmpty { throw GestureKitError("no classes", field: "classes") }
        try PackedFloats(centroids).check("centroids", count: classes.count * dimension)
        try rejection.means.check("distanceMeans", count: classes.count)
        try rejection.stds.check("distanceStds", count: classes.count)
        if rejection.stds.values.contains(where: { $0 < 0 }) {
            throw GestureKitError("a standard deviation is negative", field: "distanceStds")
        }
    }

    public mutating func train(_ vectors: [[Float]], labels: [Int], classes: [String]) throws {
        guard let d = vectors.first?.count, d > 0 else { throw GestureKitError("no training vectors", field: "centroids") }
        guard labels.count == vectors.count else {
            throw GestureKitError("\(labels.count) labels for \(vectors.count) vectors", field: "labels")
        }
        let k = classes.count
        var sums = [Double](repeating: 0, count: k * d)
        var counts = [Int](repeating: 0, count: k)
        for (v, y) in zip(vectors, labels) {
            guard v.count == d else { throw GestureKitError("vector of \(v.count) features, expected \(d)", field: "centroids") }
            guard (0..<k).contains(y) else { throw GestureKitError("label \(y) is not a class index below \(k)", field: "labels") }
            guard v.allSatisfy(\.isFinite) else { throw GestureKitError("a training vector of \(classes[y]) is not finite", field: "centroids") }
            counts[y] += 1
            for i in 0..<d { sums[y * d + i] += Double(v[i]) }
        }
        if let empty = counts.firstIndex(of: 0) {
            throw GestureKitError("class \"\(classes[empty])\" has no training vectors", field: "classes")
        }
        var c = [Float](repeating: 0, count: k * d)
        for y in 0..<k { for i in 0..<d { c[y * d + i] = Float(sums[y * d + i] / Double(counts[y])) } }
        self.classes = classes
        dimension = d
        centroids = c
        var distances = [[Float]](repeating: [], count: k)
        for (v, y) in zip(vectors, labels) {
            distances[y].append(v.withUnsafeBufferPointer { distance($0, to: y) })
        }
        rejection.fit(distances: distances)
    }

    /// Euclidean distance from `x` to the centroid of class `c`.
    @inline(__always)
    func distance(_ x: UnsafeBufferPointer<Float>, to c: Int) -> Float {
        centroids.withUnsafeBufferPointer { m in
            var acc: Float = 0
            let base = c * dimension
            for i in 0..<dimension { let e = x[i] - m[base + i]; acc += e * e }
            return acc.squareRoot()
        }
    }

    public func predict(_ vector: UnsafeBufferPointer<Float>) -> Prediction {
        let k = classCount
        guard k > 0 else { return .null(classCount: 0) }
        precondition(vector.count == dimension, "centroid: \(vector.count) features, trained on \(dimension)")
        var scores = [Float](repeating: 0, count: k)
        var best = -1
        var bestDistance = Float.infinity
        var zeros = 0
        var inverseSum: Float = 0
        for c in 0..<k {
            let d = distance(vector, to: c)
            scores[c] = d
            if d < bestDistance { bestDistance = d; best = c }
            if d == 0 { zeros += 1 } else { inverseSum += 1 / d }
        }
        // Non-finite input: no distance is comparable, so there is nothing to report.
        guard best >= 0, bestDistance.isFinite else {
            return Prediction(classIndex: nil, confidence: 0, scores: [Float](repeating: 0, count: k), distance: nil)
        }
        for c in 0..<k {
            let d = scores[c]
            scores[c] = zeros > 0 ? (d == 0 ? 1 / Float(zeros) : 0) : (1 / d) / inverseSum
        }
        var p = Prediction(classIndex: best, confidence: scores[best], scores: scores, distance: bestDistance)
        if rejection.rejects(classIndex: best, distance: bestDistance) { p = p.suppressed }
        return p
    }

    public var summary: [String: String] {
        var s: [String: String] = [
            "classifier": "minimum distance (nearest centroid, Euclidean)",
            "classes": classes.joined(separator: ", "),
            "dimension": "\(dimension)",
            "nullRejection": rejection.k.map { "\($0)" } ?? "off",
        ]
        if isTrained {
            s["thresholds"] = zip(classes, rejection.thresholds)
                .map { "\($0): \($1)" }.joined(separator: ", ")
        }
        return s
    }
}
