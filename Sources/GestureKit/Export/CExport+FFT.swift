/// The FFT extractor's C: ``FFTFeatures/extract(_:frames:into:)`` over ``RealFFT``'s radix-2
/// transform, in Double as the Swift is. The window weights and twiddles are computed here by the
/// Swift functions and written as exact literals, so no libm `cos`/`sin` (newlib's differ from
/// glibc's in rare last bits) can move a bin.
extension CGenerator {
    /// Emits `extract<i>(state *, const float *window, float *out)` for a window of `l` frames.
    /// - Complexity: of the C, O(channels * N log N) per window, N = l padded to a power of two.
    mutating func fft(_ f: FFTFeatures, index i: Int, frames l: Int) {
        let c = channels, bands = f.bands, per = bands + 1
        let n = RealFFT.paddedLength(l), m = n / 2
        let p = "fft\(i)"
        b.constant("\(p)_window", doubles: (0..<l).map { f.weight($0, of: l) })
        if m >= 1 {
            b.constant("\(p)_cos", doubles: (0...m).map { RealFFT.twiddle($0, of: n).cos })
            b.constant("\(p)_sin", doubles: (0...m).map { RealFFT.twiddle($0, of: n).sin })
        }
        // The signal packed as RealFFT packs it: even samples real, odd imaginary.
        b.field(.double, "\(p)_re", count: max(m, 1))
        b.field(.double, "\(p)_im", count: max(m, 1))
        let mean = f.removeMean ? """
                    for (i = 0; i < \(l); i++) mean += (double)w[i * \(c) + j];
                    mean /= \(l).0;
            """ : ""
        let cycles = f.sampleRate.map { "(double)best / \(n).0 * \(CBuilder.literal($0))" } ?? "(double)best / \(n).0"
        // With m == 0 (a one-frame window) there are no bins: every band 0, the dominant bin 0.
        let bins = m < 1 ? "" : """
                    \(p)_transform(re, im);
                    for (k = 1; k <= \(m); k++) {
                        const int32_t a = k % \(m), z = (\(m) - k) % \(m);
                        /* E = (Z[k] + conj Z[m-k]) / 2 is the even samples' spectrum, O = (Z[k] - conj Z[m-k]) / 2i
                           the odd; each product its own statement so that no compiler fuses it into a sum. */
                        const double er = (re[a] + re[z]) / 2.0, ei = (im[a] - im[z]) / 2.0;
                        const double or_ = (im[a] + im[z]) / 2.0, oi = -(re[a] - re[z]) / 2.0;
                        const double wr = \(p)_cos[k], wi = \(p)_sin[k];
                        const double p1 = wr * or_, p2 = wi * oi, p3 = wr * oi, p4 = wi * or_;
                        const double xr = er + p1 - p2, xi = ei + p3 + p4;
                        const double q1 = xr * xr, q2 = xi * xi, power = q1 + q2;
                        const double e = power * \(m == 1 ? "1.0" : "(k == \(m) ? 1.0 : 2.0)") / \(n).0;
                        o[(k * \(bands) + \(m - 1)) / \(m) - 1] += (float)e;
                        if (power > best_power) { best_power = power; best = k; }
                    }
            """
        if m > 1 { transform(prefix: p, points: m, length: n) }
        if m == 1 {
            // RealFFT's transform of one point is the identity.
            b.functions.append("static void \(p)_transform(double *re, double *im) { (void)re; (void)im; }\n")
        }
        b.functions.append("""
            static void extract\(i)(\(prefix)_state *s, const float *w, float *out) {
                double *re = s->\(p)_re, *im = s->\(p)_im;
                int32_t i, j, k;
                (void)re; (void)im; (void)k;
                for (j = 0; j < \(c); j++) {
                    float *o = out + j * \(per);
                    double mean = 0.0, best_power = 0.0;
                    int32_t best = 0, finite = 1;
            \(mean)
                    for (i = 0; i < \(2 * max(m, 1)); i++) {
                        double v = 0.0;
                        if (i < \(l)) {
                            const double x = (double)w[i * \(c) + j];
                            finite = finite && isfinite(x);
                            v = (x - mean) * \(p)_window[i];
                        }
                        if (i & 1) im[i >> 1] = v; else re[i >> 1] = v;
                    }
                    for (k = 0; k < \(bands); k++) o[k] = 0.0f;
            \(bins)
                    (void)best_power;
                    /* Non-finite input: say so rather than report bin 0. */
                    o[\(bands)] = finite ? (float)(\(cycles)) : NAN;
                }
            }

            """)
    }

    /// ``RealFFT/complexFFT(re:im:count:cos:sin:)`` of `points` values: bit reversal, then
    /// Cooley-Tukey butterflies with twiddles from the tables of a `length`-point transform.
    private mutating func transform(prefix p: String, points m: Int, length n: Int) {
        b.functions.append("""
            static void \(p)_transform(double *re, double *im) {
                int32_t i, j = 0, len, k, start;
                for (i = 1; i < \(m); i++) {
                    int32_t bit = \(m >> 1);
                    while (j & bit) { j ^= bit; bit >>= 1; }
                    j |= bit;
                    if (i < j) {
                        double t = re[i];
                        re[i] = re[j]; re[j] = t;
                        t = im[i]; im[i] = im[j]; im[j] = t;
                    }
                }
                for (len = 2; len <= \(m); len <<= 1) {
                    const int32_t half = len / 2, stride = \(n) / len;
                    for (k = 0; k < half; k++) {
                        const double wr = \(p)_cos[k * stride], wi = \(p)_sin[k * stride];
                        for (start = 0; start < \(m); start += len) {
                            const int32_t a = start + k, z = a + half;
                            const double p1 = re[z] * wr, p2 = im[z] * wi, p3 = re[z] * wi, p4 = im[z] * wr;
                            const double tr = p1 - p2, ti = p3 + p4;
                            re[z] = re[a] - tr; im[z] = im[a] - ti;
                            re[a] += tr; im[a] += ti;
                        }
                    }
                }
            }

            """)
    }
}
