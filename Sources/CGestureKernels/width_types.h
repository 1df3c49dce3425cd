// The vector types and unaligned loads every kernel body uses at one width (LANES, SUFFIX, ATTR set
// by per_width.h): float, int32 and uint32 vectors of LANES lanes, named per SUFFIX so the three
// widths coexist in one file.
#define VF GK_CAT(gkvf, SUFFIX)
#define VI GK_CAT(gkvi, SUFFIX)
#define VU GK_CAT(gkvu, SUFFIX)

typedef float VF __attribute__((vector_size(LANES * 4)));
typedef int32_t VI __attribute__((vector_size(LANES * 4)));
typedef uint32_t VU __attribute__((vector_size(LANES * 4)));

ATTR static inline VF GK_CAT(loadF, SUFFIX)(const float *p) {
    VF v;
    memcpy(&v, p, sizeof v);
    return v;
}

ATTR static inline VI GK_CAT(loadI, SUFFIX)(const int32_t *p) {
    VI v;
    memcpy(&v, p, sizeof v);
    return v;
}

ATTR static inline void GK_CAT(storeF, SUFFIX)(float *p, VF v) { memcpy(p, &v, sizeof v); }
