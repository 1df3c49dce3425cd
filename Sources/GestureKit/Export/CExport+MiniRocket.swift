import CGestureKernels

/// MiniRocket's C: a scalar form of the vector kernels in CGestureKernels (minirocket.c), which
/// compute every output element-wise in a fixed order, so the scalar loop gives their bits.
extension CGenerator {
    /// Emits `extract<i>(state *, const float *window, float *out)` for a fitted MiniRocket: its
    /// transform of the window, then, when fitted with one, its transform of the window's first
    /// differences (frame t+1 less frame t; one frame of zeros from a one-frame window).
    mutating func miniRocket(_ e: MiniRocket, index i: Int, frames: Int, field: String) throws {
        guard let m = e.model, m.channelNames.count == channels else {
            throw Self.refuse("the extractor is not fitted to \(channels) channels", field: field)
        }
        try miniRocketHalf(m, name: "mr\(i)", frames: frames, pools: e.multiPooling)
        guard let dm = e.differenceModel else {
            b.functions.append("""
                static void extract\(i)(\(prefix)_state *s, const float *w, float *out) { mr\(i)_extract(s, w, out); }

                """)
            return
        }
        guard dm.channelNames.count == channels else {
            throw Self.refuse("the difference half is not fitted to \(channels) channels", field: field)
        }
        let dFrames = max(frames - 1, 1), offset = m.biases.count * e.pools
        try miniRocketHalf(dm, name: "mr\(i)d", frames: dFrames, pools: e.multiPooling)
        b.field(.float, "mr\(i)_dx", count: dFrames * channels)
        let difference = frames < 2 ? "0.0f" : "w[t + \(channels)] - w[t]"
        b.functions.append("""
            static void extract\(i)(\(prefix)_state *s, const float *w, float *out) {
                float *dx = s->mr\(i)_dx;
                int32_t t;
                mr\(i)_extract(s, w, out);
                for (t = 0; t < \(dFrames * channels); t++) dx[t] = \(difference);
                mr\(i)d_extract(s, dx, out + \(offset));
            }

            """)
    }

    /// One fitted transform over a window of `frames` frames, as `<name>_extract`.
    mutating func miniRocketHalf(_ m: MiniRocket.Model, name p: String, frames: Int, pools multiPooling: Bool) throws {
        // One channel of channels x frames when fitted end to end, else the channels as they are.
        let rows = m.concatenated ? 1 : channels
        let n = m.concatenated ? frames * channels : frames
        var taps: [Int] = []
        for k in 0..<MiniRocket.kernelCount {
            var three: [Int32] = [0, 0, 0]
            gk_minirocket_kernel_indices(k, &three)
            taps += three.map(Int.init)
        }
        b.constant("\(p)_taps", ints: taps)
        b.constant("\(p)_dilations", ints: m.dilations.map(Int.init))
        b.constant("\(p)_per", ints: m.featuresPerDilation.map(Int.init))
        b.constant("\(p)_counts", ints: m.channelCounts.map(Int.init))
        b.constant("\(p)_channels", ints: m.channelIndices.map(Int.init))
        b.constant("\(p)_padded", ints: m.padded.map(Int.init))
        b.constant("\(p)_biases", floats: m.biases)
        b.keepFloat32("MiniRocket's biases: thresholds its counts compare each convolution output with")
        b.field(.float, "\(p)_x", count: rows * n)
        b.field(.float, "\(p)_alpha", count: rows * n)
        b.field(.float, "\(p)_c", count: n)
        let pool: String
        if multiPooling {
            pool = """
                        float total = 0.0f;
                        int64_t frame_sum = 0;
                        int32_t run = 0, longest = 0;
                        float *o = out + 4 * at;
                        for (t = start; t < start + len; t++) {
                            if (!(c[t] > b)) { run = 0; continue; }
                            above++;
                            total = total + (c[t] - b);
                            frame_sum += t;
                            if (++run > longest) longest = run;
                        }
                        o[0] = (float)((double)above * (1.0 / (double)len));
                        o[1] = above > 0 ? total / (float)above : 0.0f;
                        o[2] = above > 0 ? (float)((double)(frame_sum - (int64_t)start * above) / (double)above) : -1.0f;
                        o[3] = (float)longest;
            """
        } else {
            pool = """
                        for (t = start; t < start + len; t++) if (c[t] > b) above++;
                        out[at] = (float)((double)above * (1.0 / (double)len));
            """
        }
        b.functions.append("""
            /* 3x of the kernel's channels summed in order at frame u (0 in the zero padding). */
            static float \(p)_g(const float *x, const int32_t *chans, int32_t count, int32_t u) {
                float g;
                int32_t j;
                if (u < 0 || u >= \(n)) return 0.0f;
                g = 3.0f * x[chans[0] * \(n) + u];
                for (j = 1; j < count; j++) g = g + 3.0f * x[chans[j] * \(n) + u];
                return g;
            }

            /* MiniRocket\(multiPooling ? " with MultiRocket's four pools" : ""): \(m.biases.count) biases over \(m.dilations.count) dilations. */
            static void \(p)_extract(\(prefix)_state *s, const float *w, float *out) {
                float *x = s->\(p)_x, *al = s->\(p)_alpha, *c = s->\(p)_c;
                int32_t r, t, di, k, j, q, f = 0, kc = 0, next = 0;
                for (r = 0; r < \(channels); r++)
                    for (t = 0; t < \(frames); t++) x[r * \(frames) + t] = w[t * \(channels) + r];
                for (di = 0; di < \(m.dilations.count); di++) {
                    const int32_t d = \(p)_dilations[di], per = \(p)_per[di];
                    const int32_t edge = \(n) - 8 * d > 0 ? 4 * d : 0;
                    for (r = 0; r < \(rows); r++) {
                        for (t = 0; t < \(n); t++) {
                            float acc = 0.0f;
                            for (j = 0; j < 9; j++) {
                                const int32_t u = t + (j - 4) * d;
                                acc = acc + (-(u >= 0 && u < \(n) ? x[r * \(n) + u] : 0.0f));
                            }
                            al[r * \(n) + t] = acc;
                        }
                    }
                    for (k = 0; k < 84; k++, kc++) {
                        const int32_t count = \(p)_counts[kc], *chans = \(p)_channels + next;
                        const int32_t o0 = (\(p)_taps[3 * k] - 4) * d, o1 = (\(p)_taps[3 * k + 1] - 4) * d;
                        const int32_t o2 = (\(p)_taps[3 * k + 2] - 4) * d;
                        const int32_t start = \(p)_padded[kc] ? 0 : edge, len = \(p)_padded[kc] ? \(n) : \(n) - 2 * edge;
                        next += count;
                        for (t = start; t < start + len; t++) {
                            float a = al[chans[0] * \(n) + t];
                            for (j = 1; j < count; j++) a = a + al[chans[j] * \(n) + t];
                            a = a + \(p)_g(x, chans, count, t + o0);
                            a = a + \(p)_g(x, chans, count, t + o1);
                            c[t] = a + \(p)_g(x, chans, count, t + o2);
                        }
                        for (q = 0; q < per; q++) {
                            const int32_t at = f + k * per + q;
                            const float b = \(p)_biases[at];
                            int32_t above = 0;
            \(pool)
                        }
                    }
                    f += 84 * per;
                }
            }

            """)
    }
}
