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
            convolveInto(&w, d, k, channel_indices + chanStart, channel_counts[c], lanes);
            chanStart += channel_counts[c];
            long start = 0, len = n;
            if (!padded[c] && n - 8 * d > 0) {
                start = 4 * d;
                len = n - 8 * d;
            }
            float *cs = w.c + start;
            // Outputs past the counted range are not needed again for this kernel.
            for (long t = 0; t < 16; t++) cs[len + t] = -INFINITY;
            long above[64];
            for (long q0 = 0; q0 < per; q0 += 64) {
                const long m = per - q0 < 64 ? per - q0 : 64;
#ifdef GK_X86
                if (lanes == 16) countAbove512(cs, len, biases + f, m, above);
                else if (lanes == 8) countAbove256(cs, len, biases + f, m, above);
                else
#endif
                    countAbove128(cs, len, biases + f, m, above);
                for (long q = 0; q < m; q++, f++) out[f] = (float)((double)above[q] / (double)len);
            }
        }
    }
}
