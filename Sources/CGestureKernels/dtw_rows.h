// The row-block DTW kernel for one vector width, included by dtw.c once per instruction set with
// LANES, SUFFIX and ATTR defined.
//
// Lane r of a block holds query row i0 + r; step t handles cell (i0 + r, t - r) in every lane, so a
// step's cells lie on one anti-diagonal and depend only on the two steps before: the cell above is
// the previous step shifted up a lane, the diagonal cell the step before that (shifted too), and the
// cell to the left the previous step itself. The query rows stay in registers and each step loads one
// template vector per channel.

// Lanes move up one (lane r takes lane r - 1); lane 0 takes `first`.
ATTR static inline VF GK_CAT(shiftUp, SUFFIX)(VF v, float first) {
    VF f = (VF){first};
#if LANES == 16
    return __builtin_shufflevector(v, f, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14);
#elif LANES == 8
    return __builtin_shufflevector(v, f, 8, 0, 1, 2, 3, 4, 5, 6);
#else
    return __builtin_shufflevector(v, f, 4, 0, 1, 2);
#endif
}

// Values are never negative, so their bit patterns order like the floats: an integer minimum is
// exact and a single instruction.
ATTR static inline VF GK_CAT(min3, SUFFIX)(VF x, VF y, VF z) {
#if LANES == 4 && defined(GK_X86)
    // Baseline x86-64 has no unsigned 32-bit minimum; minps is exact when nothing is NaN.
    return (VF)_mm_min_ps(_mm_min_ps((__m128)x, (__m128)y), (__m128)z);
#elif defined(__has_builtin) && __has_builtin(__builtin_elementwise_min)
    VU u = __builtin_elementwise_min(__builtin_elementwise_min((VU)x, (VU)y), (VU)z);
    return (VF)u;
#else
    // GCC has no __builtin_elementwise_min: the same unsigned minimum through compare masks.
    VU a = (VU)x, b = (VU)y, c = (VU)z;
    VU lt = (VU)(a < b);
    VU ab = (a & lt) | (b & ~lt);
    lt = (VU)(ab < c);
    return (VF)((ab & lt) | (c & ~lt));
#endif
}

// One block of LANES query rows starting at i0. `ap` is the query (channel stride `as`, +infinity
// past row n), `br` the reversed template (channel stride `bs`, -infinity on both sides), `prev`
// the accumulated costs of row i0 - 1 (index j + 1; +infinity past m), `next` receives row
// i0 + LANES - 1. Returns D(n - 1, m - 1) when the block holds row n - 1.
ATTR static inline __attribute__((always_inline)) float GK_CAT(rowBlock, SUFFIX)(
    const float *restrict ap, long as, long n, const float *restrict br, long bs, long m, const long channels,
    long i0, long w, const int banded, const float *restrict prev, float *restrict next) {
    VF A[8];
    const long held = channels < 8 ? channels : 8;
    for (long ch = 0; ch < held; ch++) A[ch] = GK_CAT(loadF, SUFFIX)(ap + ch * as + i0);
    const VF inf = (VF){} + INFINITY;
    VI twice;
    for (int r = 0; r < LANES; r++) twice[r] = 2 * r;
    long t0 = 0, t1 = m + LANES - 2;
    if (banded) {
        if (i0 - w > t0) t0 = i0 - w;
        if (i0 + 2 * (LANES - 1) + w < t1) t1 = i0 + 2 * (LANES - 1) + w;
    }
    for (long j = 0; j <= m; j++) next[j] = INFINITY;
    const long last = n - 1 - i0, tLast = m - 1 + last;
    float result = INFINITY;
    VF left = inf, diag = GK_CAT(shiftUp, SUFFIX)(inf, prev[t0]);
    for (long t = t0; t <= t1; t++) {
        const float *bt = br + (m - 1 - t);
        VF c = (VF){};
        for (long ch = 0; ch < channels; ch++) {
            VF d = (ch < 8 ? A[ch] : GK_CAT(loadF, SUFFIX)(ap + ch * as + i0)) - GK_CAT(loadF, SUFFIX)(bt + ch * bs);
            c = c + d * d;
        }
        if (banded) {
            VI off = twice + (int32_t)(i0 - t);
            VI out = (off > (int32_t)w) | (off < -(int32_t)w);
            c = (VF)(((VU)c & ~(VU)out) | ((VU)inf & (VU)out));
        }
        VF up = GK_CAT(shiftUp, SUFFIX)(left, prev[t + 1]);
        VF v = c + GK_CAT(min3, SUFFIX)(left, up, diag);
        long j = t - (LANES - 1);
        if (j >= 0 && j < m) next[j + 1] = v[LANES - 1];
        if (t == tLast && last < LANES) result = v[last];
        diag = up;
        left = v;
    }
    return result;
}

// Dependent DTW with the row-block kernel; arguments as `gk_dtw_dependent`, the operands already
// padded by `dependentRows`.
ATTR static float GK_CAT(rows, SUFFIX)(const float *restrict ap, long as, long n, const float *restrict br, long bs,
                                     long m, long channels, long w, float cutoff, const float *restrict tail,
                                     float *restrict prev, float *restrict next, const int check) {
    const int banded = w < (n > m ? n : m) - 1;
    const uint32_t cutoffBits = bitsOf(cutoff);
    float result = INFINITY;
    for (long i0 = 0; i0 < n; i0 += LANES) {
        switch (channels) {
        case 1: result = GK_CAT(rowBlock, SUFFIX)(ap, as, n, br, bs, m, 1, i0, w, banded, prev, next); break;
        case 2: result = GK_CAT(rowBlock, SUFFIX)(ap, as, n, br, bs, m, 2, i0, w, banded, prev, next); break;
        case 3: result = GK_CAT(rowBlock, SUFFIX)(ap, as, n, br, bs, m, 3, i0, w, banded, prev, next); break;
        case 6: result = GK_CAT(rowBlock, SUFFIX)(ap, as, n, br, bs, m, 6, i0, w, banded, prev, next); break;
        default: result = GK_CAT(rowBlock, SUFFIX)(ap, as, n, br, bs, m, channels, i0, w, banded, prev, next); break;
        }
        if (check && i0 + LANES < n) {
            // Every path crosses the block's last row, then the rows after it.
            float rest = tail ? tail[i0 + LANES] : 0;
            uint32_t least = infinityBits;
            for (long j = 1; j <= m; j++) {
                uint32_t b = bitsOf(next[j] + rest);
                least = b < least ? b : least;
            }
            if (least > cutoffBits) return INFINITY;
        }
        float *s = prev;
        prev = next;
        next = s;
    }
    return result;
}

