/* Random frames through an exported recogniser named `p` (gesture export --name p): any bit pattern
   (NaN, infinities, huge and subnormal values) in a fifth of the values, ordinary values in the
   rest so windows fill and decide; a reset every 5000 frames. Built by scripts/export-check with
   AddressSanitizer and UBSan: it passes when nothing crashes or misreads memory.
   Usage: fuzz [FRAMES] (default 200000). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p.h"

int main(int argc, char **argv) {
    p_state s;
    float frame[P_CHANNELS];
    uint32_t x = 2463534242u;
    long i, j, detections = 0, frames = argc > 1 ? atol(argv[1]) : 200000;
    p_init(&s);
    for (i = 0; i < frames; i++) {
        for (j = 0; j < P_CHANNELS; j++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            if (x % 5 == 0) memcpy(&frame[j], &x, sizeof x);
            else frame[j] = (float)(x % 2001) / 100.0f - 10.0f;
        }
        if (p_push(&s, frame).label >= 0) detections++;
        if (i % 5000 == 4999) p_reset(&s);
    }
    printf("fuzz: %ld frames, %ld detections\n", frames, detections);
    return 0;
}
