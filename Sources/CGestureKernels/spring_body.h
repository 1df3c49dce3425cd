// SPRING's column update for one vector width, included by spring.c once per instruction set with
// LANES, SUFFIX and ATTR defined. A group's 8 lanes are 8 / LANES vectors side by side; every
// operation is element-wise, so each lane computes what the scalar loop computes.
#if LANES <= 8
// One group of 8 templates, `m` cells, advanced by frame x. Ties prefer left, then diag, then up.
ATTR static void GK_CAT(springGroup, SUFFIX)(const float *x, long channels, long m, const float *y, float *d,
                                             int32_t *s, int32_t t) {
    enum { V = 8 / LANES };
    VF left[V], diag[V];
    VI leftStart[V], diagStart[V];
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
            VF e = (x[0] - (VF){0}) - GK_CAT(loadF, SUFFIX)(y + at);
            VF cost = e * e;
            for (long c = 1; c < channels; c++) {
                e = (x[c] - (VF){0}) - GK_CAT(loadF, SUFFIX)(y + c * m * 8 + at);
                cost = cost + e * e;
            }
            const VF up = GK_CAT(loadF, SUFFIX)(d + at);
            const VI upStart = GK_CAT(loadI, SUFFIX)(s + at);
            const VI takeUp = (VI)(up < diag[v]);
            const VF du = (VF)(((VI)up & takeUp) | ((VI)diag[v] & ~takeUp));
            const VI duStart = (upStart & takeUp) | (diagStart[v] & ~takeUp);
            const VI takeDU = (VI)(du < left[v]);
            const VF best = (VF)(((VI)du & takeDU) | ((VI)left[v] & ~takeDU));
            const VI bestStart = (duStart & takeDU) | (leftStart[v] & ~takeDU);
            const VF value = cost + best;
            memcpy(d + at, &value, sizeof value);
            memcpy(s + at, &bestStart, sizeof bestStart);
            diag[v] = up;
            diagStart[v] = upStart;
            left[v] = value;
            leftStart[v] = bestStart;
        }
    }
}

#endif
