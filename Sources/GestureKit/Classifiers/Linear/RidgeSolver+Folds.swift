import Foundation

extension RidgeSolver {
    /// Out-of-fold decision values for each regularisation: row i of `alphas[a]`'s matrix (row-major
    /// n x k) is what an intercept-plus-ridge fit on the rows of the other folds predicts for row i.
    ///
    /// Exact refits, one per fold. With more rows than columns, each fold's p x p covariance is the
    /// whole data's sums minus the fold's, and one eigen-decomposition serves every alpha; otherwise a
    /// `RidgeSolver` on the other folds' rows.
    /// - Parameters:
    ///   - fold: fold index of each row, in `0..<folds`; at least two folds hold rows.
    /// - Complexity: O(n p^2 + folds p^3 + alphas n p k) with more rows than columns, else
    ///   O(folds (n^2 p + n^3) + alphas n p k).
    static func foldDecisions(design z: [Double], rows n: Int, columns p: Int, targets y: [Double], outputs k: Int,
                              fold: [Int], folds: Int, alphas: [Double]) throws -> [[Double]] {
        precondition(z.count == n * p && y.count == n * k && fold.count == n && fold.allSatisfy { (0..<folds).contains($0) })
        var out = [[Double]](repeating: [Double](repeating: 0, count: n * k), count: alphas.count)
        let members = (0..<folds).map { f in (0..<n).filter { fold[$0] == f } }
        func gather(_ a: [Double], _ rows: [Int], _ width: Int) -> [Double] {
            var g = [Double](repeating: 0, count: rows.count * width)
            for (r, i) in rows.enumerated() { for j in 0..<width { g[r * width + j] = a[i * width + j] } }
            return g
        }
        /// Writes intercept + rows' weights into `out[a]` for the fold's rows.
        func predict(_ zf: [Double], rows: [Int], weights w: [Double], intercepts b: [Double], into a: Int) {
            let g = rows.count
            let pred = product(zf, w, m: g, n: k, k: p, transposeA: .transpose)  // column-major g x k
            for (r, i) in rows.enumerated() { for c in 0..<k { out[a][i * k + c] = pred[c * g + r] + b[c] } }
        }

        if n <= p {
            for f in 0..<folds where !members[f].isEmpty {
                let train = (0..<n).filter { fold[$0] != f }
                let solver = try RidgeSolver(design: gather(z, train, p), rows: train.count, columns: p,
                                             targets: gather(y, train, k), outputs: k)
                let zf = gather(z, members[f], p)
                for a in alphas.indices {
                    let (w, b) = solver.coefficients(alpha: alphas[a])
                    predict(zf, rows: members[f], weights: w, intercepts: b, into: a)
                }
            }
            return out
        }

        // Whole-data sums: S = Z^T Z (p x p), B = Z^T Y (column-major p x k), column sums.
        let s = product(z, z, m: p, n: p, k: n, transposeB: .transpose)
        let bAll = product(z, y, m: p, n: k, k: n, transposeB: .transpose)
        var zSum = [Double](repeating: 0, count: p), ySum = [Double](repeating: 0, count: k)
        for i in 0..<n {
            for j in 0..<p { zSum[j] += z[i * p + j] }
            for c in 0..<k { ySum[c] += y[i * k + c] }
        }
        for f in 0..<folds where !members[f].isEmpty {
            let rows = members[f], g = rows.count, nt = Double(n - g)
            precondition(g < n, "ridge folds: one fold holds every row")
            let zf = gather(z, rows, p), yf = gather(y, rows, k)
            // The other folds' centred covariance and cross-products: whole sums minus the fold's.
            var cov = s, bt = bAll
            zf.withUnsafeBufferPointer { za in
                cov.withUnsafeMutableBufferPointer { ca in
                    Linalg.dgemm(transposeB: .transpose, m: p, n: p, k: g, alpha: -1, a: za.baseAddress!, lda: p,
                                 b: za.baseAddress!, ldb: p, beta: 1, c: ca.baseAddress!, ldc: p)
                }
                yf.withUnsafeBufferPointer { ya in
                    bt.withUnsafeMutableBufferPointer { ba in
                        Linalg.dgemm(transposeB: .transpose, m: p, n: k, k: g, alpha: -1, a: za.baseAddress!, lda: p,
                                     b: ya.baseAddress!, ldb: k, beta: 1, c: ba.baseAddress!, ldc: p)
                    }
                }
            }
            var mean = zSum, yMean = ySum
            for (r, _) in rows.enumerated() {
                for j in 0..<p { mean[j] -= zf[r * p + j] }
                for c in 0..<k { yMean[c] -= yf[r * k + c] }
            }
            for j in 0..<p { mean[j] /= nt }
            for c in 0..<k { yMean[c] /= nt }
            for j in 0..<p {
                let mj = nt * mean[j]
                for i in 0..<p { cov[j * p + i] -= mj * mean[i] }
                for c in 0..<k { bt[c * p + j] -= mj * yMean[c] }
            }
            let values: [Double]
            do { values = try Linalg.symmetricEigen(&cov, order: p).map { max($0, 0) } } catch {
                throw GestureKitError("ridge: \(error)", field: "classifier")
            }
            // t = V^T bt; weights for alpha: V diag(1 / (s + alpha)) t.
            let t = product(cov, bt, m: p, n: k, k: p, transposeA: .transpose)
            for a in alphas.indices {
                var u = t
                for c in 0..<k { for r in 0..<p { u[c * p + r] /= values[r] + alphas[a] } }
                let w = product(cov, u, m: p, n: k, k: p)
                predict(zf, rows: rows, weights: w, intercepts: intercepts(yMean, columnMeans: mean, weights: w), into: a)
            }
        }
        return out
    }
}
