// MiniRocket's inner loops for one vector width, included by minirocket.c once per instruction set
// with LANES, SUFFIX and ATTR defined. Every loop is element-wise over time (or an integer count),
// so a lane computes exactly what the scalar tail computes.

#define MR_CAT_(a, b) a##b
#define MR_CAT(a, b) MR_CAT_(a, b)
#define MVF MR_CAT(mvf, SUFFIX)
#define MVI MR_CAT(mvi, SUFFIX)
#define MVU MR_CAT(mvu, SUFFIX)
// Biases counted per load of stored outputs (registers: a bias and a count each).
#define MR_GROUP 6

typedef float MVF __attribute__((vector_size(LANES * 4)));
typedef int32_t MVI __attribute__((vector_size(LANES * 4)));
typedef uint32_t MVU __attribute__((vector_size(LANES * 4)));

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

// out[t] = x[t] + y[t] (out may be x).
ATTR static void MR_CAT(sum, SUFFIX)(const float *x, const float *y, long n, float *out) {
    long t = 0;
    for (; t + LANES <= n; t += LANES)
        MR_CAT(mstore, SUFFIX)(out + t, MR_CAT(mload, SUFFIX)(x + t) + MR_CAT(mload, SUFFIX)(y + t));
    for (; t < n; t++) out[t] = x[t] + y[t];
}

// The convolution at one vector of times: ((alpha[t] + g[t + o0]) + g[t + o1]) + g[t + o2].
ATTR static inline __attribute__((always_inline)) MVF MR_CAT(convAt, SUFFIX)(const float *a, const float *g, long o0,
                                                                              long o1, long o2, long t) {
    MVF v = MR_CAT(mload, SUFFIX)(a + t) + MR_CAT(mload, SUFFIX)(g + t + o0);
    v = v + MR_CAT(mload, SUFFIX)(g + t + o1);
    return v + MR_CAT(mload, SUFFIX)(g + t + o2);
}

// c[t] = ((alpha[t] + g[t + o0]) + g[t + o1]) + g[t + o2].
ATTR static void MR_CAT(combine, SUFFIX)(const float *alpha, const float *g, long o0, long o1, long o2, long n,
                                         float *c) {
    long t = 0;
    for (; t + LANES <= n; t += LANES) MR_CAT(mstore, SUFFIX)(c + t, MR_CAT(convAt, SUFFIX)(alpha, g, o0, o1, o2, t));
    for (; t < n; t++) c[t] = ((alpha[t] + g[t + o0]) + g[t + o1]) + g[t + o2];
}

ATTR static inline long MR_CAT(hsum, SUFFIX)(MVI a) {
    long total = 0;
    for (int l = 0; l < LANES; l++) total += a[l];
    return total;
}

// out[q] = number of c[0..vecs * LANES) > bias[q], q < nb. Comparison lanes are -1 where true;
// int32 lanes are exact below 2^31 frames.
ATTR static inline __attribute__((always_inline)) void MR_CAT(countBody, SUFFIX)(const float *c, long vecs,
                                                                                 const float *bias, long *out,
                                                                                 const int nb) {
    MVF b[MR_GROUP];
    MVI acc[MR_GROUP];
    for (int q = 0; q < nb; q++) {
        b[q] = bias[q] - (MVF){0};
        acc[q] = (MVI){0};
    }
    for (long v = 0; v < vecs; v++) {
        const MVF x = MR_CAT(mload, SUFFIX)(c + v * LANES);
        for (int q = 0; q < nb; q++) acc[q] = acc[q] - (MVI)(x > b[q]);
    }
    for (int q = 0; q < nb; q++) out[q] = MR_CAT(hsum, SUFFIX)(acc[q]);
}

// out[q] = number of c[t] > bias[q] for t in [0, n), q < count. c is followed by -infinity up to
// the next multiple of LANES, so whole vectors cover it; up to MR_GROUP biases share each load.
ATTR static void MR_CAT(countAbove, SUFFIX)(const float *c, long n, const float *bias, long count, long *out) {
    const long vecs = (n + LANES - 1) / LANES;
    for (long q = 0; q < count; q += MR_GROUP) {
        switch (count - q < MR_GROUP ? count - q : MR_GROUP) {
#define MR_NB(k) case k: MR_CAT(countBody, SUFFIX)(c, vecs, bias + q, out + q, k); break;
            MR_NB(1) MR_NB(2) MR_NB(3) MR_NB(4) MR_NB(5)
            default: MR_CAT(countBody, SUFFIX)(c, vecs, bias + q, out + q, MR_GROUP);
#undef MR_NB
        }
    }
}

// The convolution and the count in one pass, for nb <= 8 biases: out[q] = number of t in
// [start, start + len) with c[t] > bias[q], without storing c. Only the counted range is computed. The last partial vector is the one ending at the
// range's end, its lanes already counted masked off.
ATTR static inline __attribute__((always_inline)) void MR_CAT(fusedBody, SUFFIX)(
    const float *a, const float *g, long o0, long o1, long o2, long start, long len, const float *bias, long *out,
    const int nb) {
    MVF b[8];
    MVI acc[8];
    for (int q = 0; q < nb; q++) {
        b[q] = bias[q] - (MVF){0};
        acc[q] = (MVI){0};
    }
    const long end = start + len;
    long t = start;
    for (; t + 2 * LANES <= end; t += 2 * LANES) {
        const MVF v = MR_CAT(convAt, SUFFIX)(a, g, o0, o1, o2, t);
        const MVF w = MR_CAT(convAt, SUFFIX)(a, g, o0, o1, o2, t + LANES);
        for (int q = 0; q < nb; q++) acc[q] = acc[q] - ((MVI)(v > b[q]) + (MVI)(w > b[q]));
    }
    for (; t + LANES <= end; t += LANES) {
        const MVF v = MR_CAT(convAt, SUFFIX)(a, g, o0, o1, o2, t);
        for (int q = 0; q < nb; q++) acc[q] = acc[q] - (MVI)(v > b[q]);
    }
    if (t < end && len >= LANES) {
        const long skip = LANES - (end - t);
        MVI fresh;
        for (int l = 0; l < LANES; l++) fresh[l] = l >= skip ? -1 : 0;
        const MVF v = MR_CAT(convAt, SUFFIX)(a, g, o0, o1, o2, end - LANES);
        for (int q = 0; q < nb; q++) acc[q] = acc[q] - ((MVI)(v > b[q]) & fresh);
        t = end;
    }
    long tail[8] = {0};
    for (; t < end; t++) {
        const float v = ((a[t] + g[t + o0]) + g[t + o1]) + g[t + o2];
        for (int q = 0; q < nb; q++) tail[q] += v > bias[q];
    }
    for (int q = 0; q < nb; q++) out[q] = MR_CAT(hsum, SUFFIX)(acc[q]) + tail[q];
}

// fusedBody for nb biases (1 to 8, a constant in each copy).
ATTR static void MR_CAT(fused, SUFFIX)(const float *a, const float *g, long o0, long o1, long o2, long start, long len,
                                       const float *bias, long *out, long nb) {
    switch (nb) {
#define MR_NB(k)                                                                        \
    case k:                                                                             \
        MR_CAT(fusedBody, SUFFIX)(a, g, o0, o1, o2, start, len, bias, out, k);          \
        break;
        MR_NB(1) MR_NB(2) MR_NB(3) MR_NB(4) MR_NB(5) MR_NB(6) MR_NB(7)
        default: MR_CAT(fusedBody, SUFFIX)(a, g, o0, o1, o2, start, len, bias, out, 8);
#undef MR_NB
    }
}

#if LANES <= 8
// The outputs of kernels[0..count) (count <= LANES; missing slots 0) at every frame, time-major:
// ct[t * stride + j] for kernel j. Each vector of frames is convAt's (combine's bits). Up to 8
// vectors of frames per kernel go to a small tile, then each LANES x LANES block is transposed in
// registers: one store per frame, not one per output. Needs n >= LANES; the last tile overlaps the
// one before it and rewrites the same values.
ATTR static void MR_CAT(convolveT, SUFFIX)(const MRKernel *kernels, long count, long n, float *ct, long stride) {
    float tile[LANES * 8 * LANES];
    const long vecs = n / LANES < 8 ? n / LANES : 8, chunk = vecs * LANES;
    for (long t0 = 0; t0 < n; t0 += chunk) {
        const long t = t0 + chunk <= n ? t0 : n - chunk;
        for (long j = 0; j < LANES; j++) {
            const MRKernel *k = kernels + j;
            float *row = tile + j * 8 * LANES;
            if (j >= count) memset(row, 0, sizeof(float) * (size_t)chunk);
            else
                for (long i = 0; i < vecs; i++)
                    MR_CAT(mstore, SUFFIX)(row + i * LANES,
                                           MR_CAT(convAt, SUFFIX)(k->a, k->g, k->o0, k->o1, k->o2, t + i * LANES));
        }
        for (long i = 0; i < vecs; i++) {
            MVF r[LANES];
            for (int j = 0; j < LANES; j++) r[j] = MR_CAT(mload, SUFFIX)(tile + (j * 8 + i) * LANES);
#if LANES == 4
            const MVF u0 = __builtin_shufflevector(r[0], r[1], 0, 4, 1, 5), u1 = __builtin_shufflevector(r[0], r[1], 2, 6, 3, 7);
            const MVF u2 = __builtin_shufflevector(r[2], r[3], 0, 4, 1, 5), u3 = __builtin_shufflevector(r[2], r[3], 2, 6, 3, 7);
            MVF o[4] = {__builtin_shufflevector(u0, u2, 0, 1, 4, 5), __builtin_shufflevector(u0, u2, 2, 3, 6, 7),
                        __builtin_shufflevector(u1, u3, 0, 1, 4, 5), __builtin_shufflevector(u1, u3, 2, 3, 6, 7)};
#else
            MVF u[8], s[8], o[8];
            for (int p = 0; p < 8; p += 2) {  // pairs of kernels interleaved within each half
                u[p] = __builtin_shufflevector(r[p], r[p + 1], 0, 8, 1, 9, 4, 12, 5, 13);
                u[p + 1] = __builtin_shufflevector(r[p], r[p + 1], 2, 10, 3, 11, 6, 14, 7, 15);
            }
            for (int p = 0; p < 8; p += 4) {  // four kernels at frames (0, 4), (1, 5), (2, 6), (3, 7)
                s[p] = __builtin_shufflevector(u[p], u[p + 2], 0, 1, 8, 9, 4, 5, 12, 13);
                s[p + 1] = __builtin_shufflevector(u[p], u[p + 2], 2, 3, 10, 11, 6, 7, 14, 15);
                s[p + 2] = __builtin_shufflevector(u[p + 1], u[p + 3], 0, 1, 8, 9, 4, 5, 12, 13);
                s[p + 3] = __builtin_shufflevector(u[p + 1], u[p + 3], 2, 3, 10, 11, 6, 7, 14, 15);
            }
            for (int q = 0; q < 4; q++) {  // eight kernels at frame q and at frame q + 4
                o[q] = __builtin_shufflevector(s[q], s[q + 4], 0, 1, 2, 3, 8, 9, 10, 11);
                o[q + 4] = __builtin_shufflevector(s[q], s[q + 4], 4, 5, 6, 7, 12, 13, 14, 15);
            }
#endif
            for (int l = 0; l < LANES; l++) MR_CAT(mstore, SUFFIX)(ct + (t + i * LANES + l) * stride, o[l]);
        }
    }
}
#endif

// poolsT's loop over frames [from, to), counting only the lanes of mask.
ATTR static inline __attribute__((always_inline)) void MR_CAT(poolSpan, SUFFIX)(
    const float *ct, long stride, long from, long to, MVF b, MVI mask, MVI *count, MVF *total, MVU *prefix, MVI *run,
    MVI *best) {
    for (long t = from; t < to; t++) {
        const MVF v = MR_CAT(mload, SUFFIX)(ct + t * stride);
        const MVI m = (MVI)(v > b) & mask;
        *count = *count - m;
        *total = *total + (MVF)((MVI)(v - b) & m);
        *prefix = *prefix + (MVU)*count;
        *run = (*run - m) & m;
        const MVI longer = (MVI)(*run > *best);
        *best = (*run & longer) | (*best & ~longer);
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
    MVI edges;
    for (int l = 0; l < LANES; l++) {
        b[l] = bias[l];
        edges[l] = edge[l] ? -1 : 0;
    }
    const MVI every = (MVI){0} - 1;
    MVI count = (MVI){0}, run = (MVI){0}, best = (MVI){0};
    MVF total = (MVF){0};
    long frames[LANES] = {0};
    // Per block of L <= 4096 frames, sum over j < L of j m[j] = L c[L - 1] - sum over s < L of c[s],
    // c[s] the count through frame s of the block: one addition a frame instead of a frame counter.
    // Kept modulo 2^32 (unsigned lanes), exact as the true value is below 2^24.
    for (long block = 0; block < n; block += 4096) {
        const long end = block + 4096 < n ? block + 4096 : n;
        const MVI countBefore = count;
        MVU prefix = (MVU){0};
        // The edges (lanes of edge[] only) and the middle (every lane), each clipped to the block.
        const long cut[4] = {0, edgeLen, n - edgeLen, n};
        for (int span = 0; span < 3; span++) {
            const long from = cut[span] > block ? cut[span] : block, to = cut[span + 1] < end ? cut[span + 1] : end;
            if (from >= to) continue;
            if (span == 1) MR_CAT(poolSpan, SUFFIX)(ct, stride, from, to, b, every, &count, &total, &prefix, &run, &best);
            else MR_CAT(poolSpan, SUFFIX)(ct, stride, from, to, b, edges, &count, &total, &prefix, &run, &best);
        }
        const uint32_t len = (uint32_t)(end - block);
        const MVU within = len * (MVU)(count - countBefore) - (prefix - len * (MVU)countBefore);
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
#undef MVU
#undef MR_GROUP
