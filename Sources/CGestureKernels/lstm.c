#include "gk_lstm.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

// No implicit contraction: every fused multiply-add is written out (GK_LSTM_FMA), so training is
// bit-identical whichever clone runs.
#pragma STDC FP_CONTRACT OFF
#if defined(__GNUC__) && !defined(__clang__)
// GCC ignores the standard pragma (and contracts by default): the same request in its own terms.
#pragma GCC optimize("fp-contract=off")
#endif

// Swift compiles for baseline x86-64 (SSE2) and has no per-function target features, so the wide
// kernels live here, cloned per instruction set and picked once at load time (ELF ifunc). The
// x86-64-v3/v4 levels include FMA.
// Not under ThreadSanitizer: the ifunc resolvers run during relocation, before its runtime
// exists, and their instrumentation crashes the process at load.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GK_LSTM_NO_IFUNC 1
#endif
#endif
#if defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__) && defined(__clang__) && !defined(GK_LSTM_NO_IFUNC)
#define GK_LSTM_DISPATCH __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define GK_LSTM_CLONES 1
#else
#define GK_LSTM_DISPATCH
#endif

// a * b + c. Fused (one rounding, the same bits on every machine) where the build has FMA or clones
// for it: the baseline clone then calls libm's exact fmaf, slow but only on CPUs without FMA. The
// fused exponential measured ~20% faster than separate operations (AVX-512).
#if defined(GK_LSTM_CLONES) || defined(GK_LSTM_NO_IFUNC) || defined(__FMA__) || defined(__aarch64__)
#define GK_LSTM_FMA(a, b, c) fmaf((a), (b), (c))
#else
#define GK_LSTM_FMA(a, b, c) ((a) * (b) + (c))
#endif

#define GK_LSTM_INLINE static inline __attribute__((always_inline))

// The activation loops are long dependency chains per vector: four vectors in flight measured
// ~15% faster than one (eight: slower, registers spill).
#if defined(__clang__)
#define GK_LSTM_INTERLEAVE _Pragma("clang loop interleave_count(4)")
#else
#define GK_LSTM_INTERLEAVE
#endif

// e^x for x clamped to [-87, 88]: the range reduction and polynomial of LSTMMath.exp (Cephes,
// about 2 ulp), with fused multiply-adds where available (the streaming pass agrees to ~1 ulp).
GK_LSTM_INLINE float lstmExp(float x) {
    x = x < -87.0f ? -87.0f : x;
    x = x > 88.0f ? 88.0f : x;
    float shifted = GK_LSTM_FMA(x, 1.44269504f, 12582912.0f);
    float n = shifted - 12582912.0f;
    int32_t bits;
    memcpy(&bits, &shifted, sizeof bits);
    int32_t k = (int32_t)((uint32_t)bits - 0x4B400000u);
    float r = GK_LSTM_FMA(n, 2.1219444e-4f, GK_LSTM_FMA(n, -0.693359375f, x));
    float p = 1.98756915e-4f;
    p = GK_LSTM_FMA(p, r, 1.39819995e-3f);
    p = GK_LSTM_FMA(p, r, 8.3334519e-3f);
    p = GK_LSTM_FMA(p, r, 4.16657959e-2f);
    p = GK_LSTM_FMA(p, r, 1.66666555e-1f);
    p = GK_LSTM_FMA(p, r, 5.00000012e-1f);
    p = GK_LSTM_FMA(p * r, r, r) + 1.0f;
    uint32_t scaleBits = ((uint32_t)k + 127u) << 23;
    float scale;
    memcpy(&scale, &scaleBits, sizeof scale);
    return p * scale;
}

// Square root without errno handling (v >= 0 here), so the loop vectorises.
#if defined(__has_builtin) && __has_builtin(__builtin_elementwise_sqrt)
#define GK_LSTM_SQRT __builtin_elementwise_sqrt
#else
#define GK_LSTM_SQRT sqrtf
#endif

GK_LSTM_INLINE float lstmSigmoid(float x) { return 1.0f / (1.0f + lstmExp(-x)); }

GK_LSTM_INLINE float lstmTanh(float x) { return 1.0f - 2.0f / (lstmExp(2.0f * x) + 1.0f); }

// One column of the forward step (see backwardColumn for why the parameters carry `restrict`).
GK_LSTM_INLINE void forwardColumn(float *restrict a, const float *restrict bias, const float *restrict cPrev,
                                  float *restrict c, float *restrict tc, float *restrict h, long H) {
    GK_LSTM_INTERLEAVE
    for (long j = 0; j < 3 * H; j++) a[j] = lstmSigmoid(a[j] + bias[j]);
    GK_LSTM_INTERLEAVE
    for (long j = 3 * H; j < 4 * H; j++) a[j] = lstmTanh(a[j] + bias[j]);
    const float *gi = a, *gf = a + H, *go = a + 2 * H, *gg = a + 3 * H;
    if (cPrev) {
        for (long j = 0; j < H; j++) c[j] = gf[j] * cPrev[j] + gi[j] * gg[j];
    } else {
        for (long j = 0; j < H; j++) c[j] = gi[j] * gg[j];
    }
    GK_LSTM_INTERLEAVE
    for (long j = 0; j < H; j++) {
        float t = lstmTanh(c[j]);
        tc[j] = t;
        h[j] = go[j] * t;
    }
}

GK_LSTM_DISPATCH
void gk_lstm_forward_step(float *gates, const float *bias, long hidden, long batch, const float *cPrev,
                          float *c, float *tc, float *h, long ldh, const long *starts, long step) {
    const long H = hidden, G = 4 * hidden;
    for (long b = 0; b < batch; b++) {
        float *cb = c + b * H, *tcb = tc + b * H, *hb = h + b * ldh;
        if (step < starts[b]) {
            for (long j = 0; j < H; j++) cb[j] = 0;
            for (long j = 0; j < H; j++) tcb[j] = 0;
            for (long j = 0; j < H; j++) hb[j] = 0;
            continue;
        }
        forwardColumn(gates + b * G, bias, cPrev ? cPrev + b * H : NULL, cb, tcb, hb, H);
    }
}

// One column of the backward step. Parameters, not locals, carry `restrict`: clang then vectorises
// without runtime overlap checks (too many pointers for those).
GK_LSTM_INLINE void backwardColumn(const float *restrict gi, const float *restrict gf, const float *restrict go,
                                   const float *restrict gg, const float *restrict tc, const float *restrict cPrev,
                                   const float *restrict dhIn, const float *restrict dhNext, float *restrict dcNext,
                                   float *restrict dgi, float *restrict dgf, float *restrict dgo, float *restrict dgg,
                                   float *restrict dBias, long H) {
    for (long j = 0; j < H; j++) {
        float dh = dhIn[j] + dhNext[j];
        float t = tc[j], o = go[j], i = gi[j], f = gf[j], g = gg[j];
        float dc = dcNext[j] + dh * o * (1.0f - t * t);
        float di = dc * g * i * (1.0f - i), df = dc * cPrev[j] * f * (1.0f - f);
        float dO = dh * t * o * (1.0f - o), dg = dc * i * (1.0f - g * g);
        dgi[j] = di;
        dgf[j] = df;
        dgo[j] = dO;
        dgg[j] = dg;
        dBias[j] = dBias[j] + di;
        dBias[H + j] = dBias[H + j] + df;
        dBias[2 * H + j] = dBias[2 * H + j] + dO;
        dBias[3 * H + j] = dBias[3 * H + j] + dg;
        dcNext[j] = dc * f;
    }
}

GK_LSTM_DISPATCH
void gk_lstm_backward_step(const float *gates, const float *tc, const float *cPrev, const float *dhIn,
                           const float *dhNext, float *dcNext, float *dGates, float *dBias, long hidden, long batch,
                           const long *starts, long step) {
    const long H = hidden, G = 4 * hidden;
    for (long b = 0; b < batch; b++) {
        float *dg = dGates + b * G;
        if (step < starts[b]) {
            for (long j = 0; j < G; j++) dg[j] = 0;
            continue;
        }
        const float *a = gates + b * G;
        backwardColumn(a, a + H, a + 2 * H, a + 3 * H, tc + b * H, cPrev + b * H, dhIn + b * H, dhNext + b * H,
                       dcNext + b * H, dg, dg + H, dg + 2 * H, dg + 3 * H, dBias, H);
    }
}

GK_LSTM_DISPATCH
void gk_adamw(float *theta, float *m, float *v, const float *gradient, const float *decayMask, long count,
              float beta1, float beta2, float epsilon, float stepSize, float c2root, float decay) {
    float *restrict th = theta, *restrict mm = m, *restrict vv = v;
    const float *restrict g = gradient, *restrict dm = decayMask;
    for (long i = 0; i < count; i++) {
        float gi = g[i];
        float mi = beta1 * mm[i] + (1.0f - beta1) * gi;
        float vi = beta2 * vv[i] + (1.0f - beta2) * gi * gi;
        mm[i] = mi;
        vv[i] = vi;
        float t = th[i];
        t = t - decay * dm[i] * t;
        th[i] = t - stepSize * mi / (GK_LSTM_SQRT(vi) / c2root + epsilon);
    }
}
