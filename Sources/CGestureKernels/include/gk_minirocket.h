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

/// Writes to `out` (n floats) the output of kernel `kernel` at `dilation` with zero padding on the
/// sum of the `count` channels `chans` of the row-major series `x` (n frames x `channels`): the
/// value is ((A + G0) + G1) + G2, where A is the channels' alphas (each the sum of -x over the nine
/// taps in tap order) summed in the order given, and G0 < G1 < G2 are the channels' 3x summed in
/// that order at the kernel's three taps. The same arithmetic runs on every vector width, so
/// results are bit-identical.
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

/// Floats of scratch gk_minirocket_transform_multi needs.
long gk_minirocket_multi_scratch_count(long n, long channels, long max_dilation);

/// gk_minirocket_transform with MultiRocket's four pools per bias (Tan et al. 2022): out[4f ..< 4f + 4]
/// = PPV; the mean of (output - bias) over the outputs above the bias (0 if none), summed in time
/// order in float; the mean index of those from the counted range's start (-1 if none); the longest
/// run of them. `out` receives 4 * 84 * sum(features_per_dilation) floats; bit-identical on every
/// vector width. Scratch as gk_minirocket_multi_scratch_count.
void gk_minirocket_transform_multi(const float *x, long n, long channels, long num_dilations, const int *dilations,
                                   const int *features_per_dilation, const int *channel_counts,
                                   const int *channel_indices, const unsigned char *padded, const float *biases,
                                   float *scratch, float *out);

/// Bytes of scratch gk_select_ranks needs for `n` values.
long gk_select_scratch_bytes(long n);

/// Order statistics without a full sort: out[i] = the value of rank ranks[i] (0-based, ranks
/// non-decreasing, each below n) among the n `values`, ordered by IEEE totalOrder (-0 below +0).
/// `values` is overwritten (reordered). Returns 0, or -1 (out untouched) on a NaN or a bad rank.
int gk_select_ranks(float *values, long n, const long *ranks, long count, void *scratch, float *out);

/// MiniRocket's biases: for each combination c (dilation-major, 84 kernels per dilation) the output of
/// gk_minirocket_convolve on example examples[c] (frames frame_offsets[e] to frame_offsets[e + 1] of
/// the row-major `x`, `channels` channels) at its dilation, kernel and channels, and of that, for each
/// of its features f, numpy's linear quantile at positions[f]: the order statistics at
/// lo = floor(q (n - 1)) and hi = min(lo + 1, n - 1), lo + (q (n - 1) - lo) (hi - lo) in double,
/// rounded to float. Combinations whose output holds a NaN or -0 are left to the caller (a plain
/// sort keeps -0 and +0 in input order): unhandled[c] = 1 and their biases untouched.
/// Returns the number of those, or -1 (nothing written) when memory runs out.
long gk_minirocket_fit_biases(const float *x, const long *frame_offsets, long num_examples, long channels,
                              long num_dilations, const int *dilations, const int *features_per_dilation,
                              const int *channel_counts, const int *channel_indices, const int *examples,
                              const double *positions, float *biases, unsigned char *unhandled);

/// Lanes of the vector kernel in use: 8 (AVX2, the default cap) or 4 (SSE2, NEON); 16 (AVX-512) when
/// the cap is raised.
long gk_minirocket_lanes(void);

/// Caps the kernel's lanes (tests compare the variants; 16 allows AVX-512); results do not depend on it.
void gk_minirocket_limit_lanes(long lanes);

#ifdef __cplusplus
}
#endif

#endif
