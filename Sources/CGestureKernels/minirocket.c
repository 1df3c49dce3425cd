#include "gk_minirocket.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define GK_X86 1
#endif
#include "cpu_lanes.h"

// Separate multiplies and adds on every instruction set: features are bit-identical whichever
// variant runs.
#pragma STDC FP_CONTRACT OFF
#if defined(__GNUC__) && !defined(__clang__)
// GCC ignores the standard pragma (and contracts by default): the same request in its own terms.
#pragma GCC optimize("fp-contract=off")
#endif

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

long gk_minirocket_scratch_count(long n, long channels, long max_dilation) {
    long padded = n + 8 * (max_dilation > 0 ? max_dilation : 1);
    return 2 * channels * padded + channels * n + n + 16;  // 16: sentinels after the outputs
}

typedef struct {
    long n, channels, pad, stride;
    float *xp, *g, *alpha, *c;
} Work;

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

static void alphaRows(const Work *w, long d, long lanes) {
    for (long ch = 0; ch < w->channels; ch++) {
        const float *xp = w->xp + ch * w->stride + w->pad;
        float *a = w->alpha + ch * w->n;
#ifdef GK_X86
        if (lanes == 16) alpha512(xp, w->n, d, a);
        else if (lanes == 8) alpha256(xp, w->n, d, a);
        else
#endif
            alpha128(xp, w->n, d, a);
    }
}

static void convolveInto(const Work *w, long d, long kernel, const int *chans, long count, long lanes) {
    const int *idx = kernelTaps[kernel];
    long o0 = (idx[0] - 4) * d, o1 = (idx[1] - 4) * d, o2 = (idx[2] - 4) * d;
    for (long i = 0; i < count; i++) {
        long ch = chans[i];
        const float *a = w->alpha + ch * w->n, *g = w->g + ch * w->stride + w->pad;
#ifdef GK_X86
        if (lanes == 16) combine512(a, g, o0, o1, o2, w->n, i == 0, w->c);
        else if (lanes == 8) combine256(a, g, o0, o1, o2, w->n, i == 0, w->c);
        else
#endif
            combine128(a, g, o0, o1, o2, w->n, i == 0, w->c);
    }
    if (count <= 0) memset(w->c, 0, sizeof(float) * w->n);
}

void gk_minirocket_convolve(const float *x, long n, long channels, long dilation, long kernel, const int *chans,
                            long count, float *scratch, float *out) {
    if (n <= 0) return;
    const long lanes = vectorLanes();
    Work w = prepare(x, n, channels, dilation, scratch);
    alphaRows(&w, dilation, lanes);
    convolveInto(&w, dilation, kernel, chans, count, lanes);
    memcpy(out, w.c, sizeof(float) * n);
}

// above / len rounded to float. Below 2^24 both are exact floats and the float quotient equals the
// double one rounded to float (double rounding is innocuous for division as 53 >= 2 * 24 + 2), and
// costs a fraction of a double division.
static inline float proportion(long above, long len) {
    return len <= (1L << 24) ? (float)above / (float)len : (float)((double)above / (double)len);
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
        for (long q = 0; q < m; q++) out[q0 + q] = proportion(above[q], len);
    }
}

void gk_minirocket_transform(const float *x, long n, long channels, long num_dilations, const int *dilations,
                             const int *features_per_dilation, const int *channel_counts, const int *channel_indices,
                             const unsigned char *padded, const float *biases, float *scratch, float *out) {
    long total = 0;
    for (long di = 0; di < num_dilations; di++) total += 84 * (long)features_per_dilation[di];
    if (n <= 0) {
        memset(out, 0, sizeof(float) * total);
        return;
    }
    long max_dilation = 1;
    for (long di = 0; di < num_dilations; di++)
        if (dilations[di] > max_dilation) max_dilation = dilations[di];
    const long lanes = vectorLanes();
    Work w = prepare(x, n, channels, max_dilation, scratch);
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
            if (count < 1 || count > 9) {  // not from fit (1 to 9 channels): store, then count
                convolveInto(&w, d, k, chans, count, lanes);
                countStored(w.c + start, len, biases + f, per, lanes, out + f);
                f += per;
                continue;
            }
            // Convolve and count in one pass over the counted range only (most dilations have at
            // most eight biases; past eight, the outputs are stored and the rest counted from them).
            const float *a[9], *g[9];
            for (long i = 0; i < count; i++) {
                a[i] = w.alpha + chans[i] * n;
                g[i] = w.g + chans[i] * w.stride + w.pad;
            }
            const int *idx = kernelTaps[k];
            const long o0 = (idx[0] - 4) * d, o1 = (idx[1] - 4) * d, o2 = (idx[2] - 4) * d;
            const long m = per < 8 ? per : 8;
            long above[8];
            // nb 0 asks for the eight-bias copy that keeps the outputs in w.c.
#ifdef GK_X86
            if (lanes == 16) fused512(a, g, count, o0, o1, o2, start, len, biases + f, above, per > 8 ? 0 : m, w.c);
            else if (lanes == 8) fused256(a, g, count, o0, o1, o2, start, len, biases + f, above, per > 8 ? 0 : m, w.c);
            else
#endif
                fused128(a, g, count, o0, o1, o2, start, len, biases + f, above, per > 8 ? 0 : m, w.c);
            for (long q = 0; q < m; q++, f++) out[f] = proportion(above[q], len);
            if (per > 8) {
                countStored(w.c + start, len, biases + f, per - 8, lanes, out + f);
                f += per - 8;
            }
        }
    }
}
