import RealModule

/// The numeric core of dynamic time warping: accumulated squared-Euclidean cost with a Sakoe-Chiba
/// band, two rolling rows and early abandoning. Series are channel-major here (all of channel 0, then
/// all of channel 1, ...) so that the local cost of one query frame against a whole row of template
/// frames is a contiguous, vectorisable loop.
///
/// Nothing here allocates: callers hand in scratch of `m + 1` floats for each row and `m` for costs.
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

    /// Dependent (multichannel) DTW: the local cost of cell (i, j) is the squared Euclidean distance
    /// between frame i of `a` and frame j of `b` over all channels; the result is the minimum sum of
    /// local costs over warping paths inside the band `|i - j| <= window`.
    ///
    /// Returns `.infinity` as soon as every cell of a row exceeds `cutoff` (early abandoning): the
    /// final distance could then only be larger.
    ///
    /// - Parameters:
    ///   - a: channel-major `channels x n`.
    ///   - b: channel-major `channels x m`.
    ///   - prev, curr: scratch of at least `m + 1` floats each.
    ///   - cost: scratch of at least `m` floats.
    /// - Complexity: O(n * w * channels) time with `w = min(m, 2 * window + 1)`, O(m) scratch.
    @inlinable
    static func distance(
        a: UnsafePointer<Float>, n: Int, b: UnsafePointer<Float>, m: Int, channels: Int,
        window: Int, cutoff: Float,
        prev: UnsafeMutablePointer<Float>, curr: UnsafeMutablePointer<Float>, cost: UnsafeMutablePointer<Float>
    ) -> Float {
        guard n > 0, m > 0 else { return n == m ? 0 : .infinity }
        let w = max(window, abs(n - m))
        var p = prev, q = curr
        p[0] = 0
        for j in 1...m { p[j] = .infinity }
        q[0] = .infinity
        for i in 0..<n {
            let lo = max(0, i - w), hi = min(m - 1, i + w)
            // Local costs of row i, one channel at a time (contiguous in b).
            let x0 = a[i]
            for j in lo...hi {
                let d = x0 - b[j]
                cost[j] = d * d
            }
            if channels > 1 {
                for c in 1..<channels {
                    let x = a[c * n + i]
                    let bc = b + c * m
                    for j in lo...hi {
                        let d = x - bc[j]
                        cost[j] = Relaxed.multiplyAdd(d, d, cost[j])
                    }
                }
            }
            // Fold the diagonal and upper neighbours into the row first (vectorisable), leaving only
            // the left neighbour on the serial chain: v = min(cost + up, cost + left).
            q[lo] = .infinity
            for j in lo...hi {
                q[j + 1] = cost[j] + min(p[j], p[j + 1])
            }
            var left = Float.infinity
            var rowMin = Float.infinity
            for j in lo...hi {
                let v = min(q[j + 1], cost[j] + left)
                q[j + 1] = v
                left = v
                rowMin = min(rowMin, v)
            }
            if hi + 2 <= m { q[hi + 2] = .infinity }
            if rowMin > cutoff { return .infinity }
            swap(&p, &q)
        }
        return p[m]
    }

    /// Independent DTW: the sum over channels of one-channel DTW distances, each with its own
    /// warping path. Abandons when the partial sum exceeds `cutoff`.
    /// - Complexity: O(n * w * channels) time, O(m) scratch.
    @inlinable
    static func independentDistance(
        a: UnsafePointer<Float>, n: Int, b: UnsafePointer<Float>, m: Int, channels: Int,
        window: Int, cutoff: Float,
        prev: UnsafeMutablePointer<Float>, curr: UnsafeMutablePointer<Float>, cost: UnsafeMutablePointer<Float>
    ) -> Float {
        var total: Float = 0
        for c in 0..<channels {
            let d = distance(a: a + c * n, n: n, b: b + c * m, m: m, channels: 1, window: window,
                             cutoff: cutoff - total, prev: prev, curr: curr, cost: cost)
            total += d
            if total > cutoff { return .infinity }
        }
        return total
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
