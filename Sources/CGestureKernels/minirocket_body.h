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

ATTR static inline long MR_CAT(hsum, SUFFIX)(MVI a) {
    long total = 0;
    for (int l = 0; l < LANES; l++) total += a[l];
    return total;
}

// out[q] = number of c[t] > bias[q] for t in [0, n), q < count. c is followed by -infinity up to
// the next multiple of LANES, so whole vectors cover it; four biases share each load.
// Comparison lanes are -1 where true; int32 lanes are exact below 2^31 frames.
ATTR static void MR_CAT(countAbove, SUFFIX)(const float *c, long n, const float *bias, long count, long *out) {
    const long vecs = (n + LANES - 1) / LANES;
    long q = 0;
    for (; q + 4 <= count; q += 4) {
        const MVF b0 = bias[q] - (MVF){0}, b1 = bias[q + 1] - (MVF){0};
        const MVF b2 = bias[q + 2] - (MVF){0}, b3 = bias[q + 3] - (MVF){0};
        MVI a0 = (MVI){0}, a1 = (MVI){0}, a2 = (MVI){0}, a3 = (MVI){0};
        for (long v = 0; v < vecs; v++) {
            const MVF x = MR_CAT(mload, SUFFIX)(c + v * LANES);
            a0 = a0 - (MVI)(x > b0);
            a1 = a1 - (MVI)(x > b1);
            a2 = a2 - (MVI)(x > b2);
            a3 = a3 - (MVI)(x > b3);
        }
        out[q] = MR_CAT(hsum, SUFFIX)(a0);
        out[q + 1] = MR_CAT(hsum, SUFFIX)(a1);
        out[q + 2] = MR_CAT(hsum, SUFFIX)(a2);
        out[q + 3] = MR_CAT(hsum, SUFFIX)(a3);
    }
    for (; q < count; q++) {
        const MVF b = bias[q] - (MVF){0};
        MVI a = (MVI){0};
        for (long v = 0; v < vecs; v++) a = a - (MVI)(MR_CAT(mload, SUFFIX)(c + v * LANES) > b);
        out[q] = MR_CAT(hsum, SUFFIX)(a);
    }
}


// The convolution at one vector of times: what combine leaves in c after all `count` channels
// (channel rows a[i], g[i]), the same additions in the same order, so the same bits.
ATTR static inline __attribute__((always_inline)) MVF MR_CAT(convAt, SUFFIX)(const float *const *a,
                                                                              const float *const *g, long count,
                                                                              long o0, long o1, long o2, long t) {
    MVF v = MR_CAT(mload, SUFFIX)(a[0] + t) + MR_CAT(mload, SUFFIX)(g[0] + t + o0);
    v = v + MR_CAT(mload, SUFFIX)(g[0] + t + o1);
    v = v + MR_CAT(mload, SUFFIX)(g[0] + t + o2);
    for (long i = 1; i < count; i++) {
        MVF w = MR_CAT(mload, SUFFIX)(a[i] + t) + MR_CAT(mload, SUFFIX)(g[i] + t + o0);
        w = w + MR_CAT(mload, SUFFIX)(g[i] + t + o1);
        w = w + MR_CAT(mload, SUFFIX)(g[i] + t + o2);
        v = v + w;
    }
    return v;
}

// The convolution and the count in one pass, for nb <= 8 biases: out[q] = number of t in
// [start, start + len) with c[t] > bias[q], without storing c. Only the counted range is computed. The last partial vector is the one ending at the
// range's end, its lanes already counted masked off.
ATTR static inline __attribute__((always_inline)) void MR_CAT(fusedBody, SUFFIX)(
    const float *const *a, const float *const *g, long count, long o0, long o1, long o2, long start, long len,
    const float *bias, long *out, const int nb) {
    MVF b[8];
    MVI acc[8];
    for (int q = 0; q < nb; q++) {
        b[q] = bias[q] - (MVF){0};
        acc[q] = (MVI){0};
    }
    const long end = start + len;
    long t = start;
    for (; t + LANES <= end; t += LANES) {
        const MVF v = MR_CAT(convAt, SUFFIX)(a, g, count, o0, o1, o2, t);
        for (int q = 0; q < nb; q++) acc[q] = acc[q] - (MVI)(v > b[q]);
    }
    if (t < end && len >= LANES) {
        const long skip = LANES - (end - t);
        MVI fresh;
        for (int l = 0; l < LANES; l++) fresh[l] = l >= skip ? -1 : 0;
        const MVF v = MR_CAT(convAt, SUFFIX)(a, g, count, o0, o1, o2, end - LANES);
        for (int q = 0; q < nb; q++) acc[q] = acc[q] - ((MVI)(v > b[q]) & fresh);
        t = end;
    }
    long tail[8] = {0};
    for (; t < end; t++) {
        float v = ((a[0][t] + g[0][t + o0]) + g[0][t + o1]) + g[0][t + o2];
        for (long i = 1; i < count; i++) v = v + (((a[i][t] + g[i][t + o0]) + g[i][t + o1]) + g[i][t + o2]);
        for (int q = 0; q < nb; q++) tail[q] += v > bias[q];
    }
    for (int q = 0; q < nb; q++) out[q] = MR_CAT(hsum, SUFFIX)(acc[q]) + tail[q];
}

// fusedBody for nb biases (1 to 8, a constant in each copy, as are 1 to 3 channels: the usual
// counts, whose channel loop then unrolls).
ATTR static void MR_CAT(fused, SUFFIX)(const float *const *a, const float *const *g, long count, long o0, long o1,
                                       long o2, long start, long len, const float *bias, long *out, long nb) {
    switch (nb) {
#define MR_NB(k)                                                                                           \
    case k:                                                                                                \
        if (count == 1) MR_CAT(fusedBody, SUFFIX)(a, g, 1, o0, o1, o2, start, len, bias, out, k);         \
        else if (count == 2) MR_CAT(fusedBody, SUFFIX)(a, g, 2, o0, o1, o2, start, len, bias, out, k);    \
        else if (count == 3) MR_CAT(fusedBody, SUFFIX)(a, g, 3, o0, o1, o2, start, len, bias, out, k);    \
        else MR_CAT(fusedBody, SUFFIX)(a, g, count, o0, o1, o2, start, len, bias, out, k);                \
        break;
        MR_NB(1) MR_NB(2) MR_NB(3) MR_NB(4) MR_NB(5) MR_NB(6) MR_NB(7)
        default: MR_CAT(fusedBody, SUFFIX)(a, g, count, o0, o1, o2, start, len, bias, out, 8);
#undef MR_NB
    }
}

// MultiRocket's four pools for LANES kernels at once, one kernel per lane: ct holds the outputs
// time-major (ct[t * stride + lane]) and b one bias per lane. Each lane runs the plain loop over
// time in order (no sum is reassociated), so every width gives a scalar loop's bits. Lanes with
// edge[lane] == 0 count only [edgeLen, n - edgeLen). Per lane: outputs above the bias, the sum of
// (output - bias) over those, the sum of their frame numbers, the longest run of them.
ATTR static void MR_CAT(poolsT, SUFFIX)(const float *ct, long stride, long n, long edgeLen, const int32_t *edge,
                                        const float *bias, long *above, float *sum, long *frameSum, long *longest) {
    MVF b;
    MVI all;
    for (int l = 0; l < LANES; l++) {
        b[l] = bias[l];
        all[l] = edge[l] ? -1 : 0;
    }
    MVI count = (MVI){0}, run = (MVI){0}, best = (MVI){0};
    MVF total = (MVF){0};
    long frames[LANES] = {0};
    // Frame sums within blocks of 4096 frames fit int32 lanes: sum j < 2^23 per block.
    for (long block = 0; block < n; block += 4096) {
        const long end = block + 4096 < n ? block + 4096 : n;
        const MVI countBefore = count;
        MVI within = (MVI){0}, j = (MVI){0};
        for (long t = block; t < end; t++, j = j + 1) {
            const MVF v = MR_CAT(mload, SUFFIX)(ct + t * stride);
            const MVI inside = t >= edgeLen && t < n - edgeLen ? (MVI){0} - 1 : all;
            const MVI m = (MVI)(v > b) & inside;
            count = count - m;
            total = total + (MVF)((MVI)(v - b) & m);
            within = within + (m & j);
            run = (run - m) & m;
            const MVI longer = (MVI)(run > best);
            best = (run & longer) | (best & ~longer);
        }
        for (int l = 0; l < LANES; l++) frames[l] += (long)within[l] + block * (long)(count[l] - countBefore[l]);
    }
    for (int l = 0; l < LANES; l++) {
        above[l] = count[l];
        sum[l] = total[l];
        frameSum[l] = frames[l];
        longest[l] = best[l];
    }
}

#undef MVF
#undef MVI
