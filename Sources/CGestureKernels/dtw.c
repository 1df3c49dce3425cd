#include "gk_dtw.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_prelude.h"
#ifdef GK_X86
#include <immintrin.h>
#endif

static const uint32_t infinityBits = 0x7f800000u;

static inline uint32_t bitsOf(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

#define GK_BODY "dtw_rows.h"
#include "per_width.h"

enum { maxLanes = 16 };

static _Atomic long lanesLimit = maxLanes;

static long vectorLanes(void) { return gk_capped_lanes(lanesLimit); }

long gk_dtw_lanes(void) { return vectorLanes(); }

void gk_dtw_limit_lanes(long lanes) { lanesLimit = lanes < 4 ? 4 : lanes; }

long gk_dtw_scratch_count(long n, long m, long channels) {
    return (n + maxLanes) * channels + (m + 2 * maxLanes) * channels + 2 * (m + maxLanes + 1);
}

// Pads the operands into `scratch` (see `rowBlock`) and runs the widest kernel the processor has.
float gk_dtw_dependent(const float *a, long n, const float *b, long m, long channels, long window, float cutoff,
                       const float *tail, float *scratch) {
    if (n <= 0 || m <= 0) return n == m ? 0.0f : INFINITY;
    if (!(cutoff >= 0)) return INFINITY;
    long w = window > labs(n - m) ? window : labs(n - m);
    const long lanes = vectorLanes();
    long as = n + lanes, bs = m + 2 * lanes;
    float *ap = scratch, *br = ap + as * channels, *prev = br + bs * channels, *next = prev + m + lanes + 1;
    for (long ch = 0; ch < channels; ch++) {
        const float *ac = a + ch * n, *bc = b + ch * m;
        float *pa = ap + ch * as, *rb = br + ch * bs;
        for (long t = 0; t < n; t++) pa[t] = ac[t];
        for (long t = n; t < as; t++) pa[t] = INFINITY;
        for (long t = 0; t < lanes; t++) {
            rb[t] = -INFINITY;
            rb[lanes + m + t] = -INFINITY;
        }
        for (long t = 0; t < m; t++) rb[lanes + t] = bc[m - 1 - t];
    }
    for (long j = 0; j < m + lanes + 1; j++) {
        prev[j] = INFINITY;
        next[j] = INFINITY;
    }
    prev[0] = 0;  // the cell before (0, 0)
    const int check = cutoff != INFINITY;
    float d;
#ifdef GK_X86
    if (lanes == 16) d = rows512(ap, as, n, br + lanes, bs, m, channels, w, cutoff, tail, prev, next, check);
    else if (lanes == 8) d = rows256(ap, as, n, br + lanes, bs, m, channels, w, cutoff, tail, prev, next, check);
    else
#endif
        d = rows128(ap, as, n, br + lanes, bs, m, channels, w, cutoff, tail, prev, next, check);
    return d > cutoff ? INFINITY : d;
}

float gk_dtw_independent(const float *a, long n, const float *b, long m, long channels, long window, float cutoff,
                         float *scratch) {
    float total = 0;
    for (long ch = 0; ch < channels; ch++) {
        total += gk_dtw_dependent(a + ch * n, n, b + ch * m, m, 1, window, cutoff - total, NULL, scratch);
        if (total > cutoff) return INFINITY;
    }
    return total;
}
