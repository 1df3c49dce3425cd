/* Random frames through an exported recogniser named `p` (gesture export --name p): any bit pattern
   (NaN, infinities, huge and subnormal values) in a fifth of the values, ordinary values in the
   rest so windows fill and decide. Built by scripts/export-check with AddressSanitizer and UBSan:
   it passes when nothing crashes or misreads memory. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "p.h"

int main(void) {
    p_state s;
    float frame[P_CHANNELS];
    uint32_t x = 2463534242u;
    long i, j, detections = 0;
    p_init(&s);
    for (i = 0; i < 200000; i++) {
        for (j = 0; j < P_CHANNELS; j++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            if (x % 5 == 0) memcpy(&frame[j], &x, sizeof x);
            else frame[j] = (float)(x % 2001) / 100.0f - 10.0f;
        }
        if (p_push(&s, frame).label >= 0) detections++;
        if (i % 50000 == 49999) p_reset(&s);
    }
    printf("fuzz: 200000 frames, %ld detections\n", detections);
    return 0;
}
