import Foundation

/// A small radix-2 FFT for real signals, written for windowed features (no external dependency).
///
/// A real signal of even length N is packed into N/2 complex values (even samples real, odd samples
/// imaginary), transformed with an iterative in-place Cooley-Tukey FFT, and split into the N/2 + 1
/// non-negative-frequency bins. Double precision throughout.
enum RealFFT {
    /// Smallest power of two >= n (1 for n <= 1).
    static func paddedLength(_ n: Int) -> Int {
        var p = 1
        while p < n { p <<= 1 }
        return p
    }

    /// In-place complex FFT (`X[k] = sum x[n] e^{-2 pi i k n / m}`) of `m` values, m a power of two.
    /// - Complexity: O(m log m).
    static func complexFFT(re: UnsafeMutableBufferPointer<Double>, im: UnsafeMutableBufferPointer<Double>, count m: Int) {
        guard m > 1 else { return }
        // Bit-reversal permutation.
        var j = 0
        for i in 1..<m {
            var bit = m >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
        }
        var len = 2
        while len <= m {
            let half = len / 2
            let step = -2 * Double.pi / Double(len)
            for k in 0..<half {
                let wr = cos(step * Double(k)), wi = sin(step * Double(k))
                var start = 0
                while start < m {
                    let a = start + k, b = a + half
                    let tr = re[b] * wr - im[b] * wi
                    let ti = re[b] * wi + im[b] * wr
                    re[b] = re[a] - tr; im[b] = im[a] - ti
                    re[a] += tr; im[a] += ti
                    start += len
                }
            }
            len <<= 1
        }
    }

    /// Power `|X[k]|^2` of bins k = 0 ... n/2 of the real signal `x` (n a power of two) into `power`
    /// (n/2 + 1 values). `scratch` holds at least n values.
    /// - Complexity: O(n log n), no allocation.
    static func powerSpectrum(_ x: UnsafeBufferPointer<Double>, count n: Int,
                              scratch: UnsafeMutableBufferPointer<Double>,
                              power: UnsafeMutableBufferPointer<Double>) {
        precondition(n >= 1 && n & (n - 1) == 0, "RealFFT: \(n) is not a power of two")
        if n == 1 { power[0] = x[0] * x[0]; return }
        let m = n / 2
        let re = UnsafeMutableBufferPointer(rebasing: scratch[0..<m])
        let im = UnsafeMutableBufferPointer(rebasing: scratch[m..<n])
        for k in 0..<m { re[k] = x[2 * k]; im[k] = x[2 * k + 1] }
        complexFFT(re: re, im: im, count: m)
        for k in 0...m {
            let a = k % m, b = (m - k) % m
            // E = (Z[k] + conj Z[m-k]) / 2 is the even samples' spectrum, O = (Z[k] - conj Z[m-k]) / 2i the odd.
            let er = (re[a] + re[b]) / 2, ei = (im[a] - im[b]) / 2
            let or = (im[a] + im[b]) / 2, oi = -(re[a] - re[b]) / 2
            let angle = -2 * Double.pi * Double(k) / Double(n)
            let wr = cos(angle), wi = sin(angle)
            let xr = er + wr * or - wi * oi
            let xi = ei + wr * oi + wi * or
            power[k] = xr * xr + xi * xi
        }
    }
}
