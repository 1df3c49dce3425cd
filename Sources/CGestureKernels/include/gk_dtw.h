#ifndef GK_DTW_H
#define GK_DTW_H

#ifdef __cplusplus
extern "C" {
#endif

/// Floats of scratch `gk_dtw_dependent` and `gk_dtw_independent` need for a query of `n` frames
/// against a template of `m` frames with `channels` channels.
long gk_dtw_scratch_count(long n, long m, long channels);

/// Dependent DTW of channel-major `a` (channels x n) against channel-major `b` (channels x m): the
/// minimum over warping paths inside the band |i - j| <= window (widened to |n - m|) of the summed
/// squared Euclidean distances between matched frames.
///
/// Returns +infinity once the distance is known to exceed `cutoff`. `tail`, when not NULL, holds
/// n + 1 floats with tail[i] a lower bound of the cost of query rows i..<n (tail[n] = 0).
float gk_dtw_dependent(const float *a, long n, const float *b, long m, long channels, long window,
                       float cutoff, const float *tail, float *scratch);

/// Independent DTW: the sum over channels of one-channel DTW distances, with the same band and
/// cutoff semantics.
float gk_dtw_independent(const float *a, long n, const float *b, long m, long channels, long window,
                         float cutoff, float *scratch);

/// Lanes of the vector kernel in use: 16 (AVX-512), 8 (AVX2) or 4 (SSE2, NEON).
long gk_dtw_lanes(void);

/// Caps the kernel's lanes (for tests that compare the variants); results do not depend on it.
void gk_dtw_limit_lanes(long lanes);

#ifdef __cplusplus
}
#endif

#endif
