// MiniRocket's inner loops for one vector width, included by minirocket.c once per instruction set
// with LANES, SUFFIX and ATTR defined. Every loop is element-wise over time (or an integer count),
// so a lane computes exactly what the scalar tail computes.

#define MR_CAT_(a, b) a##b
#define MR_CAT(a, b) MR_CAT_(a, b)
#define MVF MR_CAT(mvf, SUFFIX)
#define MVI MR_CAT(mvi, SUFFIX)

typedef float MVF __attribute__((vector_size(LANES * 4)));
typedef int32_t MVI __attribute__((vector_size(LANES * 4)));

ATTR static inline MVF MR_CAT(mload, SUFFIX)(const float *p) {
    MVF v;
    memcpy(&v, p, sizeof v);
    return v;
}

ATTR static inline void MR_CAT(mstore, SUFFIX)(float *p, MVF v) { memcpy(p, &v, sizeof v); }

// alpha[t] = sum over taps j = 0...8 of -xp[t + (j - 4) d], in tap order (xp is zero-padded).
ATTR static void MR_CAT(alpha, SUFFIX)(const float *xp, long n, long d, float *alpha) {
    long t = 0;
    for (; t + LANES <= n; t += LANES) {
        MVF acc = (MVF){0};
        for (long j = 0; j < 9; j++) acc = acc + (-MR_CAT(mload, SUFFIX)(xp + t + (j - 4) * d));
        MR_CAT(mstore, SUFFIX)(alpha + t, acc);
    }
    for (; t < n; t++) {
        float acc = 0;
        for (long j = 0; j < 9; j++) acc = acc + (-xp[t + (j - 4) * d]);
        alpha[t] = acc;
    }
}

// c[t] (+)= ((alpha[t] + g[t + o0]) + g[t + o1]) + g[t + o2].
ATTR static void MR_CAT(combine, SUFFIX)(const float *alpha, const float *g, long o0, long o1, long o2, long n,
                                         int first, float *c) {
    long t = 0;
    for (; t + LANES <= n; t += LANES) {
        MVF v = MR_CAT(mload, SUFFIX)(alpha + t) + MR_CAT(mload, SUFFIX)(g + t + o0);
        v = v + MR_CAT(mload, SUFFIX)(g + t + o1);
        v = v + MR_CAT(mload, SUFFIX)(g + t + o2);
        if (!first) v = MR_CAT(mload, SUFFIX)(c + t) + v;
        MR_CAT(mstore, SUFFIX)(c + t, v);
    }
    for (; t < n; t++) {
        float v = ((alpha[t] + g[t + o0]) + g[t + o1]) + g[t + o2];
        c[t] = first ? v : c[t] + v;
    }
}

// Number of c[t] > bias for t in [0, n).
ATTR static long MR_CAT(countAbove, SUFFIX)(const float *c, long n, float bias) {
    MVI acc = (MVI){0};
    const MVF b = bias - (MVF){0};
    long t = 0;
    // Comparison lanes are -1 where true; blocks of at most 2^31 keep the int32 lanes exact.
    for (; t + LANES <= n; t += LANES) acc = acc - (MVI)(MR_CAT(mload, SUFFIX)(c + t) > b);
    long count = 0;
    for (int l = 0; l < LANES; l++) count += acc[l];
    for (; t < n; t++) count += c[t] > bias;
    return count;
}

#undef MVF
#undef MVI
