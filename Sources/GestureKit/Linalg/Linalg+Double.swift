#if canImport(Accelerate)
import Accelerate
#else
import COpenBLAS
#endif

/// Double-precision routines for the ridge classifier's leave-one-out algebra, where Float eigen-
/// values of a Gram matrix would lose the small directions that a small regularisation keeps.
extension Linalg {
    /// `C = A * A^T` for a row-major n x p matrix `a` (so, column-major, p x n: C = op^T op), as a
    /// full symmetric n x n matrix.
    /// - Complexity: O(n^2 * p).
    public static func gramRows(_ a: [Double], rows n: Int, columns p: Int) -> [Double] {
        precondition(a.count == n * p)
        var c = [Double](repeating: 0, count: n * n)
        guard n > 0, p > 0 else { return c }
        a.withUnsafeBufferPointer { pa in
            c.withUnsafeMutableBufferPointer { pc in
                cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, blasInt(n), blasInt(n), blasInt(p), 1,
                            pa.baseAddress, blasInt(p), pa.baseAddress, blasInt(p), 0, pc.baseAddress, blasInt(n))
            }
        }
        return c
    }

    /// `C = alpha * op(A) * op(B) + beta * C` in Double, column-major.
    /// - Complexity: O(m * n * k).
    public static func dgemm(transposeA: Transpose = .none, transposeB: Transpose = .none, m: Int, n: Int, k: Int,
                             alpha: Double = 1, a: UnsafePointer<Double>, lda: Int, b: UnsafePointer<Double>, ldb: Int,
                             beta: Double = 0, c: UnsafeMutablePointer<Double>, ldc: Int) {
        guard m > 0, n > 0 else { return }
        cblas_dgemm(CblasColMajor, transposeA == .none ? CblasNoTrans : CblasTrans,
                    transposeB == .none ? CblasNoTrans : CblasTrans, blasInt(m), blasInt(n), blasInt(k), alpha,
                    a, blasInt(max(lda, 1)), b, blasInt(max(ldb, 1)), beta, c, blasInt(max(ldc, 1)))
    }

    /// Eigen-decomposition of a symmetric n x n matrix, column-major, lower triangle read (LAPACK
    /// `dsyevd`). Returns the eigenvalues ascending; `a` is overwritten by the unit eigenvectors.
    /// - Complexity: O(n^3).
    public static func symmetricEigen(_ a: inout [Double], order n: Int) throws(LinalgError) -> [Double] {
        precondition(a.count == n * n)
        var w = [Double](repeating: 0, count: n)
        guard n > 0 else { return w }
        let info: Int = a.withUnsafeMutableBufferPointer { pa in
            w.withUnsafeMutableBufferPointer { pw in Int(dsyevd(n: n, a: pa.baseAddress!, w: pw.baseAddress!)) }
        }
        if info != 0 { throw .lapack(routine: "dsyevd", info: info) }
        return w
    }
}

#if canImport(Accelerate)
// Int32 (not the legacy header's __CLPK_integer) and at least the documented minimum workspace, as
// ssyevd in Linalg.swift.
private func dsyevd(n: Int, a: UnsafeMutablePointer<Double>, w: UnsafeMutablePointer<Double>) -> Int32 {
    var jobz = Int8(UInt8(ascii: "V")), uplo = Int8(UInt8(ascii: "L"))
    var nn = Int32(n), lda = Int32(n), info = Int32(0)
    var lwork = Int32(-1), liwork = Int32(-1)
    var wq: Double = 0
    var iq = Int32(0)
    dsyevd_(&jobz, &uplo, &nn, a, &lda, w, &wq, &lwork, &iq, &liwork, &info)
    guard info == 0 else { return info }
    lwork = Int32(max(wq.rounded(.up), Double(1 + 6 * n + 2 * n * n)))
    liwork = max(iq, Int32(3 + 5 * n))
    var work = [Double](repeating: 0, count: Int(lwork))
    var iwork = [Int32](repeating: 0, count: Int(liwork))
    dsyevd_(&jobz, &uplo, &nn, a, &lda, w, &work, &lwork, &iwork, &liwork, &info)
    return info
}
#else
private func dsyevd(n: Int, a: UnsafeMutablePointer<Double>, w: UnsafeMutablePointer<Double>) -> Int32 {
    LAPACKE_dsyevd(LAPACK_COL_MAJOR, Int8(UInt8(ascii: "V")), Int8(UInt8(ascii: "L")), Int32(n), a, Int32(n), w)
}
#endif
