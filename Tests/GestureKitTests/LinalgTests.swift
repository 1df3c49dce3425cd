import Testing
@testable import GestureKit

@Suite struct LinalgTests {
    @Test func gemmMatchesHandComputedProduct() {
        // [1 2; 3 4] * [5 6; 7 8] = [19 22; 43 50]
        let a = Matrix(rowMajor: [[1, 2], [3, 4]])
        let b = Matrix(rowMajor: [[5, 6], [7, 8]])
        #expect(a * b == Matrix(rowMajor: [[19, 22], [43, 50]]))
        var out = Matrix(rows: 0, columns: 0)
        Linalg.gemm(a, b, transposeA: .transpose, into: &out)
        // A^T B = [1 3; 2 4] * [5 6; 7 8] = [26 30; 38 44]
        #expect(out == Matrix(rowMajor: [[26, 30], [38, 44]]))
    }

    @Test func gemvAxpyDot() {
        let a = Matrix(rowMajor: [[1, 2, 3], [4, 5, 6]])
        let x: [Float] = [1, 0, -1]
        var y: [Float] = [10, 20]
        a.values.withUnsafeBufferPointer { pa in
            x.withUnsafeBufferPointer { px in
                y.withUnsafeMutableBufferPointer { py in
                    Linalg.gemv(m: 2, n: 3, alpha: 1, a: pa.baseAddress!, lda: 2, x: px.baseAddress!, beta: 1, y: py.baseAddress!)
                }
            }
        }
        #expect(y == [8, 18])
        var z: [Float] = [1, 1, 1]
        x.withUnsafeBufferPointer { px in z.withUnsafeMutableBufferPointer { Linalg.axpy(3, alpha: 2, x: px.baseAddress!, y: $0.baseAddress!) } }
        #expect(z == [3, 1, -1])
        #expect(Linalg.dot([1, 2, 3], [4, 5, 6]) == 32)
    }

    @Test func symmetricEigenOfKnownMatrix() throws {
        // [2 1; 1 2] has eigenvalues 1 and 3 with eigenvectors (1,-1)/sqrt2 and (1,1)/sqrt2.
        let (w, v) = try Linalg.symmetricEigen(Matrix(rowMajor: [[2, 1], [1, 2]]))
        #expect(abs(w[0] - 1) < 1e-6 && abs(w[1] - 3) < 1e-6)
        let s = Float(0.5).squareRoot()
        #expect(abs(abs(v[0, 1]) - s) < 1e-6 && abs(v[0, 1] - v[1, 1]) < 1e-6)
        #expect(abs(v[0, 0] + v[1, 0]) < 1e-6)
    }

    @Test func choleskyOfKnownMatrix() throws {
        // [4 2; 2 3] = L L^T with L = [2 0; 1 sqrt2].
        let l = try Linalg.cholesky(Matrix(rowMajor: [[4, 2], [2, 3]]))
        #expect(l[0, 0] == 2 && l[1, 0] == 1 && l[0, 1] == 0)
        #expect(abs(l[1, 1] - Float(2).squareRoot()) < 1e-6)
        #expect(throws: LinalgError.notPositiveDefinite(order: 2)) {
            try Linalg.cholesky(Matrix(rowMajor: [[1, 2], [2, 1]]))
        }
    }

    /// A thread count of its own for a ``BLASThreads`` under test, so the process's stays untouched
    /// by tests that run beside others training.
    static func fakeThreads(_ start: Int32) -> (BLASThreads, Locked<Int32>) {
        let count = Locked(start)
        return (BLASThreads(count: { count.withLock { $0 } }, setCount: { n in count.withLock { $0 = n } }), count)
    }

    @Test func trainingScopesLimitToOneThreadAndRestoreTheAppsCount() {
        let (threads, count) = Self.fakeThreads(4)
        threads.enter()
        #expect(count.withLock { $0 } == 1)
        threads.enter()  // nested (or concurrent): the outermost saved 4
        threads.leave()
        #expect(count.withLock { $0 } == 1)
        threads.leave()
        #expect(count.withLock { $0 } == 4)
    }

    @Test func aCountTheAppSetsDuringTrainingIsKept() {
        let (threads, count) = Self.fakeThreads(4)
        threads.enter()
        count.withLock { $0 = 3 }
        threads.leave()
        #expect(count.withLock { $0 } == 3)
    }

    @Test func switchedOffTrainingLeavesTheCountAlone() {
        let (threads, count) = Self.fakeThreads(4)
        threads.isEnabled = false
        threads.enter()
        #expect(count.withLock { $0 } == 4)
        threads.leave()
        #expect(count.withLock { $0 } == 4)
        // Switched off inside a scope: the count that scope set is still restored.
        threads.isEnabled = true
        threads.enter()
        threads.isEnabled = false
        threads.leave()
        #expect(count.withLock { $0 } == 4)
        #expect(BLASThreading.limitsWhileTraining)  // the process's default
    }
}
