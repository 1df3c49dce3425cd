// What every vector kernel file starts with: GK_X86 where per-instruction-set variants are built,
// the lane choice, and no fused multiply-adds. Included first by each kernel's .c file; not a
// public header.
#ifndef GK_KERNEL_PRELUDE_H
#define GK_KERNEL_PRELUDE_H

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define GK_X86 1
#endif
#include "cpu_lanes.h"

#define GK_CAT_(a, b) a##b
#define GK_CAT(a, b) GK_CAT_(a, b)

// Separate multiplies and adds on every instruction set: results are bit-identical whichever
// variant runs.
#pragma STDC FP_CONTRACT OFF
#if defined(__GNUC__) && !defined(__clang__)
// GCC ignores the standard pragma (and contracts by default): the same request in its own terms.
#pragma GCC optimize("fp-contract=off")
#endif

#endif
