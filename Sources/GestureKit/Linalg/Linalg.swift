import Foundation
#if canImport(Accelerate)
import Accelerate
#else
import COpenBLAS
#endif

/// Thin wrappers over BLAS and LAPACK: OpenBLAS + LAPACKE on Linux, Accelerate on Apple platforms.
///
/// Everything is column-major so both back ends see the same memory. Kernels do not throw on shape
/// mistakes (those are programmer errors and trap); LAPACK failures that depend on the data, such as
/// a matrix that is not positive definite, throw ``LinalgError``.
package enum Linalg {
    /// Whether to transpose an operand of ``gemm(transposeA:transposeB:m:n:k:alpha:a:lda:b:ldb:beta:c:ldc:)``.
    public enum Transpose: Sendable { case none, transpose }

    /// `C = alpha * op(A) * op(B) + beta * C`, with `op(A)` m x k and `op(B)` k x n, all column-major.
    /// - Complexity: O(m * n * k).
    @inlinable
    public static func gemm(
        transposeA: Transpose = .none, transposeB: Transpose = .none,
        m: Int, n: Int, k: Int, alpha: Float = 1,
        a: UnsafePointer<Float>, lda: Int,
        b: UnsafePointer<Float>, ldb: Int,
        beta: Float = 0,
        c: UnsafeMutablePointer<Float>, ldc: Int
    ) {
        guard m > 0, n > 0 else { return }
        cblas_sgemm(
            CblasColMajor, transposeA == .none ? CblasNoTrans : CblasTrans,
            transposeB == .none ? CblasNoTrans : CblasTrans,
            blasInt(m), blasInt(n), blasInt(k), alpha, a, blasInt(max(lda, 1)), b, blasInt(max(ldb, 1)),
            beta, c, blasInt(max(ldc, 1)))
    }

    /// `out = op(a) * op(b)` for whole matrices (out is resized if needed).
    public static func gemm(
        _ a: Matrix, _ b: Matrix, transposeA: Transpose = .none, transposeB: Transpose = .none,
        alpha: Float = 1, beta: Float = 0, into out: inout Matrix
    ) {
        let m = transposeA == .none ? a.rows : a.columns
        let k = transposeA == .none ? a.columns : a.rows
        let kb = transposeB == .none ? b.rows : b.columns
        let n = transposeB == .none ? b.columns : b.rows
        precondition(k == kb, "gemm: inner dimensions \(k) and \(kb) differ")
        if out.rows != m || out.columns != n { out = Matrix(rows: m, columns: n) }
        a.values.withUnsafeBufferPointer { pa in
            b.values.withUnsafeBufferPointer { pb in
                out.values.withUnsafeMutableBufferPointer { pc in
                    gemm(transposeA: transposeA, transposeB: transposeB, m: m, n: n, k: k, alpha: alpha,
                         a: pa.baseAddress!, lda: a.rows, b: pb.baseAddress!, ldb: b.rows,
                         beta: beta, c: pc.baseAddress!, ldc: m)
                }
            }
        }
    }

    /// `y = alpha * op(A) * x + beta * y`, A is m x n column-major.
    /// - Complexity: O(m * n).
    @inlinable
    public static func gemv(
        transpose: Transpose = .none, m: Int, n: Int, alpha: Float = 1,
        a: UnsafePointer<Float>, lda: Int, x: UnsafePointer<Float>, beta: Float = 0,
        y: UnsafeMutablePointer<Float>
    ) {
        guard m > 0, n > 0 else { return }
        cblas_sgemv(CblasColMajor, transpose == .none ? CblasNoTrans : CblasTrans,
                    blasInt(m), blasInt(n), alpha, a, blasInt(max(lda, 1)), x, 1, beta, y, 1)
    }

    /// `y += alpha * x`.
    @inlinable
    public static func axpy(_ n: Int, alpha: Float, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>) {
        guard n > 0 else { return }
        cblas_saxpy(blasInt(n), alpha, x, 1, y, 1)
    }

    /// `x . y`.
    @inlinable
    public static func dot(_ n: Int, _ x: UnsafePointer<Float>, _ y: UnsafePointer<Float>) -> Float {
        guard n > 0 else { return 0 }
        return cblas_sdot(blasInt(n), x, 1, y, 1)
    }

    public static func dot(_ x: [Float], _ y: [Float]) -> Float {
        precondition(x.count == y.count)
        return x.withUnsafeBufferPointer { px in
            y.withUnsafeBufferPointer { py in
                guard let a = px.baseAddress, let b = py.baseAddress else { return 0 }
                return dot(x.count, a, b)
            }
        }
    }

    /// Eigen-decomposition of a symmetric matrix (LAPACK `ssyevd`, lower triangle read).
    ///
    /// - Returns: eigenvalues in ascending order and the matching unit eigenvectors as the columns of
    ///   `vectors`.
    /// - Complexity: O(n^3).
    public static func symmetricEigen(_ a: Matrix) throws(LinalgError) -> (values: [Float], vectors: Matrix) {
        precondition(a.rows == a.columns, "symmetricEigen: matrix is \(a.rows)x\(a.columns)")
        let n = a.rows
        var vectors = a
        var values = [Float](repeating: 0, count: n)
        guard n > 0 else { return (values, vectors) }
        let info: Int = vectors.values.withUnsafeMutableBufferPointer { pa in
            values.withUnsafeMutableBufferPointer { pw in
                Int(ssyevd(n: n, a: pa.baseAddress!, w: pw.baseAddress!))
            }
        }
        if info != 0 { throw .lapack(routine: "ssyevd", info: info) }
        return (values, vectors)
    }

    /// Cholesky factor `L` with `A = L * L^T` (LAPACK `spotrf`); the upper triangle of the result is zero.
    /// - Throws: ``LinalgError/notPositiveDefinite(order:)`` when `A` is not positive definite.
    /// - Complexity: O(n^3).
    public static func cholesky(_ a: Matrix) throws(LinalgError) -> Matrix {
        precondition(a.rows == a.columns, "cholesky: matrix is \(a.rows)x\(a.columns)")
        let n = a.rows
        var l = a
        guard n > 0 else { return l }
        let info: Int = l.values.withUnsafeMutableBufferPointer { Int(spotrf(n: n, a: $0.baseAddress!)) }
        if info > 0 { throw .notPositiveDefinite(order: info) }
        if info < 0 { throw .lapack(routine: "spotrf", info: info) }
        for j in 1..<max(n, 1) { for i in 0..<j { l[i, j] = 0 } }
        return l
    }

    /// Runs `body` with BLAS limited to one thread: small matrices run faster on one, and callers
    /// that parallelise over folds or examples themselves do not want BLAS to oversubscribe the cores.
    /// The setting is process-wide in OpenBLAS, so nested and concurrent scopes share it; see
    /// ``BLASThreading`` for what an app sees of it.
    static func singleThreaded<T>(_ body: () throws -> T) rethrows -> T {
        BLASThreads.shared.enter()
        defer { BLASThreads.shared.leave() }
        return try body()
    }
}

/// A LAPACK routine reported a failure that depends on the data.
public enum LinalgError: Error, Equatable, CustomStringConvertible {
    /// A Cholesky factorisation found the matrix not positive definite (at this leading minor).
    case notPositiveDefinite(order: Int)
    /// A LAPACK routine returned a nonzero `info`.
    case lapack(routine: String, info: Int)

    public var description: String {
        switch self {
        case .notPositiveDefinite(let k): "matrix is not positive definite (leading minor \(k))"
        case .lapack(let r, let info): "LAPACK \(r) failed with info \(info)"
        }
    }
}

import Foundation
#if canImport(Accelerate)
// Int32, not __CLPK_integer: that type exists only in the legacy LAPACK header; Int32 is the
// LAPACK integer of both interfaces (LP64; ILP64 is not used).
@usableFromInline typealias BlasInt = Int32
@usableFromInline func blasInt(_ x: Int) -> Int32 { Int32(x) }

private func ssyevd(n: Int, a: UnsafeMutablePointer<Float>, w: UnsafeMutablePointer<Float>) -> Int32 {
    var jobz = Int8(UInt8(ascii: "V")), uplo = Int8(UInt8(ascii: "L"))
    var nn = Int32(n), lda = Int32(n), info = Int32(0)
    var lwork = Int32(-1), liwork = Int32(-1)
    var wq: Float = 0
    var iq = Int32(0)
    ssyevd_(&jobz, &uplo, &nn, a, &lda, w, &wq, &lwork, &iq, &liwork, &info)
    guard info == 0 else { return info }
    // The queried size is a Float: above n of about 2,900 it can round below LAPACK's minimum for
    // jobz = V (1 + 6n + 2n², and 3 + 5n integers), which answers info -8.
    lwork = Int32(max(Double(wq).rounded(.up), Double(1 + 6 * n + 2 * n * n)))
    liwork = max(iq, Int32(3 + 5 * n))
    var work = [Float](repeating: 0, count: Int(lwork))
    var iwork = [Int32](repeating: 0, count: Int(liwork))
    ssyevd_(&jobz, &uplo, &nn, a, &lda, w, &work, &lwork, &iwork, &liwork, &info)
    return info
}

private func spotrf(n: Int, a: UnsafeMutablePointer<Float>) -> Int32 {
    var uplo = Int8(UInt8(ascii: "L"))
    var nn = Int32(n), lda = Int32(n), info = Int32(0)
    spotrf_(&uplo, &nn, a, &lda, &info)
    return info
}
#else
@usableFromInline func blasInt(_ x: Int) -> blasint { blasint(x) }

private func ssyevd(n: Int, a: UnsafeMutablePointer<Float>, w: UnsafeMutablePointer<Float>) -> Int32 {
    LAPACKE_ssyevd(LAPACK_COL_MAJOR, Int8(UInt8(ascii: "V")), Int8(UInt8(ascii: "L")),
                   Int32(n), a, Int32(n), w)
}

private func spotrf(n: Int, a: UnsafeMutablePointer<Float>) -> Int32 {
    LAPACKE_spotrf(LAPACK_COL_MAJOR, Int8(UInt8(ascii: "L")), Int32(n), a, Int32(n))
}
#endif
