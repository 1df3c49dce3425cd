import CGestureKernels
import RealModule

/// The numeric core of dynamic time warping: accumulated squared-Euclidean cost with a Sakoe-Chiba
/// band and early abandoning, and the lower bounds that prune a nearest-neighbour search. Series are
/// channel-major here (all of channel 0, then all of channel 1, ...) so that the costs along a
/// diagonal are contiguous, vectorisable loops.
///
/// Nothing here allocates: callers hand in the scratch.
@usableFromInline
enum DTWKernel {
    /// The effective half-width of the band between series of lengths `n` and `m`: a requested band
    /// narrower than the length difference would leave no path to the last cell, so it is widened.
    @inlinable
    static func effectiveWindow(_ window: Int?, _ n: Int, _ m: Int) -> Int {
        let diff = abs(n - m)
        guard let window else { return max(n, m) }
        return max(window, diff)
    }

    /// Floats of scratch one distance between a query of `n` frames and a template of `m` frames
    /// needs: both series padded (the template reversed) and two rows of accumulated cost.
    @inlinable
    static func scratchCount(n: Int, m: Int, channels: Int) -> Int {
        gk_dtw_scratch_count(n, m, channels)
    }

    /// Dependent (multichannel) DTW: the local cost of cell (i, j) is the squared Euclidean distance
    /// between frame i of `a` and frame j of `b` over all channels; the result is the minimum sum of
    /// local costs over warping paths inside the band `|i - j| <= window`.
    ///
    /// Returns `.infinity` as soon as a block of rows every path must cross exceeds `cutoff` (early
    /// abandoning), and whenever the distance exceeds `cutoff`.
    ///
    /// The C kernel advances a block of query rows (one per vector lane) along anti-diagonals, whose
    /// cells depend only on the two before; it is built per vector width and the results are
    /// bit-identical on every one.
    ///
    /// - Parameters:
    ///   - a: channel-major `channels x n`.
    ///   - b: channel-major `channels x m`.
    ///   - scratch: at least ``scratchCount(n:m:channels:)`` floats.
    ///   - tail: optional `n + 1` floats, `tail[i]` a lower bound of the cost of rows `i..<n` (the
    ///     UCR suite's cumulative LB_Keogh), so alignments abandon before the cutoff is reached.
    /// - Complexity: O(n * w * channels) time with `w = min(m, 2 * window + 1)`, O(n + m * channels)
    ///   scratch.
    @inlinable
    static func distance(
        a: UnsafePointer<Float>, n: Int, b: UnsafePointer<Float>, m: Int, channels: Int,
        window: Int, cutoff: Float, scratch: UnsafeMutablePointer<Float>, tail: UnsafePointer<Float>? = nil
    ) -> Float {
        gk_dtw_dependent(a, n, b, m, channels, window, cutoff, tail, scratch)
    }

    /// Lanes of the vector kernel in use: 16 (AVX-512), 8 (AVX2) or 4 (SSE2, NEON).
    static var lanes: Int { gk_dtw_lanes() }

    /// Caps the kernel's lanes, for tests that compare the variants; results do not depend on it.
    static func limitLanes(_ lanes: Int) { gk_dtw_limit_lanes(lanes) }

    /// Independent DTW: the sum over channels of one-channel DTW distances, each with its own
    /// warping path. Abandons when the partial sum exceeds `cutoff`.
    /// - Complexity: O(n * w * channels) time, O(n + m) scratch.
    @inlinable
    static func independentDistance(
        a: UnsafePointer<Float>, n: Int, b: UnsafePointer<Float>, m: Int, channels: Int,
        window: Int, cutoff: Float, scratch: UnsafeMutablePointer<Float>
    ) -> Float {
        gk_dtw_independent(a, n, b, m, channels, window, cutoff, scratch)
    }

    /// LB_Kim (first and last frame): every warping path passes through the first and the last
    /// cell, so their local costs bound DTW from below. Valid for both variants.
    /// - Complexity: O(channels).
    @inlinable
    static func lbKim(a: UnsafePointer<Float>, n: Int, b: UnsafePointer<Float>, m: Int, channels: Int) -> Float {
        guard n > 0, m > 0 else { return 0 }
        var s: Float = 0
        for c in 0..<channels {
            let d0 = a[c * n] - b[c * m]
            s = Relaxed.multiplyAdd(d0, d0, s)
            if n > 1 || m > 1 {
                let d1 = a[c * n + n - 1] - b[c * m + m - 1]
                s = Relaxed.multiplyAdd(d1, d1, s)
            }
        }
        return s
    }

    /// Squared Euclidean distance of two equal-length channel-major series: the cost of the diagonal
    /// warping path, hence an upper bound of DTW for any band.
    /// - Complexity: O(n * channels).
    @inlinable
    static func lockStep(a: UnsafePointer<Float>, b: UnsafePointer<Float>, n: Int, channels: Int) -> Float {
        var s: Float = 0
        for k in 0..<(n * channels) {
            let d = a[k] - b[k]
            s = Relaxed.multiplyAdd(d, d, s)
        }
        return s
    }

    /// LB_Keogh of query `a` against the envelope (`upper`, `lower`, channel-major, same length `n`)
    /// of a template: every row i of a warping path meets some template frame inside the band, and
    /// that frame lies inside the envelope, so the squared distance from a[i] to the envelope bounds
    /// the row's cost. Stops summing once `cutoff` is exceeded.
    /// - Complexity: O(n * channels).
    @inlinable
    static func lbKeogh(a: UnsafePointer<Float>, n: Int, upper: UnsafePointer<Float>, lower: UnsafePointer<Float>,
                        channels: Int, cutoff: Float) -> Float {
        var s: Float = 0
        for c in 0..<channels {
            let ac = a + c * n, uc = upper + c * n, lc = lower + c * n
            var part: Float = 0
            for i in 0..<n {
                let x = ac[i]
                let above = max(x - uc[i], 0)
                let below = max(lc[i] - x, 0)
                // At most one of the two is non-zero.
                let d = above + below
                part = Relaxed.multiplyAdd(d, d, part)
            }
            s += part
            if s > cutoff { return s }
        }
        return s
    }

    /// Cumulative LB_Keogh from the end: `tail[i]` = sum over rows `k >= i` of the squared distance
    /// from query frame k to the envelope (`tail[n] = 0`).
    /// - Complexity: O(n * channels).
    @inlinable
    static func keoghTail(a: UnsafePointer<Float>, n: Int, upper: UnsafePointer<Float>, lower: UnsafePointer<Float>,
                          channels: Int, into tail: UnsafeMutablePointer<Float>) {
        for i in 0...n { tail[i] = 0 }
        for c in 0..<channels {
            let ac = a + c * n, uc = upper + c * n, lc = lower + c * n
            for i in 0..<n {
                let x = ac[i]
                let d = max(x - uc[i], 0) + max(lc[i] - x, 0)
                tail[i] = Relaxed.multiplyAdd(d, d, tail[i])
            }
        }
        if n > 1 { for i in stride(from: n - 2, through: 0, by: -1) { tail[i] += tail[i + 1] } }
    }

    /// Upper and lower envelopes of a channel-major series for band half-width `window`.
    /// - Complexity: O(n * window * channels); envelopes are computed once per template at training.
    static func envelope(_ b: UnsafePointer<Float>, n: Int, channels: Int, window: Int,
                         upper: UnsafeMutablePointer<Float>, lower: UnsafeMutablePointer<Float>) {
        for c in 0..<channels {
            let bc = b + c * n
            if window >= n - 1 {
                // Full window: the envelope is the series' range, O(n).
                var u = -Float.infinity, l = Float.infinity
                for j in 0..<n { u = max(u, bc[j]); l = min(l, bc[j]) }
                for i in 0..<n { upper[c * n + i] = u; lower[c * n + i] = l }
                continue
            }
            for i in 0..<n {
                let lo = max(0, i - window), hi = min(n - 1, i + window)
                var u = -Float.infinity, l = Float.infinity
                for j in lo...hi {
                    u = max(u, bc[j])
                    l = min(l, bc[j])
                }
                upper[c * n + i] = u
                lower[c * n + i] = l
            }
        }
    }
}
