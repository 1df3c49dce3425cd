#include "gk_spring.h"

#include <stdint.h>
#include <string.h>

// Distances equal the scalar Swift column's (see kernel_prelude.h: no fused multiply-adds).
#include "kernel_prelude.h"

#define GK_BODY "spring_body.h"
#include "per_width.h"

// Groups are 8 lanes: AVX-512 runs the 8-lane variant.
static _Atomic long lanesLimit = 8;

static long vectorLanes(void) {
    const long lanes = gk_capped_lanes(lanesLimit);
    return lanes >= 8 ? 8 : 4;
}

long gk_spring_lanes(void) { return vectorLanes(); }

void gk_spring_limit_lanes(long lanes) { lanesLimit = lanes < 4 ? 4 : lanes; }

void gk_spring_step(const float *x, long channels, long groups, const long *lengths, const long *cells,
                    const float *y, float *d, int32_t *s, int32_t t) {
    const long lanes = vectorLanes();
    (void)lanes;  // one variant without x86-64
    for (long g = 0; g < groups; g++) {
        const long m = lengths[g], at = cells[g] * 8;
        const float *yg = y + at * channels;
#ifdef GK_X86
        if (lanes == 8) springGroup256(x, channels, m, yg, d + at, s + at, t);
        else
#endif
            springGroup128(x, channels, m, yg, d + at, s + at, t);
    }
}
