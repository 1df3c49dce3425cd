/// The streaming filters' C (moving average, median, Savitzky-Golay, derivative, dead zone): state
/// in the caller's struct, the same Float and Double operations in the same order as their Swift
/// `process`, including ``FilterSupport``'s start-up (primed with the first frame) and its hold of
/// a non-finite sample (an earlier stage can overflow a finite frame).
extension CGenerator {
    /// ``MovingAverage``: a Double running sum, recomputed from the ring once per lap.
    mutating func movingAverage(_ p: MovingAverage, index i: Int, field: String) throws -> String {
        let w = try fittedWindow(p.window, channels: p.channels, field: field)
        b.field(.double, "pre\(i)_sum", count: channels)
        return sampleWindow(index: i, window: w, body: """
            if (primed) s->pre\(i)_sum[j] += (double)x - (double)leaving;
            else s->pre\(i)_sum[j] = (double)x * \(w).0;
            if (pos == \(w - 1)) {
                double t = 0.0;
                for (k = 0; k < \(w); k++) t += (double)ring[k * \(channels) + j];
                s->pre\(i)_sum[j] = t;
            }
            f[j] = (float)(s->pre\(i)_sum[j] / \(w).0);
            """)
    }

    /// ``MedianFilter``: each channel's window kept sorted, the leaving value's slot moved to
    /// where the new value belongs.
    mutating func median(_ p: MedianFilter, index i: Int, field: String) throws -> String {
        let w = try fittedWindow(p.window, channels: p.channels, field: field)
        b.field(.float, "pre\(i)_sorted", count: w * channels)
        let middle = w % 2 == 1 ? "sorted[\(w / 2)]" : "(sorted[\(w / 2 - 1)] + sorted[\(w / 2)]) / 2.0f"
        return sampleWindow(index: i, window: w, body: """
            float *sorted = s->pre\(i)_sorted + j * \(w);
            if (primed) {
                k = 0;
                while (k < \(w - 1) && sorted[k] != leaving) k++;
                while (k > 0 && sorted[k - 1] > x) { sorted[k] = sorted[k - 1]; k--; }
                while (k < \(w - 1) && sorted[k + 1] < x) { sorted[k] = sorted[k + 1]; k++; }
                sorted[k] = x;
            } else {
                for (k = 0; k < \(w); k++) sorted[k] = x;
            }
            f[j] = \(middle);
            """)
    }

    /// ``SavitzkyGolay``: the designed weights (written exactly) against the ring, oldest frame
    /// first, summed in Double.
    mutating func savitzkyGolay(_ p: SavitzkyGolay, index i: Int, field: String) throws -> String {
        guard p.channels == channels, p.weights.count == p.window else {
            throw Self.refuse("the filter is not fitted to \(channels) channels", field: field)
        }
        let w = p.window
        b.constant("pre\(i)_h", floats: p.weights)
        return sampleWindow(index: i, window: w, body: """
            double acc = 0.0;
            int32_t q = pos + 1 == \(w) ? 0 : pos + 1;
            (void)leaving;
            for (k = 0; k < \(w); k++) {
                /* The product its own statement: no compiler may fuse it into the sum. */
                double term = (double)pre\(i)_h[k] * (double)ring[q * \(channels) + j];
                acc += term;
                q = q + 1 == \(w) ? 0 : q + 1;
            }
            f[j] = (float)acc;
            """)
    }

    /// ``Derivative``: backward differences in Double, scaled by the sample rate (1 when unknown).
    mutating func derivative(_ p: Derivative, index i: Int, field: String) throws -> String {
        guard p.channels == channels, p.order == 1 || p.order == 2 else {
            throw Self.refuse("the derivative is not fitted to \(channels) channels", field: field)
        }
        let rate = CBuilder.literal(p.sampleRate ?? 1)
        b.field(.float, "pre\(i)_p1", count: channels)
        b.field(.float, "pre\(i)_p2", count: channels)
        b.field(.int32, "pre\(i)_primed")
        b.resetLines.append("s->pre\(i)_primed = 0;")
        b.resetLines.append("{ int32_t q; for (q = 0; q < \(channels); q++) { s->pre\(i)_p1[q] = 0.0f; s->pre\(i)_p2[q] = 0.0f; } }")
        // The doubling its own statement: no compiler may fuse it into the difference.
        let difference = p.order == 2
            ? "const double twice = 2.0 * (double)p1[j];\n            d = ((double)x - twice + (double)p2[j]) * \(rate) * \(rate);"
            : "d = ((double)x - (double)p1[j]) * \(rate);"
        b.functions.append("""
            static void pre\(i)(\(prefix)_state *s, float *f) {
                float *p1 = s->pre\(i)_p1, *p2 = s->pre\(i)_p2;
                int32_t j;
                for (j = 0; j < \(channels); j++) {
                    float x = isfinite(f[j]) ? f[j] : p1[j];
                    double d;
                    if (!s->pre\(i)_primed) { p1[j] = x; p2[j] = x; }
                    {
                        \(difference)
                    }
                    p2[j] = p1[j];
                    p1[j] = x;
                    f[j] = (float)d;
                }
                s->pre\(i)_primed = 1;
            }

            """)
        return "pre\(i)(s, s->frame);"
    }

    /// ``DeadZone``: stateless; a non-finite value passes unchanged.
    mutating func deadZone(_ p: DeadZone, index i: Int) -> String {
        let upper = CBuilder.literal(p.upper), lower = CBuilder.literal(p.lower)
        b.functions.append("""
            static void pre\(i)(float *f) {
                int32_t j;
                for (j = 0; j < \(channels); j++) {
                    float x = f[j];
                    if (x >= \(upper)) f[j] = x - (\(upper));
                    else if (x <= \(lower)) f[j] = x - (\(lower));
                    else if (isfinite(x)) f[j] = 0.0f;
                }
            }

            """)
        return "pre\(i)(s->frame);"
    }

    private func fittedWindow(_ window: Int, channels fitted: Int?, field: String) throws -> Int {
        guard fitted == channels, window >= 1 else {
            throw Self.refuse("the filter is not fitted to \(channels) channels", field: field)
        }
        return window
    }

    /// ``SampleWindow/push(_:_:)``: each channel's sample held when non-finite (at the last one
    /// stored, 0 before the first frame), the whole ring filled on the first frame, then stored at
    /// `pos`; `body` sets `f[j]` from `x`, `leaving` (the sample it replaced), `ring`, `pos` and
    /// `primed`, with `k` free.
    private mutating func sampleWindow(index i: Int, window w: Int, body: String) -> String {
        let c = channels
        b.field(.float, "pre\(i)_ring", count: w * c)
        b.field(.int32, "pre\(i)_pos")
        b.field(.int32, "pre\(i)_primed")
        b.resetLines += ["s->pre\(i)_pos = 0;", "s->pre\(i)_primed = 0;"]
        b.functions.append("""
            static void pre\(i)(\(prefix)_state *s, float *f) {
                float *ring = s->pre\(i)_ring;
                const int32_t pos = s->pre\(i)_pos, last = pos == 0 ? \(w - 1) : pos - 1, primed = s->pre\(i)_primed;
                int32_t j, k;
                for (j = 0; j < \(c); j++) {
                    const float x = isfinite(f[j]) ? f[j] : primed ? ring[last * \(c) + j] : 0.0f;
                    const float leaving = primed ? ring[pos * \(c) + j] : x;
                    if (!primed) for (k = 0; k < \(w); k++) ring[k * \(c) + j] = x;
                    ring[pos * \(c) + j] = x;
                    {
                        \(body.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n            "))
                    }
                }
                s->pre\(i)_primed = 1;
                s->pre\(i)_pos = pos + 1 == \(w) ? 0 : pos + 1;
            }

            """)
        return "pre\(i)(s, s->frame);"
    }
}
