// Widest float vector (in lanes) the CPU runs, for kernels built once per instruction set.
// Included by each kernel's .c file; not a public header.
#ifndef GK_CPU_LANES_H
#define GK_CPU_LANES_H

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__)) && defined(__APPLE__)
// Apple's runtime has no ___cpu_model (what __builtin_cpu_supports reads): ask the kernel instead.
#include <sys/sysctl.h>
static int gk_apple_has(const char *name) {
    int v = 0;
    size_t size = sizeof v;
    return sysctlbyname(name, &v, &size, NULL, 0) == 0 && v != 0;
}
#endif

static long gk_supported_lanes(void) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__)) && defined(__APPLE__)
    if (gk_apple_has("hw.optional.avx512f")) return 16;
    if (gk_apple_has("hw.optional.avx2_0")) return 8;
#elif defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (__builtin_cpu_supports("avx512f")) return 16;
    if (__builtin_cpu_supports("avx2")) return 8;
#endif
    return 4;
}

// The widest supported width not above `limit` (tests lower the limit to check every width).
static long gk_capped_lanes(long limit) {
    long lanes = gk_supported_lanes();
    return lanes < limit ? lanes : limit;
}

#endif
