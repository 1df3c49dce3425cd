/// The LSTM classifier's C: ``LSTMStream`` step by step (normalise, convolution ring, layers, head
/// and softmax with ``LSTMMath``'s exponential), and the two ways the Swift recogniser runs it live:
/// a fresh stream over each window (``LSTMClassifier/predict(_:)``, the live window or a window
/// that is not a multiple of its hop) or `window / hop` slots that each carry their state across
/// frames (``LSTMWindowStream``).
///
/// Swift's matrix-vector products are BLAS `sgemv`, whose blocking the C loop does not reproduce:
/// gate sums may differ in their last bits, so confidences agree to a tolerance, not exactly.
extension CGenerator {
    /// Emits the LSTM and the window decider that drives it; returns the decider's name.
    mutating func lstmDecider(_ m: LSTMClassifier) throws -> String {
        let field = "classifier (lstm)"
        let shape = m.shape, layout = shape.layout
        guard m.isTrained, m.channelCount == channels, m.classes.count == classCount,
              m.parameters.count == layout.count, m.inputMean.count == channels, m.inputStd.count == channels else {
            throw Self.refuse("the classifier is not trained on \(channels) channels and \(classCount) classes", field: field)
        }
        guard shape.layers >= 1, shape.hidden >= 1 else {
            throw Self.refuse("the classifier has no LSTM layer", field: field)
        }
        guard pipeline.spec.extractors.isEmpty, pipeline.spec.transforms.isEmpty else {
            throw Self.refuse("a sequence classifier after feature extractors has no C form", field: "features")
        }
        if let w = pipeline.spec.window, w.size % w.hop == 0 {
            // What IncrementalWindowDecider runs: LSTMWindowStream's slots.
            lstmCore(m, slots: w.size / w.hop)
            slotDecision(w)
            return "slot_decision"
        }
        let window: PipelineSpec.Window
        if let w = pipeline.spec.window {
            window = w
        } else if let live = pipeline.liveWindow {
            window = PipelineSpec.Window(size: live.window, hop: live.hop)
        } else {
            throw Self.refuse("the pipeline makes no live decisions", field: "liveWindow")
        }
        // WindowedSequenceDecider: predict(window) from a fresh state every hop.
        lstmCore(m, slots: 1)
        let pad = max(0, shape.minimumFrames - window.size)
        b.functions.append("""
            /* LSTMClassifier.predict on the window: a fresh stream\(pad > 0 ? ", \(pad) frames at the channel means first (too short for the convolution)" : ""), every frame. */
            static void classify_window(\(prefix)_state *s, const float *w, raw_decision *d) {
                int32_t i;
                lstm_reset_slot(s, 0);
                \(pad > 0 ? "for (i = 0; i < \(pad); i++) lstm_step(s, 0, lstm_mean);" : "")
                for (i = 0; i < \(window.size); i++) lstm_step(s, 0, w + i * \(channels));
                lstm_decide(s, 0, d);
            }

            """)
        windowDecision(window, widest: nil)
        guard pipeline.spec.window == nil, let live = pipeline.liveWindow else { return "window_decision" }
        slidingDecision(live)
        return "sliding_decision"
    }

    /// One decision every `hop` frames from the slot whose window ends there
    /// (``LSTMWindowStream/step(_:)``): slot `(n / hop) % slots` restarts on frame `n` when `n` is
    /// a multiple of `hop`, and every started slot takes every frame.
    private mutating func slotDecision(_ w: PipelineSpec.Window) {
        let slots = w.size / w.hop
        b.field(.int32, "lstm_started", count: slots)
        b.resetLines.append("{ int32_t q; for (q = 0; q < \(slots); q++) s->lstm_started[q] = 0; }")
        b.functions.append("""
            static int slot_decision(\(prefix)_state *s, const float *f, int64_t n, raw_decision *d) {
                int32_t j;
                if (n % \(w.hop) == 0) {
                    j = (int32_t)((n / \(w.hop)) % \(slots));
                    lstm_reset_slot(s, j);
                    s->lstm_started[j] = 1;
                }
                for (j = 0; j < \(slots); j++) {
                    if (s->lstm_started[j]) lstm_step(s, j, f);
                }
                if (n + 1 < \(w.size) || (n + 1) % \(w.hop) != 0) return 0;
                lstm_decide(s, (int32_t)(((n + 1) / \(w.hop)) % \(slots)), d);
                d->start = n + 1 - \(w.size);
                d->end = n;
                return 1;
            }

            """)
    }

    /// The weights, `slots` LSTM states in the state struct, and `lstm_reset_slot`, `lstm_step`
    /// and `lstm_decide` on slot `k`.
    private mutating func lstmCore(_ m: LSTMClassifier, slots: Int) {
        let shape = m.shape, layout = shape.layout
        let C = channels, H = shape.hidden, G = 4 * H, K = classCount, L = shape.layers
        // One slot's floats, laid out as LSTMStream's state: per layer z = [x; h] and c, the ring,
        // then this slot's scores (the gates and logits are scratch, shared).
        var at = 0
        var zOffsets: [Int] = [], cOffsets: [Int] = []
        for l in 0..<L {
            zOffsets.append(at); at += shape.layerInput(l) + H
            cOffsets.append(at); at += H
        }
        let ring = at
        at += 2 * (shape.convolution?.width ?? 0) * C
        let scores = at
        at += K
        let slotFloats = at
        // int8: a scale per row of each matrix (one gate unit's, filter's or class's weights, the
        // unit a sum runs over) and one per bias vector.
        var groupOf = [Int](repeating: 0, count: m.parameters.count), groups = 0
        func group(_ r: Range<Int>, rows: Int) -> Int {
            let base = groups
            for i in r { groupOf[i] = base + (i - r.lowerBound) % rows }
            if !r.isEmpty { groups += rows }
            return base
        }
        let convRows = group(layout.convWeights, rows: shape.convolution?.filters ?? 1)
        let convBias = group(layout.convBias, rows: 1)
        var layerRows: [Int] = [], layerBias: [Int] = []
        for l in 0..<L {
            layerRows.append(group(layout.lstmWeights[l], rows: G))
            layerBias.append(group(layout.lstmBias[l], rows: 1))
        }
        let headRows = group(layout.headWeights, rows: K), headBias = group(layout.headBias, rows: 1)
        b.weights("lstm_theta", m.parameters, groups: groups) { groupOf[$0] }
        // The first group of a matrix's rows, as lstm_gemv's argument (int8 only).
        let int8 = b.storage == .int8
        func rowsArg(_ base: Int) -> String { int8 ? ", \(base)" : "" }
        b.constant("lstm_mean", floats: m.inputMean)
        b.constant("lstm_inv_std", floats: m.inputStd.map { 1 / $0 })
        b.field(.float, "lstm", count: slots * slotFloats)
        b.field(.float, "lstm_gates", count: G)
        b.field(.float, "lstm_logits", count: K)
        b.field(.int32, "lstm_seen", count: slots)
        b.field(.int32, "lstm_best", count: slots)

        var input: String
        if let cv = shape.convolution {
            let w = cv.width, F = cv.filters
            input = """
                    seen = ++s->lstm_seen[k];
                    slot = (seen - 1) % \(w);
                    for (j = 0; j < \(C); j++) {
                        float v = (frame[j] - lstm_mean[j]) * lstm_inv_std[j];
                        st[\(ring) + slot * \(C) + j] = v;
                        st[\(ring) + (slot + \(w)) * \(C) + j] = v;
                    }
                    if (seen < \(w) || (seen - \(w)) % \(cv.stride) != 0) return;
                    for (j = 0; j < \(F); j++) st[\(zOffsets[0]) + j] = \(b.read("lstm_theta[\(layout.convBias.lowerBound) + j]", of: "lstm_theta", group: "\(convBias)"));
                    lstm_gemv(\(F), \(w * C), lstm_theta + \(layout.convWeights.lowerBound)\(rowsArg(convRows)), st + \(ring) + (slot + 1) * \(C), st + \(zOffsets[0]));
                    for (j = 0; j < \(F); j++) {
                        if (st[\(zOffsets[0]) + j] < 0.0f) st[\(zOffsets[0]) + j] = 0.0f;
                    }
                """
        } else {
            input = """
                    (void)seen;
                    (void)slot;
                    for (j = 0; j < \(C); j++) st[\(zOffsets[0]) + j] = (frame[j] - lstm_mean[j]) * lstm_inv_std[j];
                """
        }
        var layers = ""
        for l in 0..<L {
            let I = shape.layerInput(l), z = zOffsets[l], c = cOffsets[l]
            // h goes to this layer's z (next step) and to the next layer's input, as in Swift.
            let out = l + 1 < L ? zOffsets[l + 1] : z + I
            layers += """
                    for (j = 0; j < \(G); j++) g[j] = \(b.read("lstm_theta[\(layout.lstmBias[l].lowerBound) + j]", of: "lstm_theta", group: "\(layerBias[l])"));
                    lstm_gemv(\(G), \(I + H), lstm_theta + \(layout.lstmWeights[l].lowerBound)\(rowsArg(layerRows[l])), st + \(z), g);
                    for (j = 0; j < \(3 * H); j++) g[j] = lstm_sigmoid(g[j]);
                    for (j = \(3 * H); j < \(G); j++) g[j] = lstm_tanh(g[j]);
                    for (j = 0; j < \(H); j++) st[\(c) + j] = g[\(H) + j] * st[\(c) + j] + g[j] * g[\(3 * H) + j];
                    for (j = 0; j < \(H); j++) st[\(out) + j] = g[\(2 * H) + j] * lstm_tanh(st[\(c) + j]);

                """
            if l + 1 < L {
                layers += "        for (j = 0; j < \(H); j++) st[\(z + I) + j] = st[\(out) + j];\n"
            }
        }
        let top = zOffsets[L - 1] + shape.layerInput(L - 1)
        b.functions.append("""
            /* LSTMMath.exp: e^x on [-87, 88] by range reduction and a degree-6 polynomial, the same
               operations in the same order as Swift (not libm's expf, whose last bits differ). */
            static float lstm_exp(float x) {
                float shifted, n, r, p, scale;
                union { float f; uint32_t u; } bits; /* C99 reads a float's bits through a union */
                x = x < -87.0f ? -87.0f : x;
                x = x > 88.0f ? 88.0f : x;
                shifted = x * 1.44269504f + 12582912.0f;
                n = shifted - 12582912.0f;
                /* k = bits - 0x4B400000 in [-126, 127] (round(x / ln 2) in the low mantissa bits);
                   2^k's bits are (k + 127) << 23. Unsigned: a NaN's bits wrap, never overflow. */
                bits.f = shifted;
                bits.u = (bits.u - 0x4B400000u + 127u) << 23;
                scale = bits.f;
                r = x - n * 0.693359375f + n * 2.1219444e-4f;
                p = 1.98756915e-4f;
                p = p * r + 1.39819995e-3f;
                p = p * r + 8.3334519e-3f;
                p = p * r + 4.16657959e-2f;
                p = p * r + 1.66666655e-1f;
                p = p * r + 5.00000012e-1f;
                p = p * r * r + r + 1.0f;
                return p * scale;
            }

            static float lstm_sigmoid(float x) { return 1.0f / (1.0f + lstm_exp(-x)); }

            static float lstm_tanh(float x) { return 1.0f - 2.0f / (lstm_exp(2.0f * x) + 1.0f); }

            /* y += A x, A m x n column-major, column by column (BLAS blocks the sums differently). */
            static void lstm_gemv(int32_t m, int32_t n, const \(b.weightType) *a\(b.storage == .int8 ? ", int32_t g0" : ""), const float *x, float *y) {
                int32_t i, j;
                for (j = 0; j < n; j++) {
                    const float xj = x[j];
                    const \(b.weightType) *col = a + j * m;
                    for (i = 0; i < m; i++) y[i] = y[i] + \(b.read("col[i]", of: "lstm_theta", group: "g0 + i")) * xj;
                }
            }

            /* The head and softmax on slot k's top hidden state, into its scores. */
            static void lstm_head(\(prefix)_state *s, int32_t k) {
                float *st = s->lstm + k * \(slotFloats), *logits = s->lstm_logits, *out = st + \(scores), top, sum = 0.0f, inv;
                int32_t j, best = 0;
                for (j = 0; j < \(K); j++) logits[j] = \(b.read("lstm_theta[\(layout.headBias.lowerBound) + j]", of: "lstm_theta", group: "\(headBias)"));
                lstm_gemv(\(K), \(H), lstm_theta + \(layout.headWeights.lowerBound)\(rowsArg(headRows)), st + \(top), logits);
                top = logits[0];
                for (j = 1; j < \(K); j++) {
                    if (logits[j] > top) { top = logits[j]; best = j; }
                }
                for (j = 0; j < \(K); j++) {
                    float e = lstm_exp(logits[j] - top);
                    out[j] = e;
                    sum = sum + e;
                }
                inv = 1.0f / sum;
                for (j = 0; j < \(K); j++) out[j] *= inv;
                s->lstm_best[k] = best;
            }

            /* LSTMStream.reset: zero state, the head's scores on it. */
            static void lstm_reset_slot(\(prefix)_state *s, int32_t k) {
                int32_t j;
                for (j = 0; j < \(slotFloats); j++) s->lstm[k * \(slotFloats) + j] = 0.0f;
                s->lstm_seen[k] = 0;
                lstm_head(s, k);
            }

            /* LSTMStream.step: one raw frame into slot k; the LSTM steps\(shape.convolution.map { " every \($0.stride) frames once \($0.width) are held" } ?? " on every frame"). */
            static void lstm_step(\(prefix)_state *s, int32_t k, const float *frame) {
                float *st = s->lstm + k * \(slotFloats), *g = s->lstm_gates;
                int32_t j, seen = 0, slot = 0;
            \(input)
            \(layers)    lstm_head(s, k);
            }

            /* Slot k's prediction as the raw decision; its scores become the decision's. */
            static void lstm_decide(\(prefix)_state *s, int32_t k, raw_decision *d) {
                const float *sc = s->lstm + k * \(slotFloats) + \(scores);
                int32_t j;
                for (j = 0; j < \(K); j++) s->scores[j] = sc[j];
                d->cls = s->lstm_best[k];
                d->conf = sc[d->cls];
            }

            """)
        b.resetLines.append("{ int32_t q; for (q = 0; q < \(slots); q++) lstm_reset_slot(s, q); }")
    }
}
