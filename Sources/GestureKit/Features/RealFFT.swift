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

    /// In-place complex FFT (`X[k] = sum x[n] e^{-2 pi i k n / m}`) of `m` values, m a power of two,
    /// with twiddles read from tables of `cos`/`sin(-2 pi j / n)` for j = 0 ... n/2, where n = 2m.
    /// - Complexity: O(m log m).
    static func complexFFT(re: UnsafeMutableBufferPointer<Double>, im: UnsafeMutableBufferPointer<Double>, count m: Int,
                           cos wc: UnsafeMutableBufferPointer<Double>, sin ws: UnsafeMutableBufferPointer<Double>) {
        guard m > 1 else { return }
        // Bit-reversal permutation.
        var j = 0
        for i in 1..<m {
            var bit = m >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
        }
        let n = 2 * m
        var len = 2
        while len <= m {
            let half = len / 2
            let stride = n / len  // e^{-2 pi i k / len} = table[k * n / len]
            for k in 0..<half {
                let wr = wc[k * stride], wi = ws[k * stride]
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

    /// `cos` and `sin` of `-2 pi k / n`: the tables' entry k (the C export writes the same values).
    static func twiddle(_ k: Int, of n: Int) -> (cos: Double, sin: Double) {
        let angle = -2 * Double.pi * Double(k) / Double(n)
        return (cos(angle), sin(angle))
    }

    /// Scratch values ``powerSpectrum(_:count:scratch:power:)`` needs for length n.
    static func scratchCount(_ n: Int) -> Int { 2 * n + 2 }

    /// Power `|X[k]|^2` of bins k = 0 ... n/2 of the real signal `x` (n a power of two) into `power`
    /// (n/2 + 1 values). `scratch` holds at least ``scratchCount(_:)`` values; its twiddle tables
    /// are filled unless `twiddlesReady` says an earlier call of the same length left them there.
    /// - Complexity: O(n log n) (plus n + 2 sines and cosines for the tables), no allocation.
    static func powerSpectrum(_ x: UnsafeBufferPointer<Double>, count n: Int,
                              scratch: UnsafeMutableBufferPointer<Double>,
                              power: UnsafeMutableBufferPointer<Double>, twiddlesReady: Bool = false) {
        precondition(n >= 1 && n & (n - 1) == 0, "RealFFT: \(n) is not a power of two")
        precondition(scratch.count >= scratchCount(n) && power.count > n / 2, "RealFFT: buffers too small")
        if n == 1 { power[0] = x[0] * x[0]; return }
        let m = n / 2
        let re = UnsafeMutableBufferPointer(rebasing: scratch[0..<m])
        let im = UnsafeMutableBufferPointer(rebasing: scratch[m..<n])
        let wc = UnsafeMutableBufferPointer(rebasing: scratch[n..<(n + m + 1)])
        let ws = UnsafeMutableBufferPointer(rebasing: scratch[(n + m + 1)..<(n + 2 * m + 2)])
        if !twiddlesReady {
            for k in 0...m { (wc[k], ws[k]) = twiddle(k, of: n) }
        }
        for k in 0..<m { re[k] = x[2 * k]; im[k] = x[2 * k + 1] }
        complexFFT(re: re, im: im, count: m, cos: wc, sin: ws)
        for k in 0...m {
            let a = k % m, b = (m - k) % m
            // E = (Z[k] + conj Z[m-k]) / 2 is the even samples' spectrum, O = (Z[k] - conj Z[m-k]) / 2i the odd.
            let er = (re[a] + re[b]) / 2, ei = (im[a] - im[b]) / 2
            let or = (im[a] + im[b]) / 2, oi = -(re[a] - re[b]) / 2
            let wr = wc[k], wi = ws[k]
            let xr = er + wr * or - wi * oi
            let xi = ei + wr * oi + wi * or
            power[k] = xr * xr + xi * xi
        }
    }
}
