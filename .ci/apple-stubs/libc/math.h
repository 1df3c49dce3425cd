/* Stub for .ci/apple-kernels: what the kernels use from <math.h>. */
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf("")
double exp(double); double sqrt(double); float sqrtf(float); float expf(float); float tanhf(float);
float fmaf(float, float, float); double fma(double, double, double); double floor(double);
