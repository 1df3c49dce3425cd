#include "gk_minirocket.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_prelude.h"

// One kernel of one dilation: the alpha and 3x rows of its channels' sum and its three weight-2
// offsets.
typedef struct {
    const float *a, *g;
    long o0, o1, o2;
} MRKernel;

#define GK_BODY "minirocket_body.h"
#include "per_width.h"

// AVX2 by default: on the development machine (AVX-512 capable) the 16-lane build was slower on
// series of a few hundred frames (about 40 vs 33 ms for UWave TRAIN); tests raise the cap to check it.
enum { defaultLanes = 8 };
static _Atomic long lanesLimit = defaultLanes;

static long vectorLanes(void) { return gk_capped_lanes(lanesLimit); }

long gk_minirocket_lanes(void) { return vectorLanes(); }

void gk_minirocket_limit_lanes(long lanes) { lanesLimit = lanes < 4 ? 4 : lanes; }

// The 84 ways to choose the three taps of weight 2 among nine, in lexicographic order.
static const int kernelTaps[84][3] = {
    {0, 1, 2}, {0, 1, 3}, {0, 1, 4}, {0, 1, 5}, {0, 1, 6}, {0, 1, 7},
    {0, 1, 8}, {0, 2, 3}, {0, 2, 4}, {0, 2, 5}, {0, 2, 6}, {0, 2, 7},
    {0, 2, 8}, {0, 3, 4}, {0, 3, 5}, {0, 3, 6}, {0, 3, 7}, {0, 3, 8},
    {0, 4, 5}, {0, 4, 6}, {0, 4, 7}, {0, 4, 8}, {0, 5, 6}, {0, 5, 7},
    {0, 5, 8}, {0, 6, 7}, {0, 6, 8}, {0, 7, 8}, {1, 2, 3}, {1, 2, 4},
    {1, 2, 5}, {1, 2, 6}, {1, 2, 7}, {1, 2, 8}, {1, 3, 4}, {1, 3, 5},
    {1, 3, 6}, {1, 3, 7}, {1, 3, 8}, {1, 4, 5}, {1, 4, 6}, {1, 4, 7},
    {1, 4, 8}, {1, 5, 6}, {1, 5, 7}, {1, 5, 8}, {1, 6, 7}, {1, 6, 8},
    {1, 7, 8}, {2, 3, 4}, {2, 3, 5}, {2, 3, 6}, {2, 3, 7}, {2, 3, 8},
    {2, 4, 5}, {2, 4, 6}, {2, 4, 7}, {2, 4, 8}, {2, 5, 6}, {2, 5, 7},
    {2, 5, 8}, {2, 6, 7}, {2, 6, 8}, {2, 7, 8}, {3, 4, 5}, {3, 4, 6},
    {3, 4, 7}, {3, 4, 8}, {3, 5, 6}, {3, 5, 7}, {3, 5, 8}, {3, 6, 7},
    {3, 6, 8}, {3, 7, 8}, {4, 5, 6}, {4, 5, 7}, {4, 5, 8}, {4, 6, 7},
    {4, 6, 8}, {4, 7, 8}, {5, 6, 7}, {5, 6, 8}, {5, 7, 8}, {6, 7, 8},
};

void gk_minirocket_kernel_indices(long kernel, int *three) {
    const long k = kernel >= 0 && kernel < 84 ? kernel : 0;
    three[0] = kernelTaps[k][0];
    three[1] = kernelTaps[k][1];
    three[2] = kernelTaps[k][2];
}

// Summed rows of a dilation kept for reuse (a channel tuple recurs among its 84 kernels when the
// series has few channels), then one transient slot per kernel of a block of 8.
enum { cachedRows = 16, rowSlots = cachedRows + 8 };

long gk_minirocket_scratch_count(long n, long channels, long max_dilation) {
    long padded = n + 8 * (max_dilation > 0 ? max_dilation : 1);
    // 16: sentinels after the outputs
    return 2 * channels * padded + channels * n + n + 16 + rowSlots * (n + padded);
}

typedef struct {
    long n, channels, pad, stride;
    float *xp, *g, *alpha, *c, *rows;
} Work;

// The channel tuples whose summed rows are kept, as tupleKey gives them: the 3x row over the whole
// padding (it does not depend on the dilation) and the alpha row of `dilation`.
typedef struct {
    long used;
    uint64_t key[cachedRows];
    long dilation[cachedRows];
} RowCache;

// Up to 7 channels below 255, one byte each after the count; 0 (never cached) for any other tuple.
static inline uint64_t tupleKey(const int *chans, long count) {
    if (count > 7) return 0;
    uint64_t key = (uint64_t)count;
    for (long i = 0; i < count; i++) {
        if (chans[i] < 0 || chans[i] >= 255) return 0;
        key = key << 8 | (uint64_t)(chans[i] + 1);
    }
    return key;
}

// Lays out each channel zero-padded by `pad` on both sides: xp = x, g = 3x (x + x + x rounds once,
// as 3 * x does).
static Work prepare(const float *x, long n, long channels, long max_dilation, float *scratch) {
    Work w;
    w.n = n;
    w.channels = channels;
    w.pad = 4 * (max_dilation > 0 ? max_dilation : 1);
    w.stride = n + 2 * w.pad;
    w.xp = scratch;
    w.g = w.xp + channels * w.stride;
    w.alpha = w.g + channels * w.stride;
    w.c = w.alpha + channels * n;
    w.rows = w.c + n + 16;
    memset(w.xp, 0, sizeof(float) * 2 * channels * w.stride);
    for (long ch = 0; ch < channels; ch++) {
        float *xp = w.xp + ch * w.stride + w.pad, *g = w.g + ch * w.stride + w.pad;
        for (long t = 0; t < n; t++) {
            xp[t] = x[t * channels + ch];
            g[t] = 3.0f * xp[t];
        }
    }
    return w;
}

static void alphaRow(const Work *w, long ch, long d, long lanes) {
    const float *xp = w->xp + ch * w->stride + w->pad;
    float *a = w->alpha + ch * w->n;
#ifdef GK_X86
    if (lanes == 16) alpha512(xp, w->n, d, a);
    else if (lanes == 8) alpha256(xp, w->n, d, a);
    else
#endif
        alpha128(xp, w->n, d, a);
}

static void alphaRows(const Work *w, long d, long lanes) {
    for (long ch = 0; ch < w->channels; ch++) alphaRow(w, ch, d, lanes);
}

static void addRows(const float *x, const float *y, long n, float *out, long lanes) {
#ifdef GK_X86
    if (lanes == 16) sum512(x, y, n, out);
    else if (lanes == 8) sum256(x, y, n, out);
    else
#endif
        sum128(x, y, n, out);
}

// Kernel k at dilation d over the `count` channels `chans`. A multivariate kernel's output is the
// univariate kernel on the sum of its channels, so the channels' alpha rows (of dilation d, which
// must be computed) and 3x rows are summed first, in the order given, into a slot: the rows kept in
// `cache` when the tuple is there or there is room, else transient slot `spare` (below 8). Per
// frame the output is then ((A + G0) + G1) + G2 whatever the channel count.
static MRKernel kernelAt(const Work *w, RowCache *cache, long d, long k, const int *chans, long count, long spare,
                         long lanes) {
    MRKernel kk;
    const int *idx = kernelTaps[k];
    kk.o0 = (idx[0] - 4) * d, kk.o1 = (idx[1] - 4) * d, kk.o2 = (idx[2] - 4) * d;
    if (count == 1) {
        kk.a = w->alpha + chans[0] * w->n;
        kk.g = w->g + chans[0] * w->stride + w->pad;
        return kk;
    }
    const uint64_t key = tupleKey(chans, count);
    long slot = -1;
    for (long r = 0; r < cache->used && key; r++)
        if (cache->key[r] == key) {
            slot = r;
            break;
        }
    // What to sum: both rows for a new tuple, only alpha for a kept one at a new dilation. A kept 3x
    // row covers the whole padding; a transient one the 4d either side that d reads.
    int sumAlpha = 1, sumG = 1;
    long reach = 4 * d;
    if (slot >= 0) {
        sumG = 0;
        sumAlpha = cache->dilation[slot] != d;
        cache->dilation[slot] = d;
    } else if (key && cache->used < cachedRows) {
        slot = cache->used++;
        cache->key[slot] = key;
        cache->dilation[slot] = d;
        reach = w->pad;
    } else {
        slot = cachedRows + spare;
    }
    const long n = w->n, span = n + 2 * reach;
    float *a = w->rows + slot * (n + w->stride), *g = a + n + w->pad;
    kk.a = a;
    kk.g = g;
    if (count <= 0) {
        memset(a, 0, sizeof(float) * (size_t)n);
        memset(g - reach, 0, sizeof(float) * (size_t)span);
        return kk;
    }
    for (long i = 1; i < count; i++) {
        if (sumAlpha) addRows(i == 1 ? w->alpha + chans[0] * n : a, w->alpha + chans[i] * n, n, a, lanes);
        if (sumG)
            addRows(i == 1 ? w->g + chans[0] * w->stride + w->pad - reach : g - reach,
                    w->g + chans[i] * w->stride + w->pad - reach, span, g - reach, lanes);
    }
    return kk;
}

// The kernel's outputs at every frame, into w->c.
static void convolveInto(const Work *w, RowCache *cache, long d, long kernel, const int *chans, long count,
                         long lanes) {
    const MRKernel kk = kernelAt(w, cache, d, kernel, chans, count, 0, lanes);
#ifdef GK_X86
    if (lanes == 16) combine512(kk.a, kk.g, kk.o0, kk.o1, kk.o2, w->n, w->c);
    else if (lanes == 8) combine256(kk.a, kk.g, kk.o0, kk.o1, kk.o2, w->n, w->c);
    else
#endif
        combine128(kk.a, kk.g, kk.o0, kk.o1, kk.o2, w->n, w->c);
}

void gk_minirocket_convolve(const float *x, long n, long channels, long dilation, long kernel, const int *chans,
                            long count, float *scratch, float *out) {
    if (n <= 0) return;
    const long lanes = vectorLanes();
    Work w = prepare(x, n, channels, dilation, scratch);
    alphaRows(&w, dilation, lanes);
    RowCache none = {0};
    convolveInto(&w, &none, dilation, kernel, chans, count, lanes);
    memcpy(out, w.c, sizeof(float) * n);
}

// above / len rounded to float (via double above 2^24 frames), given inv = 1 / (double)len. Up to
// 2^24 frames it multiplies by the reciprocal instead of dividing, with the same result: the double
// product is within 2^-52 (relative) of the quotient, and a quotient of integers up to 2^24 is never
// on, nor within 2^-49 of, a point where rounding to float changes.
static inline float proportion(long above, long len, double inv) {
    return len <= (1L << 24) ? (float)((double)above * inv) : (float)((double)above / (double)len);
}


// out[q] = proportion of cs[0..len) above bias[q], q < count, from stored outputs (cs has room
// for 16 more: outputs past the counted range are not needed again for this kernel).
static void countStored(float *cs, long len, const float *bias, long count, long lanes, float *out) {
    for (long t = 0; t < 16; t++) cs[len + t] = -INFINITY;
    for (long q0 = 0; q0 < count; q0 += 64) {
        const long m = count - q0 < 64 ? count - q0 : 64;
        long above[64];
#ifdef GK_X86
        if (lanes == 16) countAbove512(cs, len, bias + q0, m, above);
        else if (lanes == 8) countAbove256(cs, len, bias + q0, m, above);
        else
#endif
            countAbove128(cs, len, bias + q0, m, above);
        const double inv = 1.0 / (double)len;
        for (long q = 0; q < m; q++) out[q0 + q] = proportion(above[q], len, inv);
    }
}

// Biases over all dilations, 84 kernels each.
static long featureTotal(long num_dilations, const int *features_per_dilation) {
    long total = 0;
    for (long di = 0; di < num_dilations; di++) total += 84 * (long)features_per_dilation[di];
    return total;
}

static long largestDilation(long num_dilations, const int *dilations) {
    long largest = 1;
    for (long di = 0; di < num_dilations; di++)
        if (dilations[di] > largest) largest = dilations[di];
    return largest;
}

void gk_minirocket_transform(const float *x, long n, long channels, long num_dilations, const int *dilations,
                             const int *features_per_dilation, const int *channel_counts, const int *channel_indices,
                             const unsigned char *padded, const float *biases, float *scratch, float *out) {
    if (n <= 0) {
        memset(out, 0, sizeof(float) * featureTotal(num_dilations, features_per_dilation));
        return;
    }
    const long max_dilation = largestDilation(num_dilations, dilations);
    const long lanes = vectorLanes();
    Work w = prepare(x, n, channels, max_dilation, scratch);
    RowCache cache = {0};
    long f = 0, c = 0, chanStart = 0;
    for (long di = 0; di < num_dilations; di++) {
        const long d = dilations[di], per = features_per_dilation[di];
        alphaRows(&w, d, lanes);
        for (long k = 0; k < 84; k++, c++) {
            const long count = channel_counts[c];
            const int *chans = channel_indices + chanStart;
            chanStart += count;
            long start = 0, len = n;
            if (!padded[c] && n - 8 * d > 0) {
                start = 4 * d;
                len = n - 8 * d;
            }
            // Many biases (short windows have dozens per dilation: comparisons dominate): store the
            // outputs, then count.
            if (per < 1 || per > 8) {
                convolveInto(&w, &cache, d, k, chans, count, lanes);
                countStored(w.c + start, len, biases + f, per, lanes, out + f);
                f += per;
                continue;
            }
            // Convolve and count in one pass over the counted range only.
            const MRKernel kk = kernelAt(&w, &cache, d, k, chans, count, 0, lanes);
            long above[8];
#ifdef GK_X86
            if (lanes == 16) fused512(kk.a, kk.g, kk.o0, kk.o1, kk.o2, start, len, biases + f, above, per);
            else if (lanes == 8) fused256(kk.a, kk.g, kk.o0, kk.o1, kk.o2, start, len, biases + f, above, per);
            else
#endif
                fused128(kk.a, kk.g, kk.o0, kk.o1, kk.o2, start, len, biases + f, above, per);
            const double inv = 1.0 / (double)len;
            for (long q = 0; q < per; q++, f++) out[f] = proportion(above[q], len, inv);
        }
    }
}

// Kernels per dilation rounded up to whole vectors of the widest width.
enum { kernelSlots = 96 };

long gk_minirocket_multi_scratch_count(long n, long channels, long max_dilation) {
    return gk_minirocket_scratch_count(n, channels, max_dilation) + (84 + kernelSlots) * (n > 0 ? n : 0) +
           2 * kernelSlots;
}

void gk_minirocket_transform_multi(const float *x, long n, long channels, long num_dilations, const int *dilations,
                                   const int *features_per_dilation, const int *channel_counts,
                                   const int *channel_indices, const unsigned char *padded, const float *biases,
                                   float *scratch, float *out) {
    if (n <= 0) {
        const long total = featureTotal(num_dilations, features_per_dilation);
        for (long i = 0; i < 4 * total; i++) out[i] = i % 4 == 2 ? -1.0f : 0.0f;
        return;
    }
    const long max_dilation = largestDilation(num_dilations, dilations);
    const long lanes = vectorLanes();
    Work w = prepare(x, n, channels, max_dilation, scratch);
    // The 84 outputs of each frame side by side (unused slots 0, their biases +infinity), so one
    // vector holds one frame of several kernels.
    float *ct = scratch + gk_minirocket_scratch_count(n, channels, max_dilation);
    float *bias = ct + kernelSlots * n, *outputs = bias + kernelSlots;
    int32_t edge[kernelSlots];
    MRKernel kernels[8];
    memset(ct, 0, sizeof(float) * (size_t)(kernelSlots * n));
    RowCache cache = {0};
    long f = 0, c = 0, chanStart = 0;
    for (long di = 0; di < num_dilations; di++, c += 84) {
        const long d = dilations[di], per = features_per_dilation[di];
        // Unpadded pairs count only outputs whose taps lie inside the series (all when none do).
        const long edgeLen = n - 8 * d > 0 ? 4 * d : 0;
        alphaRows(&w, d, lanes);
        // Register-transposed blocks of 8 (4 without AVX2) kernels; AVX-512 uses the 8-lane blocks.
        const long block = lanes >= 8 ? 8 : 4;
        const int *chans[84];
        for (long k = 0; k < 84; k++) {
            chans[k] = channel_indices + chanStart;
            chanStart += channel_counts[c + k];
            edge[k] = padded[c + k] ? 1 : 0;
        }
        if (n >= block) {
            for (long k = 0; k < 84; k += block) {
                const long m = 84 - k < block ? 84 - k : block;
                for (long j = 0; j < m; j++)
                    kernels[j] = kernelAt(&w, &cache, d, k + j, chans[k + j], channel_counts[c + k + j], j, lanes);
#ifdef GK_X86
                if (block == 8) convolveT256(kernels, m, n, ct + k, kernelSlots);
                else
#endif
                    convolveT128(kernels, m, n, ct + k, kernelSlots);
            }
        } else {
            // Frames fewer than a block: each kernel's row, then transposed 16 frames at a time
            // (the rows written stay in the first-level cache).
            for (long k = 0; k < 84; k++) {
                Work into = w;
                into.c = outputs + k * n;
                convolveInto(&into, &cache, d, k, chans[k], channel_counts[c + k], lanes);
            }
            for (long t0 = 0; t0 < n; t0 += 16) {
                const long t1 = t0 + 16 < n ? t0 + 16 : n;
                for (long k = 0; k < 84; k++)
                    for (long t = t0; t < t1; t++) ct[t * kernelSlots + k] = outputs[k * n + t];
            }
        }
        for (long k = 84; k < kernelSlots; k++) edge[k] = 1;
        const long slots = lanes == 16 ? 96 : lanes == 8 ? 88 : 84;
        for (long q = 0; q < per; q++) {
            for (long k = 0; k < kernelSlots; k++) bias[k] = k < 84 ? biases[f + k * per + q] : INFINITY;
            long above[kernelSlots], frameSum[kernelSlots], longest[kernelSlots];
            float sum[kernelSlots];
            // Two blocks of kernels per pass over the frames (the last alone when they are odd).
            for (long k = 0; k < slots; k += 2 * lanes) {
                const long blocks = slots - k >= 2 * lanes ? 2 : 1;
#ifdef GK_X86
                if (lanes == 16)
                    poolsT512(ct + k, kernelSlots, n, edgeLen, edge + k, bias + k, above + k, sum + k, frameSum + k,
                              longest + k, blocks);
                else if (lanes == 8)
                    poolsT256(ct + k, kernelSlots, n, edgeLen, edge + k, bias + k, above + k, sum + k, frameSum + k,
                              longest + k, blocks);
                else
#endif
                    poolsT128(ct + k, kernelSlots, n, edgeLen, edge + k, bias + k, above + k, sum + k, frameSum + k,
                              longest + k, blocks);
            }
            const double invWhole = 1.0 / (double)n, invInside = 1.0 / (double)(n - 2 * edgeLen);
            for (long k = 0; k < 84; k++) {
                const long start = edge[k] ? 0 : edgeLen, len = edge[k] ? n : n - 2 * edgeLen;
                float *o = out + 4 * (f + k * per + q);
                const long a = above[k];
                o[0] = proportion(a, len, edge[k] ? invWhole : invInside);
                o[1] = a > 0 ? sum[k] / (float)a : 0.0f;
                o[2] = a > 0 ? (float)((double)(frameSum[k] - start * a) / (double)a) : -1.0f;
                o[3] = (float)longest[k];
            }
        }
        f += 84 * per;
    }
}

// MARK: order statistics for fitting the biases

// Maps a float to a uint32 whose unsigned order is IEEE totalOrder (-0 below +0) on non-NaN values.
static inline uint32_t orderKey(float v) {
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

static void insertionSortByKey(float *a, long n) {
    for (long i = 1; i < n; i++) {
        const float v = a[i];
        const uint32_t k = orderKey(v);
        long j = i;
        for (; j > 0 && orderKey(a[j - 1]) > k; j--) a[j] = a[j - 1];
        a[j] = v;
    }
}

static void siftDown(float *a, long root, long n) {
    for (;;) {
        long child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && orderKey(a[child + 1]) > orderKey(a[child])) child++;
        if (orderKey(a[root]) >= orderKey(a[child])) return;
        const float t = a[root];
        a[root] = a[child];
        a[child] = t;
        root = child;
    }
}

// O(n log n) whatever the data: the fallback when bucketing does not split the values.
static void heapSortByKey(float *a, long n) {
    for (long i = n / 2 - 1; i >= 0; i--) siftDown(a, i, n);
    for (long e = n - 1; e > 0; e--) {
        const float t = a[0];
        a[0] = a[e];
        a[e] = t;
        siftDown(a, 0, e);
    }
}

enum { selectMaxBuckets = 256, selectSmall = 24, selectMaxDepth = 8 };

// out[i] = the value of rank ranks[i] - base in a[0..n) (ranks ascending, all inside the region).
// Buckets the values linearly between their minimum and maximum (a monotone map, so a bucket's rank
// range is exact), moves them into b by bucket, and recurses only into buckets holding a wanted rank,
// with a and b swapped. The minimum and maximum land in different buckets, so every level shrinks.
static void selectIn(float *a, float *b, long n, const long *ranks, long m, float *out, long base,
                     unsigned char *bucketOf, int depth) {
    if (n <= selectSmall) {
        insertionSortByKey(a, n);
        for (long i = 0; i < m; i++) out[i] = a[ranks[i] - base];
        return;
    }
    // Four running minima and maxima (a scalar chain would wait on each compare); no NaN here, so
    // the order does not matter.
    typedef float f4 __attribute__((vector_size(16)));
    typedef int32_t m4 __attribute__((vector_size(16)));
    f4 lo4, hi4;
    memcpy(&lo4, a, sizeof lo4);
    hi4 = lo4;
    long i4 = 4;
    for (; i4 + 4 <= n; i4 += 4) {
        f4 v;
        memcpy(&v, a + i4, sizeof v);
        const m4 below = (m4)(v < lo4), above = (m4)(v > hi4);
        lo4 = (f4)(((m4)v & below) | ((m4)lo4 & ~below));
        hi4 = (f4)(((m4)v & above) | ((m4)hi4 & ~above));
    }
    float mn = lo4[0], mx = hi4[0];
    for (int l = 1; l < 4; l++) {
        mn = lo4[l] < mn ? lo4[l] : mn;
        mx = hi4[l] > mx ? hi4[l] : mx;
    }
    for (; i4 < n; i4++) {
        mn = a[i4] < mn ? a[i4] : mn;
        mx = a[i4] > mx ? a[i4] : mx;
    }
    if (mn == mx) {  // numerically equal: one bit pattern, or zeros of both signs (-0 first)
        long negative = 0;
        for (long i = 0; i < n; i++) negative += orderKey(a[i]) < 0x80000000u;
        for (long i = 0; i < m; i++) out[i] = mn != 0 ? mn : (ranks[i] - base < negative ? -0.0f : 0.0f);
        return;
    }
    if (depth >= selectMaxDepth) {
        heapSortByKey(a, n);
        for (long i = 0; i < m; i++) out[i] = a[ranks[i] - base];
        return;
    }
    long buckets = n / 2 > selectMaxBuckets ? selectMaxBuckets : n / 2;
    const double lo = mn, scale = (double)buckets / ((double)mx - (double)mn);
    const int top = (int)buckets - 1;
    for (long i = 0; i < n; i++) {
        const int j = (int)(((double)a[i] - lo) * scale);
        bucketOf[i] = (unsigned char)(j < top ? j : top);
    }
    long start[selectMaxBuckets + 1], next[selectMaxBuckets];
    memset(start, 0, sizeof(long) * (size_t)(buckets + 1));
    for (long i = 0; i < n; i++) start[bucketOf[i] + 1]++;
    for (long j = 0; j < buckets; j++) {
        start[j + 1] += start[j];
        next[j] = start[j];
    }
    for (long i = 0; i < n; i++) b[next[bucketOf[i]]++] = a[i];
    long j = 0;
    for (long i = 0; i < m;) {
        const long r = ranks[i] - base;
        while (start[j + 1] <= r) j++;
        long k = i + 1;
        while (k < m && ranks[k] - base < start[j + 1]) k++;
        selectIn(b + start[j], a + start[j], start[j + 1] - start[j], ranks + i, k - i, out + i, base + start[j],
                 bucketOf + start[j], depth + 1);
        i = k;
    }
}

long gk_select_scratch_bytes(long n) { return (long)sizeof(float) * n + n + 16; }

int gk_select_ranks(float *values, long n, const long *ranks, long count, void *scratch, float *out) {
    int nan = 0;
    for (long i = 0; i < n; i++) nan |= values[i] != values[i];
    if (nan) return -1;
    for (long i = 0; i < count; i++)
        if (ranks[i] < 0 || ranks[i] >= n || (i > 0 && ranks[i] < ranks[i - 1])) return -1;
    if (count == 0) return 0;
    float *b = (float *)scratch;
    selectIn(values, b, n, ranks, count, out, 0, (unsigned char *)(b + n), 0);
    return 0;
}

// MARK: fitting the biases

static void sortLongs(long *a, long n) {
    for (long i = 1; i < n; i++) {
        const long v = a[i];
        long j = i;
        for (; j > 0 && a[j - 1] > v; j--) a[j] = a[j - 1];
        a[j] = v;
    }
}

static long findRank(const long *ranks, long n, long r) {
    long lo = 0, hi = n - 1;
    while (lo < hi) {
        const long mid = (lo + hi) / 2;
        if (ranks[mid] < r) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

long gk_minirocket_fit_biases(const float *x, const long *frame_offsets, long num_examples, long channels,
                              long num_dilations, const int *dilations, const int *features_per_dilation,
                              const int *channel_counts, const int *channel_indices, const int *examples,
                              const double *positions, float *biases, unsigned char *unhandled) {
    const long combos = 84 * num_dilations;
    long max_n = 1, max_dilation = 1, max_per = 1;
    for (long e = 0; e < num_examples; e++) {
        const long n = frame_offsets[e + 1] - frame_offsets[e];
        max_n = n > max_n ? n : max_n;
    }
    for (long di = 0; di < num_dilations; di++) {
        max_dilation = dilations[di] > max_dilation ? dilations[di] : max_dilation;
        max_per = features_per_dilation[di] > max_per ? features_per_dilation[di] : max_per;
    }
    // Per combination: first channel and first feature; then the combinations ordered by example
    // (a stable counting sort), so each example is laid out once and each of its alpha rows computed
    // once per dilation.
    long *chanStart = malloc(sizeof(long) * (size_t)(3 * combos + num_examples + 1));
    long *ranks = malloc(sizeof(long) * (size_t)(4 * max_per));
    float *values = malloc(sizeof(float) * (size_t)(2 * max_per));
    long *alphaDilation = malloc(sizeof(long) * (size_t)channels);
    float *scratch = malloc(sizeof(float) * (size_t)gk_minirocket_scratch_count(max_n, channels, max_dilation) +
                            (size_t)gk_select_scratch_bytes(max_n));
    if (!chanStart || !ranks || !values || !alphaDilation || !scratch) {
        free(chanStart), free(ranks), free(values), free(alphaDilation), free(scratch);
        return -1;
    }
    long *featStart = chanStart + combos, *order = featStart + combos, *firstOf = order + combos;
    for (long c = 0, ch = 0, f = 0; c < combos; c++) {
        chanStart[c] = ch;
        featStart[c] = f;
        ch += channel_counts[c];
        f += features_per_dilation[c / 84];
    }
    memset(firstOf, 0, sizeof(long) * (size_t)(num_examples + 1));
    for (long c = 0; c < combos; c++) firstOf[examples[c] + 1]++;
    for (long e = 0; e < num_examples; e++) firstOf[e + 1] += firstOf[e];
    for (long c = 0; c < combos; c++) order[firstOf[examples[c]]++] = c;

    const long lanes = vectorLanes();
    const long workFloats = gk_minirocket_scratch_count(max_n, channels, max_dilation);
    float *selectScratch = scratch + workFloats;
    long skipped = 0, current = -1;
    Work w = {0};
    for (long i = 0; i < combos; i++) {
        const long c = order[i], e = examples[c], di = c / 84, k = c % 84, d = dilations[di];
        const long per = features_per_dilation[di];
        if (e != current) {
            const long n = frame_offsets[e + 1] - frame_offsets[e];
            w = prepare(x + frame_offsets[e] * channels, n, channels, max_dilation, scratch);
            for (long ch = 0; ch < channels; ch++) alphaDilation[ch] = -1;
            current = e;
        }
        const int *chans = channel_indices + chanStart[c];
        const long count = channel_counts[c], n = w.n;
        for (long j = 0; j < count; j++)
            if (alphaDilation[chans[j]] != di) {
                alphaRow(&w, chans[j], d, lanes);
                alphaDilation[chans[j]] = di;
            }
        RowCache none = {0};
        convolveInto(&w, &none, d, k, chans, count, lanes);
        // NaN has no place in an order, and the plain sort keeps -0 and +0 in input order where
        // this one puts -0 first: the caller fits these few the plain way.
        int odd = 0;
        for (long t = 0; t < n; t++) {
            uint32_t u;
            memcpy(&u, w.c + t, sizeof u);
            odd |= (w.c[t] != w.c[t]) | (u == 0x80000000u);
        }
        unhandled[c] = (unsigned char)odd;
        if (odd) {
            skipped++;
            continue;
        }
        // numpy's linear quantile: the order statistics at floor(q (n - 1)) and the one above.
        long m = 0;
        for (long q = 0; q < per; q++) {
            const double pos = positions[featStart[c] + q] * (double)(n - 1);
            const long lo = (long)floor(pos);
            ranks[m++] = lo;
            ranks[m++] = lo + 1 < n ? lo + 1 : n - 1;
        }
        sortLongs(ranks, m);
        long u = 0;
        for (long j = 0; j < m; j++)
            if (u == 0 || ranks[j] != ranks[u - 1]) ranks[u++] = ranks[j];
        selectIn(w.c, selectScratch, n, ranks, u, values, 0, (unsigned char *)(selectScratch + n), 0);
        for (long q = 0; q < per; q++) {
            const double pos = positions[featStart[c] + q] * (double)(n - 1);
            const long lo = (long)floor(pos), hi = lo + 1 < n ? lo + 1 : n - 1;
            const double frac = pos - (double)lo;
            const double slo = values[findRank(ranks, u, lo)], shi = values[findRank(ranks, u, hi)];
            biases[featStart[c] + q] = (float)(slo + frac * (shi - slo));
        }
    }
    free(chanStart), free(ranks), free(values), free(alphaDilation), free(scratch);
    return skipped;
}
