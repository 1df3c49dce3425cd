// MiniRocket's inner loops for one vector width, included by minirocket.c once per instruction set
// with LANES, SUFFIX and ATTR defined. Every loop is element-wise over time (or an integer count),
// so a lane computes exactly what the scalar tail computes.

// Biases counted per load of stored outputs (registers: a bias and a count each).
#define MR_GROUP 6

// alpha[t] = sum over taps j = 0...8 of -xp[t + (j - 4) d], in tap order (xp is zero-padded).
ATTR static void GK_CAT(alpha, SUFFIX)(const float *xp, long n, long d, float *alpha) {
    long t = 0;
    for (; t + LANES <= n; t += LANES) {
        VF acc = (VF){0};
        for (long j = 0; j < 9; j++) acc = acc + (-GK_CAT(loadF, SUFFIX)(xp + t + (j - 4) * d));
        GK_CAT(storeF, SUFFIX)(alpha + t, acc);
    }
    for (; t < n; t++) {
        float acc = 0;
        for (long j = 0; j < 9; j++) acc = acc + (-xp[t + (j - 4) * d]);
        alpha[t] = acc;
    }
}

// out[t] = x[t] + y[t] (out may be x).
ATTR static void GK_CAT(sum, SUFFIX)(const float *x, const float *y, long n, float *out) {
    long t = 0;
    for (; t + LANES <= n; t += LANES)
        GK_CAT(storeF, SUFFIX)(out + t, GK_CAT(loadF, SUFFIX)(x + t) + GK_CAT(loadF, SUFFIX)(y + t));
    for (; t < n; t++) out[t] = x[t] + y[t];
}

// The convolution at one vector of times: ((alpha[t] + g[t + o0]) + g[t + o1]) + g[t + o2].
ATTR static inline __attribute__((always_inline)) VF GK_CAT(convAt, SUFFIX)(const float *a, const float *g, long o0,
                                                                              long o1, long o2, long t) {
    VF v = GK_CAT(loadF, SUFFIX)(a + t) + GK_CAT(loadF, SUFFIX)(g + t + o0);
    v = v + GK_CAT(loadF, SUFFIX)(g + t + o1);
    return v + GK_CAT(loadF, SUFFIX)(g + t + o2);
}

// c[t] = ((alpha[t] + g[t + o0]) + g[t + o1]) + g[t + o2].
ATTR static void GK_CAT(combine, SUFFIX)(const float *alpha, const float *g, long o0, long o1, long o2, long n,
                                         float *c) {
    long t = 0;
    for (; t + LANES <= n; t += LANES) GK_CAT(storeF, SUFFIX)(c + t, GK_CAT(convAt, SUFFIX)(alpha, g, o0, o1, o2, t));
    for (; t < n; t++) c[t] = ((alpha[t] + g[t + o0]) + g[t + o1]) + g[t + o2];
}

ATTR static inline long GK_CAT(hsum, SUFFIX)(VI a) {
    long total = 0;
    for (int l = 0; l < LANES; l++) total += a[l];
    return total;
}

// out[q] = number of c[0..vecs * LANES) > bias[q], q < nb. Comparison lanes are -1 where true;
// int32 lanes are exact below 2^31 frames.
ATTR static inline __attribute__((always_inline)) void GK_CAT(countBody, SUFFIX)(const float *c, long vecs,
                                                                                 const float *bias, long *out,
                                                                                 const int nb) {
    VF b[MR_GROUP];
    VI acc[MR_GROUP];
    for (int q = 0; q < nb; q++) {
        b[q] = bias[q] - (VF){0};
        acc[q] = (VI){0};
    }
    for (long v = 0; v < vecs; v++) {
        const VF x = GK_CAT(loadF, SUFFIX)(c + v * LANES);
        for (int q = 0; q < nb; q++) acc[q] = acc[q] - (VI)(x > b[q]);
    }
    for (int q = 0; q < nb; q++) out[q] = GK_CAT(hsum, SUFFIX)(acc[q]);
}

// out[q] = number of c[t] > bias[q] for t in [0, n), q < count. c is followed by -infinity up to
// the next multiple of LANES, so whole vectors cover it; up to MR_GROUP biases share each load.
ATTR static void GK_CAT(countAbove, SUFFIX)(const float *c, long n, const float *bias, long count, long *out) {
    const long vecs = (n + LANES - 1) / LANES;
    for (long q = 0; q < count; q += MR_GROUP) {
        switch (count - q < MR_GROUP ? count - q : MR_GROUP) {
#define MR_NB(k) case k: GK_CAT(countBody, SUFFIX)(c, vecs, bias + q, out + q, k); break;
            MR_NB(1) MR_NB(2) MR_NB(3) MR_NB(4) MR_NB(5)
            default: GK_CAT(countBody, SUFFIX)(c, vecs, bias + q, out + q, MR_GROUP);
#undef MR_NB
        }
    }
}

// The convolution and the count in one pass, for nb <= 8 biases: out[q] = number of t in
// [start, start + len) with c[t] > bias[q], without storing c. Only the counted range is computed. The last partial vector is the one ending at the
// range's end, its lanes already counted masked off.
ATTR static inline __attribute__((always_inline)) void GK_CAT(fusedBody, SUFFIX)(
    const float *a, const float *g, long o0, long o1, long o2, long start, long len, const float *bias, long *out,
    const int nb) {
    VF b[8];
    VI acc[8];
    for (int q = 0; q < nb; q++) {
        b[q] = bias[q] - (VF){0};
        acc[q] = (VI){0};
    }
    const long end = start + len;
    long t = start;
    for (; t + 2 * LANES <= end; t += 2 * LANES) {
        const VF v = GK_CAT(convAt, SUFFIX)(a, g, o0, o1, o2, t);
        const VF w = GK_CAT(convAt, SUFFIX)(a, g, o0, o1, o2, t + LANES);
        for (int q = 0; q < nb; q++) acc[q] = acc[q] - ((VI)(v > b[q]) + (VI)(w > b[q]));
    }
    for (; t + LANES <= end; t += LANES) {
        const VF v = GK_CAT(convAt, SUFFIX)(a, g, o0, o1, o2, t);
        for (int q = 0; q < nb; q++) acc[q] = acc[q] - (VI)(v > b[q]);
    }
    if (t < end && len >= LANES) {
        const long skip = LANES - (end - t);
        VI fresh;
        for (int l = 0; l < LANES; l++) fresh[l] = l >= skip ? -1 : 0;
        const VF v = GK_CAT(convAt, SUFFIX)(a, g, o0, o1, o2, end - LANES);
        for (int q = 0; q < nb; q++) acc[q] = acc[q] - ((VI)(v > b[q]) & fresh);
        t = end;
    }
    long tail[8] = {0};
    for (; t < end; t++) {
        const float v = ((a[t] + g[t + o0]) + g[t + o1]) + g[t + o2];
        for (int q = 0; q < nb; q++) tail[q] += v > bias[q];
    }
    for (int q = 0; q < nb; q++) out[q] = GK_CAT(hsum, SUFFIX)(acc[q]) + tail[q];
}

// fusedBody for nb biases (1 to 8, a constant in each copy).
ATTR static void GK_CAT(fused, SUFFIX)(const float *a, const float *g, long o0, long o1, long o2, long start, long len,
                                       const float *bias, long *out, long nb) {
    switch (nb) {
#define MR_NB(k)                                                                        \
    case k:                                                                             \
        GK_CAT(fusedBody, SUFFIX)(a, g, o0, o1, o2, start, len, bias, out, k);          \
        break;
        MR_NB(1) MR_NB(2) MR_NB(3) MR_NB(4) MR_NB(5) MR_NB(6) MR_NB(7)
        default: GK_CAT(fusedBody, SUFFIX)(a, g, o0, o1, o2, start, len, bias, out, 8);
#undef MR_NB
    }
}

#if LANES <= 8
// The outputs of kernels[0..count) (count <= LANES; missing slots 0) at every frame, time-major:
// ct[t * stride + j] for kernel j. Each vector of frames is convAt's (combine's bits); the LANES
// kernels' vectors at one time are transposed in registers, so each frame takes one store, and no
// output goes through memory before it. Needs n >= LANES; the last vector overlaps the one before
// it and rewrites the same values.
ATTR static void GK_CAT(convolveT, SUFFIX)(const MRKernel *kernels, long count, long n, float *ct, long stride) {
    const float *pa[LANES], *p0[LANES], *p1[LANES], *p2[LANES];
    for (long j = 0; j < LANES; j++) {
        const MRKernel *k = kernels + (j < count ? j : 0);
        pa[j] = k->a;
        p0[j] = k->g + k->o0;
        p1[j] = k->g + k->o1;
        p2[j] = k->g + k->o2;
    }
    for (long t0 = 0; t0 < n; t0 += LANES) {
        const long t = t0 + LANES <= n ? t0 : n - LANES;
        VF r[LANES];
        for (int j = 0; j < LANES; j++) {
            VF v = GK_CAT(loadF, SUFFIX)(pa[j] + t) + GK_CAT(loadF, SUFFIX)(p0[j] + t);
            v = v + GK_CAT(loadF, SUFFIX)(p1[j] + t);
            r[j] = j < count ? v + GK_CAT(loadF, SUFFIX)(p2[j] + t) : (VF){0};
        }
#if LANES == 4
        const VF u0 = __builtin_shufflevector(r[0], r[1], 0, 4, 1, 5), u1 = __builtin_shufflevector(r[0], r[1], 2, 6, 3, 7);
        const VF u2 = __builtin_shufflevector(r[2], r[3], 0, 4, 1, 5), u3 = __builtin_shufflevector(r[2], r[3], 2, 6, 3, 7);
        VF o[4] = {__builtin_shufflevector(u0, u2, 0, 1, 4, 5), __builtin_shufflevector(u0, u2, 2, 3, 6, 7),
                    __builtin_shufflevector(u1, u3, 0, 1, 4, 5), __builtin_shufflevector(u1, u3, 2, 3, 6, 7)};
#else
        VF u[8], s[8], o[8];
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
        for (int l = 0; l < LANES; l++) GK_CAT(storeF, SUFFIX)(ct + (t + l) * stride, o[l]);
    }
}
#endif

// poolsT's loop over frames [from, to) for P blocks of LANES kernels (block p at ct + p * LANES),
// counting only the lanes of mask. The blocks are independent chains: two in one loop overlap the
// latency of each one's floating-point sum.
ATTR static inline __attribute__((always_inline)) void GK_CAT(poolSpan, SUFFIX)(
    const float *ct, long stride, long from, long to, const VF *b, const VI *mask, VI *count, VF *total, VU *prefix,
    VI *run, VI *best, const int P) {
    for (long t = from; t < to; t++) {
        for (int p = 0; p < P; p++) {
            const VF v = GK_CAT(loadF, SUFFIX)(ct + t * stride + p * LANES);
            const VI m = (VI)(v > b[p]) & mask[p];
            count[p] = count[p] - m;
            total[p] = total[p] + (VF)((VI)(v - b[p]) & m);
            prefix[p] = prefix[p] + (VU)count[p];
            run[p] = (run[p] - m) & m;
            const VI longer = (VI)(run[p] > best[p]);
            best[p] = (run[p] & longer) | (best[p] & ~longer);
        }
    }
}

// MultiRocket's four pools for P * LANES kernels at once, one kernel per lane: ct holds the outputs
// time-major (ct[t * stride + lane]) and bias one bias per lane. Each lane runs the plain loop over
// time in order (no sum is reassociated), so every width gives a scalar loop's bits. Lanes with
// edge[lane] == 0 count only [edgeLen, n - edgeLen). Per lane: outputs above the bias, the sum of
// (output - bias) over those, the sum of their frame numbers, the longest run of them.
ATTR static inline __attribute__((always_inline)) void GK_CAT(poolsBody, SUFFIX)(
    const float *ct, long stride, long n, long edgeLen, const int32_t *edge, const float *bias, long *above, float *sum,
    long *frameSum, long *longest, const int P) {
    VF b[2], total[2];
    VI edges[2], every[2], count[2], run[2], best[2];
    long frames[2 * LANES] = {0};
    for (int p = 0; p < P; p++) {
        for (int l = 0; l < LANES; l++) {
            b[p][l] = bias[p * LANES + l];
            edges[p][l] = edge[p * LANES + l] ? -1 : 0;
        }
        every[p] = (VI){0} - 1;
        count[p] = run[p] = best[p] = (VI){0};
        total[p] = (VF){0};
    }
    // Per block of L <= 4096 frames, sum over j < L of j m[j] = L c[L - 1] - sum over s < L of c[s],
    // c[s] the count through frame s of the block: one addition a frame instead of a frame counter.
    // Kept modulo 2^32 (unsigned lanes), exact as the true value is below 2^24.
    for (long block = 0; block < n; block += 4096) {
        const long end = block + 4096 < n ? block + 4096 : n;
        VI countBefore[2];
        VU prefix[2];
        for (int p = 0; p < P; p++) {
            countBefore[p] = count[p];
            prefix[p] = (VU){0};
        }
        // The edges (lanes of edge[] only) and the middle (every lane), each clipped to the block.
        const long cut[4] = {0, edgeLen, n - edgeLen, n};
        for (int span = 0; span < 3; span++) {
            const long from = cut[span] > block ? cut[span] : block, to = cut[span + 1] < end ? cut[span + 1] : end;
            if (from >= to) continue;
            if (span == 1)
                GK_CAT(poolSpan, SUFFIX)(ct, stride, from, to, b, every, count, total, prefix, run, best, P);
            else GK_CAT(poolSpan, SUFFIX)(ct, stride, from, to, b, edges, count, total, prefix, run, best, P);
        }
        const uint32_t len = (uint32_t)(end - block);
        for (int p = 0; p < P; p++) {
            const VU within = len * (VU)(count[p] - countBefore[p]) - (prefix[p] - len * (VU)countBefore[p]);
            for (int l = 0; l < LANES; l++)
                frames[p * LANES + l] += (long)within[l] + block * (long)(count[p][l] - countBefore[p][l]);
        }
    }
    for (int p = 0; p < P; p++)
        for (int l = 0; l < LANES; l++) {
            above[p * LANES + l] = count[p][l];
            sum[p * LANES + l] = total[p][l];
            frameSum[p * LANES + l] = frames[p * LANES + l];
            longest[p * LANES + l] = best[p][l];
        }
}

// poolsBody for `blocks` (1 or 2) consecutive blocks of LANES kernels.
ATTR static void GK_CAT(poolsT, SUFFIX)(const float *ct, long stride, long n, long edgeLen, const int32_t *edge,
                                        const float *bias, long *above, float *sum, long *frameSum, long *longest,
                                        long blocks) {
    if (blocks >= 2) GK_CAT(poolsBody, SUFFIX)(ct, stride, n, edgeLen, edge, bias, above, sum, frameSum, longest, 2);
    else GK_CAT(poolsBody, SUFFIX)(ct, stride, n, edgeLen, edge, bias, above, sum, frameSum, longest, 1);
}

#undef MR_GROUP
