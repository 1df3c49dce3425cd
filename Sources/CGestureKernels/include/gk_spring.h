#ifndef GK_SPRING_H
#define GK_SPRING_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One stream frame `x` (`channels` values) through subsequence DTW (SPRING) of templates held in
/// groups of 8, one template per lane. Group g has `lengths[g]` cells (its longest template; shorter
/// ones are padded and their extra cells ignored) starting at cell `cells[g]`. Cell i of lane j of
/// group g is at (cells[g] + i) * 8 + j in `d` (distances) and `s` (start frames); template values
/// of channel c at ((cells[g] * channels) + c * lengths[g] + i) * 8 + j in `y`. Row -1 is free
/// (distance 0, starting at frame `t`). Per lane, the same operations in the same order as a scalar
/// loop: results do not depend on the vector width.
void gk_spring_step(const float *x, long channels, long groups, const long *lengths, const long *cells,
                    const float *y, float *d, int32_t *s, int32_t t);

/// Lanes of the vector kernel in use: 8 (AVX2 and up) or 4 (SSE2, NEON).
long gk_spring_lanes(void);

/// Caps the kernel's lanes (for tests that compare the variants); results do not depend on it.
void gk_spring_limit_lanes(long lanes);

#ifdef __cplusplus
}
#endif

#endif
