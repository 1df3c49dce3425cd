import Foundation

/// Ridge regression with an unpenalised intercept and its exact leave-one-out residuals for many
/// regularisations from one decomposition, as scikit-learn's `_RidgeGCV` does.
///
/// With the columns centred, `Zc = Q diag(sqrt(s)) V^T` (thin SVD), the hat matrix for
/// regularisation a is `H = 11^T / n + Q diag(s / (s + a)) Q^T`, and the leave-one-out residual of
/// row i is `(y_i - yhat_i) / (1 - H_ii)`; exact because an intercept-plus-ridge fit is a linear
/// smoother of fixed design. Q and s come from LAPACK `dsyevd` of the n x n Gram matrix when there are
/// fewer rows than columns, else of the p x p covariance.
/// - Complexity: O(n^2 p + min(n, p)^3) to build, O(n r k) per regularisation (r = rank, k outputs).
struct RidgeSolver {
    let n: Int, p: Int, k: Int
    /// Column means of the design, row-major n x p Double.
    let means: [Double]
    /// Centred design, row-major n x p (column-major p x n).
    let zc: [Double]
    /// Targets' column means and centred targets (row-major n x k).
    let targetMeans: [Double]
    let yc: [Double]
    /// Orthonormal columns Q (column-major n x r) and the squared singular values s.
    let q: [Double]
    let s: [Double]
    /// Q^T Yc, column-major r x k.
    let qty: [Double]

    var rank: Int { s.count }

    init(design z: [Double], rows n: Int, columns p: Int, targets y: [Double], outputs k: Int) throws {
        precondition(z.count == n * p && y.count == n * k && n > 0 && p > 0 && k > 0)
        self.n = n; self.p = p; self.k = k
        var means = [Double](repeating: 0, count: p)
        for i in 0..<n { for j in 0..<p { means[j] += z[i * p + j] } }
        for j in 0..<p { means[j] /= Double(n) }
        var zc = z
        for i in 0..<n { for j in 0..<p { zc[i * p + j] -= means[j] } }
        var tm = [Double](repeating: 0, count: k)
        for i in 0..<n { for c in 0..<k { tm[c] += y[i * k + c] } }
        for c in 0..<k { tm[c] /= Double(n) }
        var yc = y
        for i in 0..<n { for c in 0..<k { yc[i * k + c] -= tm[c] } }

        var q: [Double]
        var s: [Double]
        do {
            if n <= p {
                var g = Linalg.gramRows(zc, rows: n, columns: p)
                s = try Linalg.symmetricEigen(&g, order: n).map { max($0, 0) }
                q = g
            } else {
                var cov = [Double](repeating: 0, count: p * p)
                zc.withUnsafeBufferPointer { a in
                    cov.withUnsafeMutableBufferPointer { c in
                        Linalg.dgemm(transposeA: .none, transposeB: .transpose, m: p, n: p, k: n,
                                     a: a.baseAddress!, lda: p, b: a.baseAddress!, ldb: p, c: c.baseAddress!, ldc: p)
                    }
                }
                let values = try Linalg.symmetricEigen(&cov, order: p)
                // Keep the directions with weight; the others add nothing to fits or hat values.
                let top = values.last ?? 0
                let keep = values.indices.filter { values[$0] > max(top, 0) * 1e-12 }
                var v = [Double](repeating: 0, count: p * keep.count)
                for (r, j) in keep.enumerated() { for i in 0..<p { v[r * p + i] = cov[j * p + i] } }
                // Q = Zc V diag(1 / sqrt(s)).
                var u = [Double](repeating: 0, count: n * keep.count)
                zc.withUnsafeBufferPointer { a in
                    v.withUnsafeBufferPointer { b in
                        u.withUnsafeMutableBufferPointer { c in
                            Linalg.dgemm(transposeA: .transpose, transposeB: .none, m: n, n: keep.count, k: p,
                                         a: a.baseAddress!, lda: p, b: b.baseAddress!, ldb: p, c: c.baseAddress!, ldc: n)
                        }
                    }
                }
                s = keep.map { values[$0] }
                for r in s.indices {
                    let f = 1 / s[r].squareRoot()
                    for i in 0..<n { u[r * n + i] *= f }
                }
                q = u
            }
        } catch {
            throw GestureKitError("ridge: \(error)", field: "classifier")
        }
        let r = s.count
        var qty = [Double](repeating: 0, count: r * k)
        for c in 0..<k {
            for j in 0..<r {
                var acc = 0.0
                for i in 0..<n { acc += q[j * n + i] * yc[i * k + c] }
                qty[c * r + j] = acc
            }
        }
        self.means = means; self.zc = zc; self.targetMeans = tm; self.yc = yc
        self.q = q; self.s = s; self.qty = qty
    }

    /// In-sample fits (row-major n x k, including the intercept) and hat diagonal for `alpha`.
    func fits(alpha: Double) -> (fits: [Double], hat: [Double]) {
        let r = rank
        var fits = [Double](repeating: 0, count: n * k)
        var hat = [Double](repeating: 1 / Double(n), count: n)
        let shrink = s.map { $0 / ($0 + alpha) }
        for j in 0..<r {
            let w = shrink[j]
            if w == 0 { continue }
            let col = j * n
            for i in 0..<n {
                let qij = q[col + i]
                hat[i] += qij * qij * w
                for c in 0..<k { fits[i * k + c] += qij * w * qty[c * r + j] }
            }
        }
        for i in 0..<n { for c in 0..<k { fits[i * k + c] += targetMeans[c] } }
        return (fits, hat)
    }

    /// Leave-one-out predictions (row-major n x k): what a fit without row i predicts for row i.
    func looDecisions(alpha: Double) -> [Double] {
        let (fits, hat) = fits(alpha: alpha)
        var out = fits
        for i in 0..<n {
            let y = (0..<k).map { yc[i * k + $0] + targetMeans[$0] }
            let d = 1 - hat[i]
            for c in 0..<k {
                let residual = d > 1e-12 ? (y[c] - fits[i * k + c]) / d : 0
                out[i * k + c] = y[c] - residual
            }
        }
        return out
    }

    /// Sum over rows and outputs of the squared leave-one-out residuals.
    func looError(alpha: Double) -> Double {
        var y = yc
        for i in 0..<n { for c in 0..<k { y[i * k + c] += targetMeans[c] } }
        return Self.squaredError(looDecisions(alpha: alpha), y)
    }

    /// Sum of the squared differences of decisions and targets (same layout).
    static func squaredError(_ decisions: [Double], _ targets: [Double]) -> Double {
        zip(decisions, targets).reduce(0.0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }
    }

    /// op(A) op(B), column-major m x n, for column-major A and B with leading dimensions of their
    /// stored rows (A: m, or k when transposed; B: k, or n when transposed).
    static func product(_ a: [Double], _ b: [Double], m: Int, n: Int, k: Int, transposeA: Linalg.Transpose = .none,
                        transposeB: Linalg.Transpose = .none) -> [Double] {
        var c = [Double](repeating: 0, count: m * n)
        a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                c.withUnsafeMutableBufferPointer { pc in
                    Linalg.dgemm(transposeA: transposeA, transposeB: transposeB, m: m, n: n, k: k, a: pa.baseAddress!,
                                 lda: transposeA == .none ? m : k, b: pb.baseAddress!, ldb: transposeB == .none ? k : n,
                                 c: pc.baseAddress!, ldc: m)
                }
            }
        }
        return c
    }

    /// Intercepts of a fit on centred columns: target means minus column means times weights
    /// (column-major p x k).
    static func intercepts(_ targetMeans: [Double], columnMeans: [Double], weights: [Double]) -> [Double] {
        let p = columnMeans.count
        var b = targetMeans
        for c in b.indices { for j in 0..<p { b[c] -= columnMeans[j] * weights[c * p + j] } }
        return b
    }

    /// Weights (column-major p x k) and intercepts of the fit on all rows.
    /// beta = Zc^T Q diag(1 / (s + alpha)) Q^T Yc.
    func coefficients(alpha: Double) -> (weights: [Double], intercepts: [Double]) {
        let r = rank
        var t = qty
        for c in 0..<k { for j in 0..<r { t[c * r + j] /= s[j] + alpha } }
        let m = Self.product(q, t, m: n, n: k, k: r)  // Q t, column-major n x k
        let beta = Self.product(zc, m, m: p, n: k, k: n)
        let intercepts = Self.intercepts(targetMeans, columnMeans: means, weights: beta)
        return (beta, intercepts)
    }
}
