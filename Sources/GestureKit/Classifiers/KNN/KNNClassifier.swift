import RealModule

/// k-nearest-neighbour classifier of feature vectors (kind `knn`).
///
/// Training stores the vectors dimension-major (all values of feature 0, then feature 1, ...), so that
/// the distances from one query to every training vector are a few contiguous, vectorised passes and
/// nothing is copied per prediction. The k nearest are kept by partial selection (insertion into a
/// k-slot list), not by sorting all distances. Leave-one-out statistics, internal cross-validation and
/// batch prediction compute distances through BLAS (`||a||^2 + ||b||^2 - 2 a.b` via `Linalg/gemm`).
///
/// With `nullRejection` set, a prediction whose distance (mean distance of the winning class's
/// neighbours) exceeds mean + k * std of that class's leave-one-out distances is reported as null.
/// A training vector is never its own neighbour in those statistics.
///
/// ```swift
/// var knn = KNNClassifier(k: .fixed(10), nullRejection: 3)
/// try knn.train(vectors, labels: labels, classes: names)
/// let p = knn.predict(x)
/// ```
public struct KNNClassifier: VectorClassifier {
    public static let kind = "knn"

    /// How many neighbours vote.
    public enum KChoice: Sendable, Hashable {
        /// Exactly this many neighbours.
        case fixed(Int)
        /// Chosen by stratified cross-validation on the training set among ``KNNClassifier/autoCandidates``.
        case auto
        /// Chosen by stratified cross-validation on the training set among these values.
        case candidates([Int])
    }

    /// How the distance between two feature vectors is measured.
    public enum Metric: String, Sendable, Hashable, Codable, CaseIterable {
        /// Straight-line (L2) and city-block (L1) distance.
        case euclidean, manhattan
        /// 1 - cosine similarity.
        case cosine
    }

    /// Candidates tried by `.auto`.
    public static let autoCandidates = [1, 3, 5, 7, 9, 11, 15, 21]

    /// How many neighbours vote, or how to choose that number.
    public var k: KChoice
    /// The distance between feature vectors.
    public var metric: Metric
    /// Votes weighted by 1 / distance instead of one vote per neighbour.
    public var distanceWeighting: Bool
    /// Null-rejection multiplier; `nil` = off. Can be changed after training.
    public var nullRejection: Float? {
        didSet { model?.rejection.k = nullRejection }
    }
    /// Folds of the internal cross-validation that chooses k (`.auto`, `.candidates`).
    public var folds: Int
    /// Seeds the folds of the internal cross-validation that chooses k.
    public var seed: UInt64

    package internal(set) var model: Model?

    package struct Model: Sendable, Hashable {
        public var classes: [String]
        public var dimensions: Int
        /// Training vectors, dimension-major: value d of vector j at `d * count + j`.
        public var vectors: [Float]
        public var labels: [Int]
        /// The k in use (the chosen one when k was chosen by cross-validation).
        public var k: Int
        public var rejection: NullRejection
        // Derived: squared norms (euclidean) or inverse norms (cosine).
        var norms: [Float] = []
        public var count: Int { labels.count }
    }

    /// A kNN classifier; every parameter is the property of the same name.
    public init(k: KChoice = .fixed(10), metric: Metric = .euclidean, distanceWeighting: Bool = false,
                nullRejection: Float? = nil, folds: Int = 5, seed: UInt64 = 0) {
        self.k = k
        self.metric = metric
        self.distanceWeighting = distanceWeighting
        self.nullRejection = nullRejection
        self.folds = folds
        self.seed = seed
    }

    /// Classes of the trained model (0 before training).
    public var classCount: Int { model?.classes.count ?? 0 }

    public var summary: [String: String] {
        var s: [String: String] = [
            "metric": metric.rawValue,
            "weighting": distanceWeighting ? "1 / distance" : "uniform",
        ]
        switch k {
        case .fixed(let v): s["k"] = "\(v)"
        case .auto: s["k"] = "auto (\(KNNClassifier.autoCandidates))" + (model.map { ": chose \($0.k)" } ?? "")
        case .candidates(let c): s["k"] = "cross-validated among \(c)" + (model.map { ": chose \($0.k)" } ?? "")
        }
        if let model {
            s["training"] = "\(model.count) vectors x \(model.dimensions)"
            s["nullRejection"] = nullRejection.map { k in
                "k = \(k); thresholds " + zip(model.classes, model.rejection.thresholds).map { "\($0) \($1)" }.joined(separator: ", ")
            } ?? "off"
        } else {
            s["nullRejection"] = nullRejection.map { "k = \($0) (not trained)" } ?? "off"
        }
        return s
    }

    // MARK: training

    /// Stores the vectors, chooses k if asked, and learns rejection thresholds from leave-one-out
    /// neighbour distances.
    /// - Complexity: O(N^2 * D) through BLAS for the leave-one-out pass (plus the same per candidate
    ///   set for cross-validation), O(N * D) memory beyond a block of distances.
    public mutating func train(_ vectors: [[Float]], labels: [Int], classes: [String]) throws {
        guard !vectors.isEmpty else { throw GestureKitError("no training vectors", field: "vectors") }
        guard vectors.count == labels.count else {
            throw GestureKitError("\(vectors.count) vectors but \(labels.count) labels", field: "labels")
        }
        let d = vectors[0].count
        guard d > 0 else { throw GestureKitError("vectors are empty", field: "vectors") }
        for (i, v) in vectors.enumerated() {
            guard v.count == d else { throw GestureKitError("vector \(i) has \(v.count) values, expected \(d)", field: "vectors") }
            guard v.allSatisfy(\.isFinite) else { throw GestureKitError("vector \(i) has non-finite values", field: "vectors") }
            guard classes.indices.contains(labels[i]) else {
                throw GestureKitError("label \(labels[i]) of vector \(i) is not a class index", field: "labels")
            }
        }
        let candidates: [Int]
        switch k {
        case .fixed(let v): candidates = [v]
        case .auto: candidates = KNNClassifier.autoCandidates
        case .candidates(let c): candidates = c
        }
        guard !candidates.isEmpty, candidates.allSatisfy({ $0 >= 1 }) else {
            throw GestureKitError("k must be at least 1", field: "k")
        }
        let n = vectors.count
        var data = [Float](repeating: 0, count: n * d)
        for j in 0..<n { for f in 0..<d { data[f * n + j] = vectors[j][f] } }
        var m = Model(classes: classes, dimensions: d, vectors: data, labels: labels, k: min(candidates[0], n),
                      rejection: NullRejection(k: nullRejection, classCount: classes.count))
        m.rebuildDerived(metric: metric)
        if candidates.count > 1 {
            guard folds >= 2 else { throw GestureKitError("must be at least 2", field: "folds") }
            m.k = chooseK(vectors, labels: labels, classCount: classes.count, candidates: candidates)
        }
        m.k = min(m.k, n)
        // Leave-one-out: each training vector against all others.
        var perClass = [[Float]](repeating: [], count: classes.count)
        var fallback = [[Float]](repeating: [], count: classes.count)
        let rows = Array(0..<n)
        neighbourLists(model: m, queries: vectors, excludeSelf: rows, k: max(min(m.k, n - 1), 1)) { q, idx, dist in
            let (winner, wd) = vote(model: m, indices: idx, distances: dist)
            let own = labels[q]
            if winner == own { perClass[own].append(wd) }
            // Mean distance of own-class neighbours, used only for a class no LOO vote got right.
            let ownD = zip(idx, dist).filter { m.labels[$0.0] == own }.map(\.1)
            if !ownD.isEmpty { fallback[own].append(ownD.reduce(0, +) / Float(ownD.count)) }
        }
        for c in classes.indices where perClass[c].isEmpty { perClass[c] = fallback[c] }
        m.rejection.fit(distances: DTWClassifier.filled(perClass))
        model = m
    }

    /// Stratified internal cross-validation on the training set only: the candidate with the best
    /// accuracy (ties go to the smaller k).
    func chooseK(_ vectors: [[Float]], labels: [Int], classCount: Int, candidates: [Int]) -> Int {
        var rng = SeededGenerator(seed: seed)
        var fold = [Int](repeating: 0, count: vectors.count)
        var next = 0
        for c in 0..<classCount {
            for i in labels.indices.filter({ labels[$0] == c }).shuffled(using: &rng) {
                fold[i] = next % folds
                next += 1
            }
        }
        let sorted = Array(Set(candidates)).sorted()
        var correct = [Int](repeating: 0, count: sorted.count)
        for f in 0..<folds {
            let trainIdx = vectors.indices.filter { fold[$0] != f }
            let testIdx = vectors.indices.filter { fold[$0] == f }
            guard !trainIdx.isEmpty, !testIdx.isEmpty else { continue }
            var inner = KNNClassifier(k: .fixed(1), metric: metric, distanceWeighting: distanceWeighting)
            let n = trainIdx.count, d = vectors[0].count
            var data = [Float](repeating: 0, count: n * d)
            for (j, i) in trainIdx.enumerated() { for x in 0..<d { data[x * n + j] = vectors[i][x] } }
            var m = Model(classes: Array(repeating: "", count: classCount), dimensions: d, vectors: data,
                          labels: trainIdx.map { labels[$0] }, k: 1, rejection: NullRejection(k: nil, classCount: classCount))
            m.rebuildDerived(metric: metric)
            inner.model = m
            let maxK = min(sorted.last!, n)
            inner.neighbourLists(model: m, queries: testIdx.map { vectors[$0] }, excludeSelf: nil, k: maxK) { q, idx, dist in
                for (ci, kk) in sorted.enumerated() {
                    let take = min(kk, idx.count)
                    let (w, _) = inner.vote(model: m, indices: Array(idx.prefix(take)), distances: Array(dist.prefix(take)))
                    if w == labels[testIdx[q]] { correct[ci] += 1 }
                }
            }
        }
        let best = correct.indices.max { correct[$0] < correct[$1] || (correct[$0] == correct[$1] && $0 > $1) }!
        return sorted[best]
    }

    // MARK: prediction

    /// The majority (or distance-weighted) class of the k nearest training vectors.
    /// - Complexity: O(N * D) distance passes plus O(N + k^2) selection; no heap allocation besides the
    ///   returned scores, no copy of the training set.
    public func predict(_ vector: UnsafeBufferPointer<Float>) -> Prediction {
        guard let model else { return .null(classCount: 0) }
        precondition(vector.count == model.dimensions, "KNNClassifier: \(vector.count) values, trained on \(model.dimensions)")
        let n = model.count, k = min(model.k, n)
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: n + k) { buf in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: k) { idx in
                let dist = buf.baseAddress!, topD = buf.baseAddress! + n
                model.vectors.withUnsafeBufferPointer { t in
                    model.norms.withUnsafeBufferPointer { nb in
                        KNNClassifier.distances(metric, query: vector.baseAddress!, dims: model.dimensions,
                                                data: t.baseAddress!, norms: nb.baseAddress, count: n, into: dist)
                    }
                }
                // Partial selection: an ascending k-slot list, entered only by vectors closer than its last.
                for s in 0..<k { topD[s] = .infinity; idx[s] = -1 }
                var bound = Float.infinity
                for j in 0..<n where dist[j] < bound {
                    var s = k - 1
                    while s > 0, topD[s - 1] > dist[j] { topD[s] = topD[s - 1]; idx[s] = idx[s - 1]; s -= 1 }
                    topD[s] = dist[j]
                    idx[s] = j
                    bound = topD[k - 1]
                }
                if metric == .euclidean { for s in 0..<k { topD[s] = topD[s].squareRoot() } }
                return prediction(model: model, indices: UnsafeBufferPointer(start: idx.baseAddress, count: k),
                                  distances: UnsafeBufferPointer(start: topD, count: k))
            }
        }
    }

    /// Predictions for many vectors at once, distances through BLAS.
    /// - Complexity: O(Q * N * D) in gemm plus O(Q * N) selection.
    public func predict(batch vectors: [[Float]]) -> [Prediction] {
        guard let model else { return vectors.map { _ in .null(classCount: 0) } }
        var out = [Prediction](repeating: .null(classCount: model.classes.count), count: vectors.count)
        neighbourLists(model: model, queries: vectors, excludeSelf: nil, k: min(model.k, model.count)) { q, idx, dist in
            out[q] = idx.withUnsafeBufferPointer { i in
                dist.withUnsafeBufferPointer { prediction(model: model, indices: i, distances: $0) }
            }
        }
        return out
    }

    func prediction(model: Model, indices: UnsafeBufferPointer<Int>, distances: UnsafeBufferPointer<Float>) -> Prediction {
        var scores = [Float](repeating: 0, count: model.classes.count)
        var sums = [Float](repeating: 0, count: model.classes.count)
        var counts = [Int](repeating: 0, count: model.classes.count)
        for (s, j) in indices.enumerated() where j >= 0 {
            let c = model.labels[j]
            scores[c] += distanceWeighting ? 1 / max(distances[s], 1e-12) : 1
            sums[c] += distances[s]
            counts[c] += 1
        }
        let winner = KNNClassifier.winner(scores: scores, sums: sums, counts: counts)
        let total = scores.reduce(0, +)
        if total > 0 { for c in scores.indices { scores[c] /= total } }
        let distance = sums[winner] / Float(max(counts[winner], 1))
        let rejected = model.rejection.rejects(classIndex: winner, distance: distance)
        return Prediction(classIndex: rejected ? nil : winner, confidence: scores[winner], scores: scores,
                          distance: distance)
    }

    /// Highest vote; ties go to the class whose neighbours are closer on average.
    static func winner(scores: [Float], sums: [Float], counts: [Int]) -> Int {
        var best = 0
        for c in 1..<scores.count {
            if scores[c] > scores[best] { best = c; continue }
            if scores[c] == scores[best], counts[c] > 0,
               counts[best] == 0 || sums[c] / Float(counts[c]) < sums[best] / Float(counts[best]) { best = c }
        }
        return best
    }

    func vote(model: Model, indices: [Int], distances: [Float]) -> (Int, Float) {
        let p = indices.withUnsafeBufferPointer { i in
            distances.withUnsafeBufferPointer { prediction(model: model, indices: i, distances: $0) }
        }
        let w = p.scores.indices.max { p.scores[$0] < p.scores[$1] } ?? 0
        return (p.classIndex ?? w, p.distance ?? 0)
    }

    /// Distances (true distances, not squared, for euclidean) from one query to every training vector.
    @inlinable
    static func distances(_ metric: Metric, query x: UnsafePointer<Float>, dims: Int, data: UnsafePointer<Float>,
                          norms: UnsafePointer<Float>?, count n: Int, into out: UnsafeMutablePointer<Float>) {
        switch metric {
        case .euclidean:
            // Squared here; the caller takes roots of the k selected only.
            let x0 = x[0]
            for j in 0..<n { let e = x0 - data[j]; out[j] = e * e }
            for f in 1..<max(dims, 1) {
                let xf = x[f], col = data + f * n
                for j in 0..<n { let e = xf - col[j]; out[j] = Relaxed.multiplyAdd(e, e, out[j]) }
            }
        case .manhattan:
            for j in 0..<n { out[j] = 0 }
            for f in 0..<dims {
                let xf = x[f], col = data + f * n
                for j in 0..<n { out[j] = Relaxed.sum(out[j], abs(xf - col[j])) }
            }
        case .cosine:
            var qq: Float = 0
            for f in 0..<dims { qq = Relaxed.multiplyAdd(x[f], x[f], qq) }
            let qinv = qq > 0 ? 1 / qq.squareRoot() : 0
            for j in 0..<n { out[j] = 0 }
            for f in 0..<dims {
                let xf = x[f], col = data + f * n
                for j in 0..<n { out[j] = Relaxed.multiplyAdd(xf, col[j], out[j]) }
            }
            let inv = norms!
            for j in 0..<n { out[j] = 1 - out[j] * qinv * inv[j] }
        }
    }

    /// Calls `body(queryIndex, neighbourIndices, distances)` with the k nearest training vectors of
    /// each query, nearest first. Euclidean and cosine distances come from BLAS in blocks of queries;
    /// `excludeSelf[q]` names a training index that query q may not use (leave-one-out).
    func neighbourLists(model: Model, queries: [[Float]], excludeSelf: [Int]?, k: Int,
                        _ body: (Int, [Int], [Float]) -> Void) {
        let n = model.count, d = model.dimensions
        let block = max(1, min(queries.count, 1 << 20 / max(n, 1)))
        var qm = [Float](repeating: 0, count: block * d)
        var g = [Float](repeating: 0, count: n * block)
        var idx = [Int](repeating: 0, count: k), dist = [Float](repeating: 0, count: k)
        var start = 0
        while start < queries.count {
            let b = min(block, queries.count - start)
            for q in 0..<b { for f in 0..<d { qm[q * d + f] = queries[start + q][f] } }
            if metric != .manhattan {
                // G = T * Q^T: T is n x d column-major (dimension-major storage), Q^T is d x b column-major.
                model.vectors.withUnsafeBufferPointer { t in
                    qm.withUnsafeBufferPointer { qp in
                        g.withUnsafeMutableBufferPointer { gp in
                            Linalg.gemm(m: n, n: b, k: d, a: t.baseAddress!, lda: n, b: qp.baseAddress!, ldb: d,
                                        c: gp.baseAddress!, ldc: n)
                        }
                    }
                }
            }
            for q in 0..<b {
                let col = q * n
                switch metric {
                case .euclidean:
                    var qq: Float = 0
                    for f in 0..<d { qq += qm[q * d + f] * qm[q * d + f] }
                    for j in 0..<n { g[col + j] = max(qq + model.norms[j] - 2 * g[col + j], 0) }
                case .cosine:
                    var qq: Float = 0
                    for f in 0..<d { qq += qm[q * d + f] * qm[q * d + f] }
                    let qinv = qq > 0 ? 1 / qq.squareRoot() : 0
                    for j in 0..<n { g[col + j] = 1 - g[col + j] * qinv * model.norms[j] }
                case .manhattan:
                    for j in 0..<n {
                        var s: Float = 0
                        for f in 0..<d { s += abs(qm[q * d + f] - model.vectors[f * n + j]) }
                        g[col + j] = s
                    }
                }
                let skip = excludeSelf?[start + q] ?? -1
                for s in 0..<k { dist[s] = .infinity; idx[s] = -1 }
                for j in 0..<n where j != skip && g[col + j] < dist[k - 1] {
                    var s = k - 1
                    while s > 0, dist[s - 1] > g[col + j] { dist[s] = dist[s - 1]; idx[s] = idx[s - 1]; s -= 1 }
                    dist[s] = g[col + j]
                    idx[s] = j
                }
                let found = idx.firstIndex(of: -1) ?? k
                var outI = Array(idx.prefix(found)), outD = Array(dist.prefix(found))
                if metric == .euclidean {
                    // The expansion loses digits when vectors are far from the origin: recompute the
                    // k selected distances directly (O(k * D)) and keep them in order.
                    for s in 0..<found {
                        var e: Float = 0
                        for f in 0..<d { let x = qm[q * d + f] - model.vectors[f * n + outI[s]]; e += x * x }
                        outD[s] = e.squareRoot()
                    }
                    let order = outD.indices.sorted { outD[$0] < outD[$1] || (outD[$0] == outD[$1] && outI[$0] < outI[$1]) }
                    outI = order.map { outI[$0] }
                    outD = order.map { outD[$0] }
                }
                body(start + q, outI, outD)
            }
            start += b
        }
    }
}

extension KNNClassifier.Model {
    mutating func rebuildDerived(metric: KNNClassifier.Metric) {
        let n = count
        norms = [Float](repeating: 0, count: n)
        for f in 0..<dimensions { for j in 0..<n { norms[j] += vectors[f * n + j] * vectors[f * n + j] } }
        if metric == .cosine { norms = norms.map { $0 > 0 ? 1 / $0.squareRoot() : 0 } }
    }
}
