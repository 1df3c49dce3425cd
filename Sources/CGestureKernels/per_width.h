// Includes the kernel body named by GK_BODY once per vector width: LANES, SUFFIX (function-name
// suffix) and ATTR (target attribute) are set for each. Swift compiles for baseline x86-64 (SSE2)
// and has no per-function target features, so each kernel is compiled here per width and the
// widest the CPU runs (capped, see gk_capped_lanes) is chosen at run time. width_types.h gives each
// body its vector types (VF, VI, VU) and loads.
#ifdef GK_X86
#define LANES 16
#define SUFFIX 512
#define ATTR __attribute__((target("avx512f")))
#include "width_types.h"
#include GK_BODY
#undef VF
#undef VI
#undef VU
#undef LANES
#undef SUFFIX
#undef ATTR
#define LANES 8
#define SUFFIX 256
#define ATTR __attribute__((target("avx2")))
#include "width_types.h"
#include GK_BODY
#undef VF
#undef VI
#undef VU
#undef LANES
#undef SUFFIX
#undef ATTR
#endif
#define LANES 4
#define SUFFIX 128
#define ATTR
#include "width_types.h"
#include GK_BODY
#undef VF
#undef VI
#undef VU
#undef LANES
#undef SUFFIX
#undef ATTR
#undef GK_BODY
