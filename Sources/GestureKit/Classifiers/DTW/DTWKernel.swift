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

    /// Floats of scratch a distance against a template of `m` frames needs: two rows of `m + 1` and
    /// four cost rows (the kernel advances four query rows at a time).
    @inlinable
    static func scratchCount(_ m: Int) -> Int { 6 * (m + 1) }

    /// Dependent (multichannel) DTW: the local cost of cell (i, j) is the squared Euclidean distance
    /// between frame i of `a` and frame j of `b` over all channels; the result is the minimum sum of
    /// local costs over warping paths inside the band `|i - j| <= window`.
    ///
    /// Returns `.infinity` as soon as every cell of a row exceeds `cutoff` (early abandoning): the
    /// final distance could then only be larger.
    ///
    /// Four query rows are advanced together: their recurrences form one dependency chain per row,
    /// and interleaving them lets the processor overlap the chains instead of waiting on one.
    ///
    /// - Parameters:
    ///   - a: channel-major `channels x n`.
    ///   - b: channel-major `channels x m`.
    ///   - prev, curr: scratch of at least `m + 1` floats each.
    ///   - cost: scratch of at least `4 * (m + 1)` floats.
    ///   - tail: optional `n + 1` floats, `tail[i]` a lower bound of the cost of rows `i..<n` (the
    ///     UCR suite's cumulative LB_Keogh), so alignments abandon before the cutoff is reached.
    /// - Complexity: O(n * w * channels) time with `w = min(m, 2 * window + 1)`, O(m) scratch.
    @inlinable
    static func distance(
        a: UnsafePointer<Float>, n: Int, b: UnsafePointer<Float>, m: Int, channels: Int,
        window: Int, cutoff: Float,
        prev: UnsafeMutablePointer<Float>, curr: UnsafeMutablePointer<Float>, cost: UnsafeMutablePointer<Float>,
        tail: UnsafePointer<Float>? = nil
    ) -> Float {
        guard n > 0, m > 0 else { return n == m ? 0 : .infinity }
        let w = max(window, abs(n - m))
        let inf = Float.infinity
        var p = prev, q = curr
        p[0] = 0
        for j in 1...m { p[j] = inf }
        let stride = m + 1
        let c0 = cost, c1 = cost + stride, c2 = cost + 2 * stride, c3 = cost + 3 * stride
        var i = 0
        while i + 4 <= n {
            let lo = max(0, i - w), hi = min(m - 1, i + 3 + w)
            // Local costs of rows i ... i + 3 over the union of their bands, eight template frames at
            // a time with the four sums in registers (each template value is loaded once per row block).
            var j = lo
            while j + 8 <= hi + 1 {
                var s0 = SIMD8<Float>(), s1 = SIMD8<Float>(), s2 = SIMD8<Float>(), s3 = SIMD8<Float>()
                for ch in 0..<channels {
                    let bv = UnsafeRawPointer(b + ch * m + j).loadUnaligned(as: SIMD8<Float>.self)
                    let x = a + ch * n + i
                    let d0 = SIMD8(repeating: x[0]) - bv, d1 = SIMD8(repeating: x[1]) - bv
                    let d2 = SIMD8(repeating: x[2]) - bv, d3 = SIMD8(repeating: x[3]) - bv
                    s0 += d0 * d0; s1 += d1 * d1; s2 += d2 * d2; s3 += d3 * d3
                }
                UnsafeMutableRawPointer(c0 + j).storeBytes(of: s0, as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(c1 + j).storeBytes(of: s1, as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(c2 + j).storeBytes(of: s2, as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(c3 + j).storeBytes(of: s3, as: SIMD8<Float>.self)
                j += 8
            }
            while j <= hi {
                var s0: Float = 0, s1: Float = 0, s2: Float = 0, s3: Float = 0
                for ch in 0..<channels {
                    let bj = b[ch * m + j], x = a + ch * n + i
                    let d0 = x[0] - bj, d1 = x[1] - bj, d2 = x[2] - bj, d3 = x[3] - bj
                    s0 += d0 * d0; s1 += d1 * d1; s2 += d2 * d2; s3 += d3 * d3
                }
                c0[j] = s0; c1[j] = s1; c2[j] = s2; c3[j] = s3
                j += 1
            }
            // Cells outside a row's own band cost infinity, which keeps the paths inside it.
            for r in 0..<4 {
                let cr = cost + r * stride
                let rlo = max(0, i + r - w), rhi = min(m - 1, i + r + w)
                if rlo > lo { for j in lo..<rlo { cr[j] = inf } }
                if rhi < hi { for j in (rhi + 1)...hi { cr[j] = inf } }
            }
            var l0 = inf, l1 = inf, l2 = inf, l3 = inf
            var rowMin = inf
            q[lo] = inf
            for j in lo...hi {
                let v0 = c0[j] + min(min(p[j], p[j + 1]), l0)
                let v1 = c1[j] + min(min(v0, l0), l1)
                let v2 = c2[j] + min(min(v1, l1), l2)
                let v3 = c3[j] + min(min(v2, l2), l3)
                l0 = v0; l1 = v1; l2 = v2; l3 = v3
                q[j + 1] = v3
                rowMin = min(rowMin, v3)
            }
            if hi + 2 <= m { for j in (hi + 2)...m { q[j] = inf } }
            // Rows still to come cost at least their LB_Keogh share (`tail`, when given).
            if rowMin + (tail?[i + 4] ?? 0) > cutoff { return inf }
            swap(&p, &q)
            i += 4
        }
        while i < n {
            let lo = max(0, i - w), hi = min(m - 1, i + w)
            let x0 = a[i]
            for j in lo...hi { let d = x0 - b[j]; c0[j] = d * d }
            if channels > 1 {
                for ch in 1..<channels {
                    let x = a[ch * n + i], bc = b + ch * m
                    for j in lo...hi { let d = x - bc[j]; c0[j] = Relaxed.multiplyAdd(d, d, c0[j]) }
                }
            }
            var left = inf, rowMin = inf
            q[lo] = inf
            for j in lo...hi {
                let v = c0[j] + min(min(p[j], p[j + 1]), left)
                q[j + 1] = v
                left = v
                rowMin = min(rowMin, v)
            }
            if hi + 2 <= m { for j in (hi + 2)...m { q[j] = inf } }
            if rowMin + (tail?[i + 1] ?? 0) > cutoff { return inf }
            swap(&p, &q)
            i += 1
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
