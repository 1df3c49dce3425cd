/// A dense column-major matrix of `Float`, the layout BLAS and LAPACK expect.
///
/// Element `(i, j)` lives at `values[i + j * rows]`. A row-major `n x d` block (such as
/// ``TimeSeries/values``) is the same memory as a column-major `d x n` matrix, so series can be
/// handed to BLAS without copying by treating them as their transpose.
package struct Matrix: Sendable, Hashable {
    public var rows: Int
    public var columns: Int
    public var values: [Float]

    public init(rows: Int, columns: Int, repeating value: Float = 0) {
        precondition(rows >= 0 && columns >= 0)
        self.rows = rows
        self.columns = columns
        self.values = [Float](repeating: value, count: rows * columns)
    }

    /// - Parameter values: column-major, `rows * columns` elements.
    public init(rows: Int, columns: Int, values: [Float]) {
        precondition(values.count == rows * columns, "Matrix: \(values.count) values for \(rows)x\(columns)")
        self.rows = rows
        self.columns = columns
        self.values = values
    }

    /// Builds a matrix from rows given as arrays (convenient in tests).
    public init(rowMajor rowsOfValues: [[Float]]) {
        let r = rowsOfValues.count
        let c = rowsOfValues.first?.count ?? 0
        var m = Matrix(rows: r, columns: c)
        for i in 0..<r {
            precondition(rowsOfValues[i].count == c, "Matrix: ragged rows")
            for j in 0..<c { m[i, j] = rowsOfValues[i][j] }
        }
        self = m
    }

    public static func identity(_ n: Int) -> Matrix {
        var m = Matrix(rows: n, columns: n)
        for i in 0..<n { m[i, i] = 1 }
        return m
    }

    public subscript(row: Int, column: Int) -> Float {
        get { values[row + column * rows] }
        set { values[row + column * rows] = newValue }
    }

    public var transposed: Matrix {
        var t = Matrix(rows: columns, columns: rows)
        for j in 0..<columns { for i in 0..<rows { t[j, i] = self[i, j] } }
        return t
    }

    /// `self * other` through ``Linalg/gemm``.
    public static func * (lhs: Matrix, rhs: Matrix) -> Matrix {
        precondition(lhs.columns == rhs.rows, "Matrix: \(lhs.rows)x\(lhs.columns) * \(rhs.rows)x\(rhs.columns)")
        var out = Matrix(rows: lhs.rows, columns: rhs.columns)
        Linalg.gemm(lhs, rhs, into: &out)
        return out
    }
}
