// Runs every entry point of Sources/CGestureKernels on fixed inputs and prints each result as the hex
// of its bits, one value a line, so .ci/arm64 can diff an aarch64 build (under qemu) against x86-64.
// Usage: kernels-driver [LANES]: caps the vector width (x86-64 runs it at 4, 8 and 16).
#include "CGestureKernels.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The inputs too must be the same bits everywhere: no fused a * b + c on one machine only.
#pragma STDC FP_CONTRACT OFF
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

// Inputs must be the same bits everywhere: an LCG and exact conversions only (no libm here).
static uint64_t state = 0x9E3779B97F4A7C15ull;

static float uniform(float lo, float hi) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    float unit = (float)(uint32_t)(state >> 40) / 16777216.0f;  // 24 bits: exact in a float
    return lo + (hi - lo) * unit;
}

static void fill(float *p, long count, float lo, float hi) {
    for (long i = 0; i < count; i++) p[i] = uniform(lo, hi);
}

static long printed = 0;

static void put(const char *what, long i, float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    printf("%s %ld %08x\n", what, i, u);
    printed++;
}

static void putAll(const char *what, const float *p, long count) {
    for (long i = 0; i < count; i++) put(what, i, p[i]);
}

static void putLong(const char *what, long i, long v) {
    printf("%s %ld %ld\n", what, i, v);
    printed++;
}

static void *alloc(long floats) {
    void *p = calloc((size_t)(floats > 0 ? floats : 1), sizeof(float));
    if (!p) abort();
    return p;
}

static void dtwCases(void) {
    // n, m, channels, window: equal and unequal lengths, narrow and full bands, lengths around the lane
    // counts (4, 8, 16) so both the vector blocks and the scalar edges run.
    static const long cases[][4] = {{1, 1, 1, 0},   {7, 5, 1, 2},   {16, 16, 2, 3},  {17, 15, 3, 16},
                                    {33, 40, 3, 5}, {50, 37, 4, 0}, {100, 100, 6, 100}, {9, 64, 2, 8}};
    char name[64];
    for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        long n = cases[k][0], m = cases[k][1], ch = cases[k][2], w = cases[k][3];
        float *a = alloc(n * ch), *b = alloc(m * ch), *tail = alloc(n + 1);
        float *scratch = alloc(gk_dtw_scratch_count(n, m, ch));
        fill(a, n * ch, -2, 2);
        fill(b, m * ch, -2, 2);
        snprintf(name, sizeof name, "dtw%u.scratch", k);
        putLong(name, 0, gk_dtw_scratch_count(n, m, ch));
        // tail[i]: rows i..<n each cost at least their cheapest frame of b (a valid lower bound).
        tail[n] = 0;
        for (long i = n - 1; i >= 0; i--) {
            float best = INFINITY;
            for (long j = 0; j < m; j++) {
                float s = 0;
                for (long c = 0; c < ch; c++) {
                    float d = a[c * n + i] - b[c * m + j];
                    s = s + d * d;
                }
                best = s < best ? s : best;
            }
            tail[i] = tail[i + 1] + best;
        }
        float full = gk_dtw_dependent(a, n, b, m, ch, w, INFINITY, NULL, scratch);
        snprintf(name, sizeof name, "dtw%u.dependent", k);
        put(name, 0, full);
        put(name, 1, gk_dtw_dependent(a, n, b, m, ch, w, INFINITY, tail, scratch));
        put(name, 2, gk_dtw_dependent(a, n, b, m, ch, w, full, tail, scratch));         // at the cutoff
        put(name, 3, gk_dtw_dependent(a, n, b, m, ch, w, full * 0.5f, tail, scratch));  // abandoned
        put(name, 4, gk_dtw_dependent(a, n, b, m, ch, w, full * 0.5f, NULL, scratch));
        float indep = gk_dtw_independent(a, n, b, m, ch, w, INFINITY, scratch);
        snprintf(name, sizeof name, "dtw%u.independent", k);
        put(name, 0, indep);
        put(name, 1, gk_dtw_independent(a, n, b, m, ch, w, indep, scratch));
        put(name, 2, gk_dtw_independent(a, n, b, m, ch, w, indep * 0.25f, scratch));
        free(a), free(b), free(tail), free(scratch);
    }
}

static void lstmCases(void) {
    static const long hiddens[] = {1, 5, 13, 32};
    const long batch = 3;
    const long starts[3] = {0, 1, 0};
    char name[64];
    for (unsigned k = 0; k < sizeof hiddens / sizeof hiddens[0]; k++) {
        const long H = hiddens[k], G = 4 * H, ldh = H + 2;
        float *gates = alloc(G * batch), *bias = alloc(G), *cPrev = alloc(H * batch), *c = alloc(H * batch);
        float *tc = alloc(H * batch), *h = alloc(ldh * batch);
        fill(gates, G * batch, -6, 6);
        gates[0] = 120;  // past exp's clamp on both sides
        gates[G * batch - 1] = -120;
        fill(bias, G, -1, 1);
        fill(cPrev, H * batch, -2, 2);
        for (long step = 0; step < 2; step++) {
            float *g = alloc(G * batch);
            memcpy(g, gates, sizeof(float) * G * batch);
            gk_lstm_forward_step(g, bias, H, batch, step ? cPrev : NULL, c, tc, h, ldh, starts, step);
            snprintf(name, sizeof name, "lstm%u.forward%ld.gates", k, step);
            putAll(name, g, G * batch);
            snprintf(name, sizeof name, "lstm%u.forward%ld.c", k, step);
            putAll(name, c, H * batch);
            snprintf(name, sizeof name, "lstm%u.forward%ld.tc", k, step);
            putAll(name, tc, H * batch);
            snprintf(name, sizeof name, "lstm%u.forward%ld.h", k, step);
            putAll(name, h, ldh * batch);
            if (step == 1) {
                float *dhIn = alloc(H * batch), *dhNext = alloc(H * batch), *dcNext = alloc(H * batch);
                float *dGates = alloc(G * batch), *dBias = alloc(G);
                fill(dhIn, H * batch, -1, 1);
                fill(dhNext, H * batch, -1, 1);
                fill(dcNext, H * batch, -1, 1);
                fill(dBias, G, -0.5f, 0.5f);
                gk_lstm_backward_step(g, tc, cPrev, dhIn, dhNext, dcNext, dGates, dBias, H, batch, starts, step);
                snprintf(name, sizeof name, "lstm%u.backward.dGates", k);
                putAll(name, dGates, G * batch);
                snprintf(name, sizeof name, "lstm%u.backward.dBias", k);
                putAll(name, dBias, G);
                snprintf(name, sizeof name, "lstm%u.backward.dcNext", k);
                putAll(name, dcNext, H * batch);
                free(dhIn), free(dhNext), free(dcNext), free(dGates), free(dBias);
            }
            free(g);
        }
        free(gates), free(bias), free(cPrev), free(c), free(tc), free(h);
    }
    // AdamW: counts around the vector widths; three steps so the moments carry over.
    static const long counts[] = {1, 7, 37, 256};
    for (unsigned k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        const long n = counts[k];
        float *theta = alloc(n), *m = alloc(n), *v = alloc(n), *grad = alloc(n), *mask = alloc(n);
        fill(theta, n, -1, 1);
        for (long i = 0; i < n; i++) mask[i] = (float)(i % 3 != 0);
        for (int step = 1; step <= 3; step++) {
            fill(grad, n, -0.1f, 0.1f);
            float c2root = 1.0f - (step == 1 ? 0.999f : step == 2 ? 0.998001f : 0.997003f);
            gk_adamw(theta, m, v, grad, mask, n, 0.9f, 0.999f, 1e-8f, 0.001f, c2root, 1e-4f);
        }
        snprintf(name, sizeof name, "adamw%u.theta", k);
        putAll(name, theta, n);
        snprintf(name, sizeof name, "adamw%u.m", k);
        putAll(name, m, n);
        snprintf(name, sizeof name, "adamw%u.v", k);
        putAll(name, v, n);
        free(theta), free(m), free(v), free(grad), free(mask);
    }
}

static void miniRocketCases(void) {
    char name[64];
    for (long k = 0; k < 84; k++) {
        int three[3];
        gk_minirocket_kernel_indices(k, three);
        putLong("minirocket.taps", k, three[0] * 100 + three[1] * 10 + three[2]);
    }
    // convolve: lengths around the lane counts, dilations whose taps reach past the series.
    static const long sizes[][3] = {{5, 1, 1}, {16, 2, 2}, {50, 3, 5}, {129, 6, 16}};
    static const int chans[] = {2, 0, 1, 5, 3};
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        long n = sizes[s][0], ch = sizes[s][1], d = sizes[s][2];
        float *x = alloc(n * ch), *out = alloc(n), *scratch = alloc(gk_minirocket_scratch_count(n, ch, d));
        fill(x, n * ch, -3, 3);
        snprintf(name, sizeof name, "minirocket%u.scratch", s);
        putLong(name, 0, gk_minirocket_scratch_count(n, ch, d));
        static const long kernels[] = {0, 17, 83};
        for (unsigned k = 0; k < 3; k++) {
            // the first `count` of chans that exist in this series
            int use[5];
            long count = 0;
            for (int i = 0; i < 5; i++)
                if (chans[i] < ch) use[count++] = chans[i];
            const long tries[3] = {count, 1, 0};  // all, one, none (zeros)
            for (int t = 0; t < 3; t++) {
                gk_minirocket_convolve(x, n, ch, d, kernels[k], use, tries[t], scratch, out);
                snprintf(name, sizeof name, "minirocket%u.convolve.k%ld.c%ld", s, kernels[k], tries[t]);
                putAll(name, out, n);
            }
        }
        free(x), free(out), free(scratch);
    }
    // transform: three dilations (the last wider than n / 8, so the unpadded range falls back to all
    // outputs), more than 64 biases for one dilation, channel combinations of 1-3 channels; 5 frames
    // is fewer than a register block of kernels.
    static const long lengths[] = {5, 20, 64, 150};
    for (unsigned s = 0; s < 4; s++) {
        const long n = lengths[s], channels = 3, nd = 3;
        const int dilations[3] = {1, 2, 4}, per[3] = {2, 3, 70};
        int counts[3 * 84], indices[3 * 84 * 3];
        unsigned char padded[3 * 84];
        long total = 0, ni = 0;
        for (long c = 0; c < 3 * 84; c++) {
            counts[c] = 1 + (int)(c % 3);
            for (int i = 0; i < counts[c]; i++) indices[ni++] = (int)((c + i) % channels);
            padded[c] = (unsigned char)(c % 2);
        }
        for (long d = 0; d < nd; d++) total += 84 * per[d];
        float *x = alloc(n * channels), *biases = alloc(total), *out = alloc(total);
        float *scratch = alloc(gk_minirocket_scratch_count(n, channels, 4));
        fill(x, n * channels, -3, 3);
        fill(biases, total, -4, 4);
        gk_minirocket_transform(x, n, channels, nd, dilations, per, counts, indices, padded, biases, scratch, out);
        snprintf(name, sizeof name, "minirocket.transform%u", s);
        putAll(name, out, total);
        float *pools = alloc(4 * total), *multiScratch = alloc(gk_minirocket_multi_scratch_count(n, channels, 4));
        gk_minirocket_transform_multi(x, n, channels, nd, dilations, per, counts, indices, padded, biases,
                                      multiScratch, pools);
        snprintf(name, sizeof name, "minirocket.transform_multi%u", s);
        putAll(name, pools, 4 * total);
        free(pools), free(multiScratch);
        free(x), free(biases), free(out), free(scratch);
    }
}

// Order statistics and fitted biases: values from a few levels (ties), zeros of both signs, and
// lengths around the selection's small-sort cut-off.
static void miniRocketFitCases(void) {
    char name[64];
    static const long sizes[] = {1, 7, 24, 25, 100, 315, 1000};
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const long n = sizes[s];
        float *v = alloc(n), *out = alloc(n);
        long *ranks = calloc((size_t)n, sizeof(long));
        void *scratch = calloc((size_t)gk_select_scratch_bytes(n), 1);
        if (!ranks || !scratch) abort();
        for (long i = 0; i < n; i++) {
            const float u = uniform(-4, 4);
            v[i] = i % 5 == 0 ? (float)(long)u : i % 11 == 0 ? -0.0f : u;
            ranks[i] = i;
        }
        snprintf(name, sizeof name, "select%u.status", s);
        putLong(name, 0, gk_select_ranks(v, n, ranks, n, scratch, out));
        snprintf(name, sizeof name, "select%u", s);
        putAll(name, out, n);
        free(v), free(out), free(ranks), free(scratch);
    }
    // Biases: 5 examples of unequal lengths, 3 channels, dilations 1, 2, 4 with 1, 9 and 3 quantiles.
    const long channels = 3, nd = 3, examples = 5;
    const int dilations[3] = {1, 2, 4}, per[3] = {1, 9, 3};
    const long offsets[6] = {0, 40, 90, 130, 200, 236};
    int counts[3 * 84], indices[3 * 84 * 3], draws[3 * 84];
    long ni = 0, total = 0;
    for (long c = 0; c < 3 * 84; c++) {
        counts[c] = 1 + (int)(c % 3);
        for (int i = 0; i < counts[c]; i++) indices[ni++] = (int)((c + i) % channels);
        draws[c] = (int)((c * 7) % examples);
    }
    for (long d = 0; d < nd; d++) total += 84 * per[d];
    float *x = alloc(offsets[examples] * channels), *biases = alloc(total);
    double *positions = calloc((size_t)total, sizeof(double));
    unsigned char unhandled[3 * 84];
    if (!positions) abort();
    fill(x, offsets[examples] * channels, -3, 3);
    for (long i = 0; i < offsets[examples] * channels; i += 9) x[i] = (float)(long)x[i];
    for (long f = 0; f < total; f++) positions[f] = (double)uniform(0, 1);
    putLong("minirocket.fit.skipped", 0,
            gk_minirocket_fit_biases(x, offsets, examples, channels, nd, dilations, per, counts, indices, draws,
                                     positions, biases, unhandled));
    putAll("minirocket.fit.biases", biases, total);
    free(x), free(biases), free(positions);
}

// SPRING column update: 11 templates in two groups of 8 lanes (padding in both), 3 channels, 60
// frames (every fifth a zero frame, so moves tie); distances and starts after every frame.
static void springCases(void) {
    enum { channels = 3, templates = 11, frames = 60 };
    long lengths[templates], groupLengths[2] = {0, 0}, cells[2];
    for (long k = 0; k < templates; k++) {
        lengths[k] = 1 + (k * 7) % 30;
        if (lengths[k] > groupLengths[k / 8]) groupLengths[k / 8] = lengths[k];
    }
    cells[0] = 0;
    cells[1] = groupLengths[0];
    const long total = groupLengths[0] + groupLengths[1];
    float *y = alloc(total * 8 * channels), *d = alloc(total * 8), x[channels];
    int32_t *s = malloc(sizeof(int32_t) * (size_t)(total * 8));
    fill(y, total * 8 * channels, -2, 2);
    for (long i = 0; i < total * 8; i++) d[i] = INFINITY, s[i] = 0;
    char name[64];
    for (int t = 0; t < frames; t++) {
        if (t % 5 == 0) x[0] = x[1] = x[2] = 0;
        else fill(x, channels, -2, 2);
        gk_spring_step(x, channels, 2, groupLengths, cells, y, d, s, t);
        snprintf(name, sizeof name, "spring.d%d", t);
        putAll(name, d, total * 8);
        for (long i = 0; i < total * 8; i++) printf("spring.s%d %ld %08x\n", t, i, (unsigned)s[i]);
        printed += total * 8;
    }
    free(y), free(d), free(s);
}

int main(int argc, char **argv) {
    long lanes = argc > 1 ? atol(argv[1]) : 16;
    gk_dtw_limit_lanes(lanes);
    gk_minirocket_limit_lanes(lanes);
    gk_spring_limit_lanes(lanes);
    dtwCases();
    lstmCases();
    miniRocketCases();
    miniRocketFitCases();
    springCases();
    // Lanes go to stderr: they differ by design, the values must not.
    fprintf(stderr, "lanes: dtw %ld, minirocket %ld, spring %ld; %ld values\n", gk_dtw_lanes(), gk_minirocket_lanes(),
            gk_spring_lanes(), printed);
    return 0;
}
