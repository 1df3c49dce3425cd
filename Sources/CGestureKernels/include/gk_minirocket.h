#ifndef GK_MINIROCKET_H
#define GK_MINIROCKET_H

#ifdef __cplusplus
extern "C" {
#endif

/// MiniRocket's 84 kernels: kernel k has weight 2 at the three positions gk_minirocket_kernel_indices
/// gives (out of 0...8) and -1 at the other six.
void gk_minirocket_kernel_indices(long kernel, int *three);

/// Floats of scratch the functions below need for `n` frames of `channels` channels with dilations up
/// to `max_dilation`.
long gk_minirocket_scratch_count(long n, long channels, long max_dilation);

/// Writes to `out` (n floats) the output of kernel `kernel` at `dilation` with zero padding, summed
/// over the `count` channels `chans` of the row-major series `x` (n frames x `channels`).
/// Per channel the value is ((alpha + g0) + g1) + g2, where alpha is the sum of -x over the nine taps
/// in tap order and g0 < g1 < g2 are 3x at the kernel's three taps; channels are summed in the
/// order given. The same arithmetic runs on every vector width, so results are bit-identical.
void gk_minirocket_convolve(const float *x, long n, long channels, long dilation, long kernel, const int *chans,
                            long count, float *scratch, float *out);

/// MiniRocket features of the row-major series `x` (n frames x `channels`): for each dilation index
/// d, each kernel k (combination c = d * 84 + k) and each of features_per_dilation[d] biases, the
/// proportion of convolution outputs greater than the bias (PPV). `channel_counts[c]` channels are
/// taken from `channel_indices` in order; `padded[c]` nonzero means all n outputs count, otherwise
/// only those whose taps all lie inside the series (all n when there are none).
/// `out` receives 84 * sum(features_per_dilation) floats, dilation-major.
void gk_minirocket_transform(const float *x, long n, long channels, long num_dilations, const int *dilations,
                             const int *features_per_dilation, const int *channel_counts, const int *channel_indices,
                             const unsigned char *padded, const float *biases, float *scratch, float *out);

/// Lanes of the vector kernel in use: 8 (AVX2, the default cap) or 4 (SSE2, NEON); 16 (AVX-512) when
/// the cap is raised.
long gk_minirocket_lanes(void);

/// Caps the kernel's lanes (tests compare the variants; 16 allows AVX-512); results do not depend on it.
void gk_minirocket_limit_lanes(long lanes);

#ifdef __cplusplus
}
#endif

#endif
