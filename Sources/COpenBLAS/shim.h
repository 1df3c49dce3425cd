#ifndef GESTUREKIT_COPENBLAS_SHIM_H
#define GESTUREKIT_COPENBLAS_SHIM_H
#include <cblas.h>
#include <lapacke.h>
#endif
