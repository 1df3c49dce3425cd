/// Each stage's C: its state fields, weights and code, written to do what its Swift `process`,
/// `extract`, `transform` or `predict` does, operation for operation.
extension CGenerator {
    // MARK: pre-processing

    /// The statement that runs pre-processing stage `i` on `s->frame`.
    mutating func preprocessor(_ stage: any Preprocessor, index i: Int) throws -> String {
        let field = "preprocessing[\(i)] (\(type(of: stage).kind))"
        switch stage {
        case let p as LowPass: return try butterworth(p.filter, channelsFitted: p.config.channels, index: i, field: field)
        case let p as HighPass: return try butterworth(p.filter, channelsFitted: p.config.channels, index: i, field: field)
        case let p as Normalizer:
            guard let o = p.offsets, let sc = p.scales, o.count == channels, sc.count == channels else {
                throw Self.refuse("the normaliser is not fitted to \(channels) channels", field: field)
            }
            b.constant("pre\(i)_offset", floats: o)
            b.constant("pre\(i)_scale", floats: sc)
            b.functions.append("""
                static void pre\(i)(float *f) {
                    int32_t j;
                    for (j = 0; j < \(channels); j++) f[j] = (f[j] - pre\(i)_offset[j]) / pre\(i)_scale[j];
                }

                """)
            return "pre\(i)(s->frame);"
        case let p as MovingAverage: return try movingAverage(p, index: i, field: field)
        case let p as MedianFilter: return try median(p, index: i, field: field)
        case let p as SavitzkyGolay: return try savitzkyGolay(p, index: i, field: field)
        case let p as Derivative: return try derivative(p, index: i, field: field)
        case let p as DeadZone: return deadZone(p, index: i)
        default:
            throw Self.refuse("the \(type(of: stage).kind) pre-processor has no C form yet", field: field)
        }
    }

    /// A Butterworth cascade in Direct Form II transposed, Double coefficients and state, primed on
    /// the first frame to the steady state of a held input (``ButterworthCascade/process(_:)``).
    private mutating func butterworth(_ filter: ButterworthCascade?, channelsFitted: Int?, index i: Int, field: String) throws -> String {
        guard let filter, channelsFitted == channels else {
            throw Self.refuse("the filter is not designed for \(channels) channels (train the pipeline first)", field: field)
        }
        let sections = filter.sectionCount
        b.constant("pre\(i)_co", doubles: filter.coefficients)
        b.field(.double, "pre\(i)_z", count: 2 * sections * channels)
        b.field(.int32, "pre\(i)_primed")
        // A non-finite sample is replaced by the channel's previous input, 0 before any.
        b.field(.float, "pre\(i)_last", count: channels)
        b.resetLines.append("s->pre\(i)_primed = 0;")
        b.resetLines.append("{ int32_t q; for (q = 0; q < \(2 * sections * channels); q++) s->pre\(i)_z[q] = 0.0; }")
        b.resetLines.append("{ int32_t q; for (q = 0; q < \(channels); q++) s->pre\(i)_last[q] = 0.0f; }")
        b.functions.append("""
            static void pre\(i)(\(prefix)_state *s, float *f) {
                int32_t j, k;
                for (j = 0; j < \(channels); j++) {
                    const float x = isfinite(f[j]) ? f[j] : s->pre\(i)_last[j];
                    double u = (double)x;
                    s->pre\(i)_last[j] = x;
                    for (k = 0; k < \(sections); k++) {
                        const double *co = pre\(i)_co + 5 * k;
                        double *z = s->pre\(i)_z + 2 * (j * \(sections) + k);
                        double y;
                        if (!s->pre\(i)_primed) {
                            y = u * (co[0] + co[1] + co[2]) / (1 + co[3] + co[4]);
                            z[1] = co[2] * u - co[4] * y;
                            z[0] = co[1] * u - co[3] * y + z[1];
                        }
                        y = co[0] * u + z[0];
                        z[0] = co[1] * u - co[3] * y + z[1];
                        z[1] = co[2] * u - co[4] * y;
                        u = y;
                    }
                    f[j] = (float)u;
                }
                s->pre\(i)_primed = 1;
            }

            """)
        return "pre\(i)(s, s->frame);"
    }

    // MARK: deciders

    /// Emits the decider and returns the name of its function
    /// `int decide(state *, const float *frame, int64_t n, raw_decision *)` (1 when it decided).
    mutating func decider() throws -> String {
        let spec = pipeline.spec
        if case .sequence(let c) = spec.classifier, let lstm = c as? LSTMClassifier {
            return try lstmDecider(lstm)
        }
        if case .sequence(let c) = spec.classifier, let dtw = c as? DTWClassifier, spec.window == nil {
            return try dtwDecider(dtw)
        }
        guard case .vector(let classifier) = spec.classifier else {
            throw Self.refuse("the \(spec.classifier.kind) classifier has no C form yet", field: "classifier (\(spec.classifier.kind))")
        }
        let window: PipelineSpec.Window
        if let w = spec.window {
            window = w
        } else if let live = pipeline.liveWindow {
            window = PipelineSpec.Window(size: live.window, hop: live.hop)
        } else {
            throw Self.refuse("the pipeline makes no live decisions", field: "liveWindow")
        }
        let width = try features(spec.extractors)
        let (output, widest, classifyWindow) = try transforms(spec.transforms, width: width)
        try classify(classifier, width: output)
        b.functions.append(classifyWindow)
        windowDecision(window, widest: widest)
        guard spec.window == nil, let live = pipeline.liveWindow else { return "window_decision" }
        slidingDecision(live)
        return "sliding_decision"
    }

    /// The ring of the last `size` frames, each stored twice so the newest window is contiguous,
    /// and a decision every `hop` frames once it is full (``WindowRing``, ``WindowedVectorDecider``).
    /// `widest`: the feature buffers' width, `nil` for a classifier of raw windows (no buffers).
    mutating func windowDecision(_ w: PipelineSpec.Window, widest: Int?) {
        let c = channels
        b.field(.float, "ring", count: 2 * w.size * c)
        b.field(.int32, "ring_pos")
        b.field(.int32, "ring_fill")
        b.field(.int32, "ring_phase")
        if let widest {
            b.field(.float, "feat", count: widest)
            if !pipeline.spec.transforms.isEmpty { b.field(.float, "feat2", count: widest) }
        }
        b.resetLines += ["s->ring_pos = 0;", "s->ring_fill = 0;", "s->ring_phase = 0;"]
        b.functions.append("""
            static int window_decision(\(prefix)_state *s, const float *f, int64_t n, raw_decision *d) {
                int32_t p = s->ring_pos, j;
                const float *w;
                for (j = 0; j < \(c); j++) {
                    s->ring[p * \(c) + j] = f[j];
                    s->ring[(p + \(w.size)) * \(c) + j] = f[j];
                }
                s->ring_pos = p + 1 == \(w.size) ? 0 : p + 1;
                if (s->ring_fill < \(w.size)) s->ring_fill++;
                if (s->ring_fill < \(w.size)) return 0;
                p = s->ring_phase;
                s->ring_phase = p + 1 == \(w.hop) ? 0 : p + 1;
                if (p != 0) return 0;
                w = s->ring + s->ring_pos * \(c);
                classify_window(s, w, d);
                d->start = n + 1 - \(w.size);
                d->end = n;
                return 1;
            }

            """)
    }

    /// One report per gesture from the windows of a whole-example classifier (``SlidingExampleDecider``).
    mutating func slidingDecision(_ live: LiveWindow) {
        let c = channels, k = classCount
        let reach = max(1, live.window / 2)
        let capacity = 2 * reach / live.hop + 2
        let rest = pipeline.restIndex ?? -1
        b.field(.int64, "quiet_until")
        b.field(.int64, "seen_end", count: capacity)
        b.field(.int32, "seen_label", count: capacity)
        b.field(.int32, "seen_count")
        b.field(.int32, "cand_valid")
        b.field(.int32, "cand_cls")
        b.field(.int32, "cand_label")
        b.field(.float, "cand_conf")
        b.field(.float, "cand_activity")
        b.field(.int64, "cand_end")
        b.field(.float, "cand_scores", count: k)
        b.resetLines += ["s->quiet_until = INT64_MIN;", "s->seen_count = 0;", "s->cand_valid = 0;"]
        b.functions.append("""
            /* Square root of the mean over channels of each channel's population variance (Double sums). */
            static float activity(const float *w) {
                double total = 0.0;
                int32_t i, j;
                for (j = 0; j < \(c); j++) {
                    double sum = 0.0, sq = 0.0, mean, v;
                    for (i = 0; i < \(live.window); i++) {
                        double x = (double)w[i * \(c) + j];
                        sum += x;
                        sq += x * x;
                    }
                    mean = sum / \(live.window).0;
                    v = sq / \(live.window).0 - mean * mean;
                    total += v >= 0.0 ? v : 0.0;
                }
                return (float)sqrt(total / \(c).0);
            }

            static int sliding_decision(\(prefix)_state *s, const float *f, int64_t n, raw_decision *d) {
                float act;
                int32_t label, i, kept = 0, support = 0;
                int64_t oldest, ends = 0, end;
                if (!window_decision(s, f, n, d)) return 0;
                act = activity(s->ring + s->ring_pos * \(c));
                label = act >= \(CBuilder.literal(live.activityFloor)) && d->cls != \(rest) ? d->cls : -1;
                oldest = d->end - \(2 * reach);
                for (i = 0; i < s->seen_count; i++) {
                    if (s->seen_end[i] < oldest) continue;
                    s->seen_end[kept] = s->seen_end[i];
                    s->seen_label[kept] = s->seen_label[i];
                    kept++;
                }
                if (kept == \(capacity)) {
                    for (i = 1; i < kept; i++) {
                        s->seen_end[i - 1] = s->seen_end[i];
                        s->seen_label[i - 1] = s->seen_label[i];
                    }
                    kept--;
                }
                s->seen_end[kept] = d->end;
                s->seen_label[kept] = label;
                s->seen_count = kept + 1;
                if (label >= 0 && d->end >= s->quiet_until) {
                    if (!s->cand_valid || d->conf > s->cand_conf || (d->conf == s->cand_conf && act > s->cand_activity)) {
                        s->cand_valid = 1;
                        s->cand_cls = d->cls;
                        s->cand_conf = d->conf;
                        s->cand_end = d->end;
                        s->cand_label = label;
                        s->cand_activity = act;
                        for (i = 0; i < \(k); i++) s->cand_scores[i] = s->scores[i];
                    }
                }
                if (!s->cand_valid || d->end - s->cand_end < \(reach)) return 0;
                s->cand_valid = 0;
                for (i = 0; i < s->seen_count; i++) {
                    int64_t gap = s->seen_end[i] - s->cand_end;
                    if (s->seen_label[i] != s->cand_label || gap > \(reach) || gap < -\(reach)) continue;
                    support++;
                    ends += s->seen_end[i];
                }
                if (support < \(live.minRun)) return 0;
                end = ends / support;
                s->quiet_until = end + \(live.window + reach);
                d->cls = s->cand_cls;
                d->conf = s->cand_conf;
                d->start = end - \(live.window - 1);
                d->end = end;
                for (i = 0; i < \(k); i++) s->scores[i] = s->cand_scores[i];
                return 1;
            }

            """)
    }

    // MARK: features and transforms

    /// Emits `extract(const float *w, float *out)` and returns the feature count.
    private mutating func features(_ extractors: [any FeatureExtractor]) throws -> Int {
        var calls: [String] = []
        var offset = 0
        for (i, e) in extractors.enumerated() {
            let field = "features.extractors[\(i)] (\(type(of: e).kind))"
            switch e {
            case let t as TimeDomainFeatures:
                guard t.channelNames?.count == channels else {
                    throw Self.refuse("the extractor is not fitted to \(channels) channels", field: field)
                }
                timeDomain(t, index: i)
                calls.append("extract\(i)(w, out + \(offset));")
            case let g as GravityFeatures:
                guard g.channelNames?.count == channels else {
                    throw Self.refuse("the extractor is not fitted to \(channels) channels", field: field)
                }
                gravity(g, index: i)
                calls.append("extract\(i)(w, out + \(offset));")
            case let m as MovementIndex:
                guard m.channelNames?.count == channels else {
                    throw Self.refuse("the extractor is not fitted to \(channels) channels", field: field)
                }
                movementIndex(index: i)
                calls.append("extract\(i)(w, out + \(offset));")
            case let f as FFTFeatures:
                guard f.channelNames?.count == channels, f.bands >= 1 else {
                    throw Self.refuse("the extractor is not fitted to \(channels) channels", field: field)
                }
                fft(f, index: i, frames: windowFrames)
                calls.append("extract\(i)(s, w, out + \(offset));")
            case let r as MiniRocket:
                try miniRocket(r, index: i, frames: windowFrames, field: field)
                calls.append("extract\(i)(s, w, out + \(offset));")
            default:
                throw Self.refuse("the \(type(of: e).kind) extractor has no C form yet", field: field)
            }
            offset += e.featureCount
        }
        b.functions.append("""
            static void extract(\(prefix)_state *s, const float *w, float *out) {
                (void)s;
            \(calls.map { "    " + $0 }.joined(separator: "\n"))
            }

            """)
        return offset
    }

    var windowFrames: Int {
        pipeline.spec.window?.size ?? pipeline.liveWindow?.window ?? 0
    }

    /// Per-channel statistics with Double sums, two passes (``TimeDomainFeatures/statistics``).
    private mutating func timeDomain(_ t: TimeDomainFeatures, index i: Int) {
        let c = channels, n = windowFrames, k = t.features.count
        var lines: [String] = []
        for (slot, f) in t.features.enumerated() {
            let value: String
            switch f {
            case .mean: value = "(float)mean"
            case .std: value = "(float)sqrt(m2)"
            case .min: value = "lo"
            case .max: value = "hi"
            case .range: value = "hi - lo"
            case .rms: value = "(float)sqrt(sum_sq / \(n).0)"
            case .energy: value = "(float)sum_sq"
            case .skewness: value = "m2 > 0.0 ? (float)(m3 / (m2 * sqrt(m2))) : 0.0f"
            case .kurtosis: value = "m2 > 0.0 ? (float)(m4 / (m2 * m2) - 3.0) : 0.0f"
            case .zeroCrossingRate: value = n > 1 ? "(float)((double)crossings / \(n - 1).0)" : "0.0f"
            case .meanAbsoluteDifference: value = n > 1 ? "(float)(abs_diff / \(n - 1).0)" : "0.0f"
            }
            lines.append("out[j * \(k) + \(slot)] = \(value);")
        }
        b.functions.append("""
            static void extract\(i)(const float *w, float *out) {
                int32_t i, j;
                for (j = 0; j < \(c); j++) {
                    double sum = 0.0, sum_sq = 0.0, abs_diff = 0.0, mean, m2 = 0.0, m3 = 0.0, m4 = 0.0;
                    float lo = w[j], hi = w[j], prev = w[j];
                    int32_t crossings = 0;
                    for (i = 0; i < \(n); i++) {
                        float x = w[i * \(c) + j];
                        sum += (double)x;
                        sum_sq += (double)x * (double)x;
                        if (x < lo) lo = x;
                        if (x > hi) hi = x;
                        if (i > 0) {
                            if ((prev < 0.0f) != (x < 0.0f)) crossings++;
                            abs_diff += fabs((double)x - (double)prev);
                        }
                        prev = x;
                    }
                    mean = sum / \(n).0;
                    for (i = 0; i < \(n); i++) {
                        double e = (double)w[i * \(c) + j] - mean, e2 = e * e;
                        m2 += e2;
                        m3 += e2 * e;
                        m4 += e2 * e2;
                    }
                    m2 /= \(n).0;
                    m3 /= \(n).0;
                    m4 /= \(n).0;
                    (void)m3;
                    (void)m4;
                    (void)crossings;
                    (void)abs_diff;
                    \(lines.joined(separator: "\n        "))
                }
            }

            """)
    }

    /// ``MovementIndex``: per channel the root of the mean squared deviation from the window's
    /// mean, two passes in Double.
    private mutating func movementIndex(index i: Int) {
        let c = channels, n = windowFrames
        b.functions.append("""
            static void extract\(i)(const float *w, float *out) {
                int32_t i, j;
                for (j = 0; j < \(c); j++) {
                    double sum = 0.0, mean, sq = 0.0;
                    for (i = 0; i < \(n); i++) sum += (double)w[i * \(c) + j];
                    mean = sum / \(n).0;
                    for (i = 0; i < \(n); i++) {
                        const double d = (double)w[i * \(c) + j] - mean;
                        /* The square its own statement: no compiler may fuse it into the sum. */
                        const double d2 = d * d;
                        sq += d2;
                    }
                    out[j] = (float)sqrt(sq / \(n).0);
                }
            }

            """)
    }

    /// Gravity as the window's mean acceleration, body acceleration split along and across it, and
    /// the gyroscope's magnitude, in Double (``GravityFeatures/extract(_:frames:into:)``).
    private mutating func gravity(_ g: GravityFeatures, index i: Int) {
        let c = channels, n = windowFrames
        let (ax, ay, az) = (g.accelerometer[0], g.accelerometer[1], g.accelerometer[2])
        let gyro = g.gyroscope.count == 3
        let (gx, gy, gz) = gyro ? (g.gyroscope[0], g.gyroscope[1], g.gyroscope[2]) : (0, 0, 0)
        var lines: [String] = []
        for (slot, f) in g.features.enumerated() {
            let value: String
            switch f {
            case .directionX: value = "ux"
            case .directionY: value = "uy"
            case .directionZ: value = "uz"
            case .pitch: value = "inv > 0.0 ? atan2(-ux, sqrt(uy * uy + uz * uz)) : 0.0"
            case .roll: value = "inv > 0.0 ? atan2(uy, uz) : 0.0"
            case .gravityMagnitude: value = "g"
            case .bodyMean: value = "b_sum / \(n).0"
            case .bodyStd: value = "spread(b_sum, b_sq)"
            case .bodyMax: value = "b_max"
            case .verticalStd: value = "sqrt(v_sq / \(n).0)"
            case .horizontalMean: value = "h_sum / \(n).0"
            case .horizontalStd: value = "spread(h_sum, h_sq)"
            case .gyroMean: value = "w_sum / \(n).0"
            case .gyroStd: value = "spread(w_sum, w_sq)"
            case .gyroMax: value = "w_max"
            }
            lines.append("out[\(slot)] = (float)(\(value));")
        }
        let gyroLoop = gyro ? """
                    {
                        double wx = (double)w[i * \(c) + \(gx)], wy = (double)w[i * \(c) + \(gy)], wz = (double)w[i * \(c) + \(gz)];
                        double w2 = wx * wx + wy * wy + wz * wz, wm = sqrt(w2);
                        w_sum += wm;
                        w_sq += w2;
                        w_max = wm >= w_max ? wm : w_max;
                    }
            """ : ""
        b.functions.append("""
            /* The standard deviation from a sum and a sum of squares over the window. */
            static double spread\(i)(double sum, double sq) {
                double v = sq / \(n).0 - (sum / \(n).0) * (sum / \(n).0);
                return sqrt(0.0 >= v ? 0.0 : v);
            }

            static void extract\(i)(const float *w, float *out) {
                double mx = 0.0, my = 0.0, mz = 0.0, g, inv, ux, uy, uz;
                double b_sum = 0.0, b_sq = 0.0, b_max = 0.0, v_sq = 0.0, h_sum = 0.0, h_sq = 0.0;
                double w_sum = 0.0, w_sq = 0.0, w_max = 0.0;
                int32_t i;
                for (i = 0; i < \(n); i++) {
                    mx += (double)w[i * \(c) + \(ax)];
                    my += (double)w[i * \(c) + \(ay)];
                    mz += (double)w[i * \(c) + \(az)];
                }
                mx /= \(n).0;
                my /= \(n).0;
                mz /= \(n).0;
                g = sqrt(mx * mx + my * my + mz * mz);
                inv = g > 0.0 && isfinite(g) ? 1.0 / g : 0.0;
                ux = mx * inv;
                uy = my * inv;
                uz = mz * inv;
                for (i = 0; i < \(n); i++) {
                    double bx = (double)w[i * \(c) + \(ax)] - mx, by = (double)w[i * \(c) + \(ay)] - my;
                    double bz = (double)w[i * \(c) + \(az)] - mz;
                    double b2 = bx * bx + by * by + bz * bz, bm = sqrt(b2), v = bx * ux + by * uy + bz * uz, h2, h;
                    b_sum += bm;
                    b_sq += b2;
                    b_max = bm >= b_max ? bm : b_max;
                    v_sq += v * v;
                    h2 = b2 - v * v;
                    h = sqrt(0.0 >= h2 ? 0.0 : h2);
                    h_sum += h;
                    h_sq += h * h;
            \(gyroLoop)
                }
                (void)w_sum; (void)w_sq; (void)w_max; (void)h_sum; (void)h_sq; (void)v_sq; (void)b_sum; (void)b_sq; (void)b_max;
                \(lines.joined(separator: "\n    ").replacingOccurrences(of: "spread(", with: "spread\(i)("))
            }

            """)
    }

    /// ``PCA/transform(_:into:)``: each component a Float sum over the inputs in order of the
    /// axis times the centred input.
    private mutating func pca(index i: Int, inputs d: Int, outputs k: Int) {
        b.functions.append("""
            static void pca\(i)(const float *x, float *y) {
                int32_t r, q;
                for (r = 0; r < \(k); r++) {
                    float acc = 0.0f;
                    for (q = 0; q < \(d); q++) {
                        /* The product its own statement: no compiler may fuse it into the sum. */
                        const float term = tr\(i)_basis[r * \(d) + q] * (x[q] - tr\(i)_mean[q]);
                        acc = acc + term;
                    }
                    y[r] = acc;
                }
            }

            """)
    }

    /// The transforms' weights, and `classify_window` (features, transforms ping-ponging between
    /// `feat` and `feat2`, the classifier) to emit after the classifier: the classifier's input
    /// width, the widest buffer needed and that function.
    private mutating func transforms(_ transforms: [any FeatureTransform], width: Int) throws -> (Int, Int, String) {
        var lines = ["extract(s, w, s->feat);"]
        var width = width, widest = width
        var input = "s->feat", output = "s->feat2"
        for (i, t) in transforms.enumerated() {
            let field = "features.transforms[\(i)] (\(type(of: t).kind))"
            switch t {
            case let sc as FeatureScaler:
                guard let o = sc.offsets, let k = sc.scales, o.count == width else {
                    throw Self.refuse("the scaler is not fitted to \(width) features", field: field)
                }
                b.constant("tr\(i)_offset", floats: o)
                b.constant("tr\(i)_scale", floats: k)
                lines.append("for (j = 0; j < \(width); j++) \(output)[j] = (\(input)[j] - tr\(i)_offset[j]) / tr\(i)_scale[j];")
            case let p as PCA:
                guard let mean = p.mean, let basis = p.basis, mean.count == width, p.outputCount >= 1 else {
                    throw Self.refuse("the PCA is not fitted to \(width) features", field: field)
                }
                b.constant("tr\(i)_mean", floats: mean)
                b.constant("tr\(i)_basis", floats: basis)
                lines.append("pca\(i)(\(input), \(output));")
                pca(index: i, inputs: width, outputs: p.outputCount)
            default:
                throw Self.refuse("the \(type(of: t).kind) transform has no C form yet", field: field)
            }
            width = t.outputCount
            widest = max(widest, width)
            swap(&input, &output)
        }
        lines.append("classify(s, \(input), d);")
        let function = """
            static void classify_window(\(prefix)_state *s, const float *w, raw_decision *d) {
                int32_t j;
                (void)j;
            \(lines.map { "    " + $0 }.joined(separator: "\n"))
            }

            """
        return (width, max(widest, 1), function)
    }
}
