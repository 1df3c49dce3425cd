// SPRING's column update for one vector width, included by spring.c once per instruction set with
// LANES, SUFFIX and ATTR defined. A group's 8 lanes are 8 / LANES vectors side by side; every
// operation is element-wise, so each lane computes what the scalar loop computes.
#if LANES <= 8
#define SP_CAT_(a, b) a##b
#define SP_CAT(a, b) SP_CAT_(a, b)
#define SVF SP_CAT(svf, SUFFIX)
#define SVI SP_CAT(svi, SUFFIX)

typedef float SVF __attribute__((vector_size(LANES * 4)));
typedef int32_t SVI __attribute__((vector_size(LANES * 4)));

ATTR static inline SVF SP_CAT(loadF, SUFFIX)(const float *p) {
    SVF v;
    memcpy(&v, p, sizeof v);
    return v;
}

ATTR static inline SVI SP_CAT(loadI, SUFFIX)(const int32_t *p) {
    SVI v;
    memcpy(&v, p, sizeof v);
    return v;
}

// One group of 8 templates, `m` cells, advanced by frame x. Ties prefer left, then diag, then up.
ATTR static void SP_CAT(springGroup, SUFFIX)(const float *x, long channels, long m, const float *y, float *d,
                                             int32_t *s, int32_t t) {
    enum { V = 8 / LANES };
    SVF left[V], diag[V];
    SVI leftStart[V], diagStart[V];
    for (int v = 0; v < V; v++) {
        for (int l = 0; l < LANES; l++) {
            left[v][l] = 0;
            diag[v][l] = 0;
            leftStart[v][l] = t;
            diagStart[v][l] = t;
        }
    }
    for (long i = 0; i < m; i++) {
        for (int v = 0; v < V; v++) {
            const long at = i * 8 + v * LANES;
            SVF e = (x[0] - (SVF){0}) - SP_CAT(loadF, SUFFIX)(y + at);
            SVF cost = e * e;
            for (long c = 1; c < channels; c++) {
                e = (x[c] - (SVF){0}) - SP_CAT(loadF, SUFFIX)(y + c * m * 8 + at);
                cost = cost + e * e;
            }
            const SVF up = SP_CAT(loadF, SUFFIX)(d + at);
            const SVI upStart = SP_CAT(loadI, SUFFIX)(s + at);
            const SVI takeUp = (SVI)(up < diag[v]);
            const SVF du = (SVF)(((SVI)up & takeUp) | ((SVI)diag[v] & ~takeUp));
            const SVI duStart = (upStart & takeUp) | (diagStart[v] & ~takeUp);
            const SVI takeDU = (SVI)(du < left[v]);
            const SVF best = (SVF)(((SVI)du & takeDU) | ((SVI)left[v] & ~takeDU));
            const SVI bestStart = (duStart & takeDU) | (leftStart[v] & ~takeDU);
            const SVF value = cost + best;
            memcpy(d + at, &value, sizeof value);
            memcpy(s + at, &bestStart, sizeof bestStart);
            diag[v] = up;
            diagStart[v] = upStart;
            left[v] = value;
            leftStart[v] = bestStart;
        }
    }
}

#undef SVF
#undef SVI
#undef SP_CAT
#undef SP_CAT_
#endif
