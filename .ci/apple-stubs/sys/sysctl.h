/* Stub for .ci/apple-kernels: the one declaration dtw.c uses, as in Apple's <sys/sysctl.h>. */
#include <stddef.h>
int sysctlbyname(const char *, void *, size_t *, void *, size_t);
