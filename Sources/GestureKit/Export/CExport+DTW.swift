/// The DTW spotter's C: ``SegmentalSpotter`` over ``SpringColumns``, step for step.
///
/// `spot_decision(state *, const float *x, int64_t n, raw_decision *)` pushes one pre-processed
/// frame and returns 1 with the segment it reports on that frame (at most one a frame, oldest
/// first, as the Swift queue does); `spot_flush` drains what ``SegmentalSpotter/flush()`` reports
/// when the input ends. Every buffer is sized here from the model, in the caller's state.
///
/// Exactness: the SPRING cells are the kernel's (`spring_body.h`): per cell the squared
/// differences summed channel by channel in float, each square its own statement so no compiler
/// fuses it into the sum; ties prefer left, then diag, then up. The cut totals and the movement
/// are Double, the features and log-odds Float with `logf`/`expf` (Swift's `log`/`exp` on Float),
/// each product its own statement. The cells are laid out template by template rather than in
/// groups of 8 lanes: the kernel's lanes are independent and its padding cells are never read.
/// The reach and the lag per class are computed here by the Swift spotter itself.
extension CGenerator {
    mutating func dtwDecider(_ dtw: DTWClassifier) throws -> String {
        let field = "classifier (dtw)"
        guard dtw.canSpot, let m = dtw.model, let seg = m.segmental else {
            throw Self.refuse("the DTW model cannot spot (it keeps no segmental model, or rescales its examples)", field: field)
        }
        guard m.channels == channels, !m.lengths.isEmpty, seg.costMean.count == classCount,
              m.labels.allSatisfy({ $0 >= 0 && $0 < classCount }) else {
            throw Self.refuse("the DTW model does not match the pipeline's \(channels) channels and \(classCount) classes", field: field)
        }
        let naming = dtw.namesWhole ? WholeNaming(dtw) : nil
        if naming != nil, dtw.trim != nil {
            throw Self.refuse("naming segments by the whole window around them (\"nameWhole\") is exported to C only "
                              + "without still-trimming (\"trim\"); export the pipeline with \"nameWhole\": false", field: field)
        }
        let penalty = dtw.penalty
        let spotter = SegmentalSpotter(model: m, segmental: seg, penalty: penalty)
        let span = spotter.span, pool = spotter.pool, ch = channels
        let k = m.lengths.count
        var cells: [Int] = [], total = 0
        for n in m.lengths { cells.append(total); total += n }
        let cap = SegmentalSpotter.liveCuts
        let w = seg.weights
        let tiny = CBuilder.literal(SegmentalModel.tiny)
        let L = CBuilder.literal as (Float) -> String
        // SegmentalModel.features: the movement spread over a typical performance, in its float steps.
        let spread = seg.movementPerPerformance == true
            ? "\n    v = v * (float)(n - 1);\n    v = v / (sp_typical[c] - 1.0f >= 1.0f ? sp_typical[c] - 1.0f : 1.0f);" : ""

        // int8: a scale per template and channel, the unit a column's squared differences run over.
        var groupOf = [Int](repeating: 0, count: m.templates.count)
        for (t, n) in m.lengths.enumerated() {
            for c in 0..<ch { for i in 0..<n { groupOf[m.offsets[t] + c * n + i] = t * ch + c } }
        }
        b.weights("sp_templates", m.templates, groups: k * ch) { groupOf[$0] }
        b.keepFloat32("the spotter's learned model (costs, lengths, motion, reach): thresholds of its decisions")
        b.constant("sp_offset", ints: m.offsets)
        b.constant("sp_length", ints: m.lengths)
        b.constant("sp_label", ints: m.labels)
        b.constant("sp_cell", ints: cells)
        b.constant("sp_cost_mean", floats: seg.costMean)
        b.constant("sp_cost_spread", floats: seg.costSpread)
        b.constant("sp_typical", floats: seg.typicalLength)
        b.constant("sp_motion", floats: seg.motion)
        b.constant("sp_reach", floats: spotter.reachable)
        b.constant("sp_lag", ints: spotter.lag)
        b.constant("sp_typical_frames", ints: spotter.typical)

        b.field(.int64, "sp_frame")
        b.field(.int64, "sp_base")
        b.field(.int64, "sp_nodes")
        b.field(.int64, "sp_reported")
        b.field(.int64, "sp_committed")
        b.field(.int32, "sp_ready_head")
        b.field(.int32, "sp_ready_count")
        b.field(.double, "sp_total", count: span)
        b.field(.double, "sp_moved", count: span)
        b.field(.int64, "sp_newest", count: span)
        b.field(.int64, "sp_seg_start", count: pool)
        b.field(.int64, "sp_seg_end", count: pool)
        b.field(.int64, "sp_seg_parent", count: pool)
        b.field(.int64, "sp_ready", count: pool)
        b.field(.int64, "sp_scratch", count: cap + 1)
        b.field(.float, "sp_dist", count: total)
        b.field(.int32, "sp_start", count: total)
        b.field(.float, "sp_history", count: span * ch)
        b.field(.int32, "sp_seg_class", count: pool)
        b.field(.float, "sp_seg_odds", count: pool)
        b.resetLines += [
            "{ int32_t q; for (q = 0; q < \(total); q++) { s->sp_dist[q] = INFINITY; s->sp_start[q] = 0; } }",
            "{ int32_t q; for (q = 0; q < \(span); q++) { s->sp_total[q] = 0.0; s->sp_newest[q] = -1; s->sp_moved[q] = 0.0; } }",
            // The history is not cleared by the Swift reset either; zeroed once here so nothing is
            // read uninitialised (frame 0 reads none of it).
            "{ int32_t q; for (q = 0; q < \(span * ch); q++) s->sp_history[q] = 0.0f; }",
            "s->sp_frame = 0; s->sp_base = 0; s->sp_nodes = 0; s->sp_reported = -1; s->sp_committed = -1;",
            "s->sp_ready_head = 0; s->sp_ready_count = 0;",
        ]

        if m.unlearned != nil || naming != nil {
            b.functions.append("""
                /* SegmentalSpotter.windows(around:width:frames:): up to 3 windows of width frames around
                   frames st...en (starting with them, centred on them, ending with them), each moved back
                   to end by the newest frame and cut to the history; one starting where an earlier one
                   does is left out. Returns how many, their first and last frames in as and bs. */
                static int32_t sp_windows(\(prefix)_state *s, int64_t st, int64_t en, int64_t width, int64_t *as, int64_t *bs) {
                    int64_t starts[3], a, b;
                    int32_t q, r, count = 0;
                    starts[0] = st;
                    starts[1] = (st + en + 1) / 2 - width / 2;
                    starts[2] = en - width + 1;
                    for (q = 0; q < 3; q++) {
                        int dup = 0;
                        b = starts[q] + width - 1;
                        if (b > s->sp_frame - 1) b = s->sp_frame - 1;
                        a = b - width + 1;
                        if (a < 0) a = 0;
                        if (a < s->sp_frame - \(span) + 1) a = s->sp_frame - \(span) + 1;
                        for (r = 0; r < count; r++) if (as[r] == a) dup = 1;
                        if (a > b || dup) continue;
                        as[count] = a;
                        bs[count++] = b;
                    }
                    return count;
                }

                """)
        }
        if let u = m.unlearned { try unlearnedCheck(u, span: span, penalty: penalty, shortest: spotter.shortest) }
        if let naming { wholeNaming(naming, dtw: dtw, span: span) }
        b.functions.append("""
            /* SPRING (SpringColumns.step, the kernel spring_body.h): every template's column advanced by
               frame x, stream frame t. Row -1 is free; ties prefer left, then diag, then up. */
            static void sp_step(\(prefix)_state *s, const float *x, int64_t t) {
                int32_t k, i, c, at, m, leftStart, diagStart, upStart, duStart, bestStart;
                float left, diag, up, du, best, cost, e, sq, value;
                const \(b.weightType) *y;
                float *d;
                int32_t *st;
                if (t - s->sp_base >= ((int64_t)1 << 30)) {
                    const int64_t shift = (int64_t)1 << 29, oldest = -((int64_t)1 << 30);
                    for (i = 0; i < \(total); i++) {
                        int64_t v = (int64_t)s->sp_start[i] - shift;
                        s->sp_start[i] = (int32_t)(v > oldest ? v : oldest);
                    }
                    s->sp_base += shift;
                }
                at = (int32_t)(t - s->sp_base);
                for (k = 0; k < \(k); k++) {
                    m = sp_length[k];
                    y = sp_templates + sp_offset[k];
                    d = s->sp_dist + sp_cell[k];
                    st = s->sp_start + sp_cell[k];
                    left = 0.0f; diag = 0.0f; leftStart = at; diagStart = at;
                    for (i = 0; i < m; i++) {
                        e = x[0] - \(b.read("y[i]", of: "sp_templates", group: "k * \(ch)"));
                        cost = e * e;
                        for (c = 1; c < \(ch); c++) {
                            e = x[c] - \(b.read("y[c * m + i]", of: "sp_templates", group: "k * \(ch) + c"));
                            sq = e * e;
                            cost = cost + sq;
                        }
                        up = d[i];
                        upStart = st[i];
                        if (up < diag) { du = up; duStart = upStart; } else { du = diag; duStart = diagStart; }
                        if (du < left) { best = du; bestStart = duStart; } else { best = left; bestStart = leftStart; }
                        value = cost + best;
                        d[i] = value;
                        st[i] = bestStart;
                        diag = up; diagStart = upStart;
                        left = value; leftStart = bestStart;
                    }
                }
            }

            /* SegmentalModel.bound(c, cost:): the most log-odds a class-c candidate of cost d can reach. */
            static float sp_bound(int32_t c, float d) {
                float l = logf(\(tiny) >= d ? \(tiny) : d), a;
                a = \(L(w[1])) * (l - sp_cost_mean[c]);
                a = a / sp_cost_spread[c];
                return \(L(w[0])) + a;
            }

            /* SegmentalModel.logOdds: features in float, summed left to right (the movement spread over a
               typical performance when the model says so). */
            static float sp_log_odds(int32_t c, float d, int64_t n, float v) {
                const float floor_ = \(L(seg.motionFloor));
                float f0, f1, f2, o, p;
                f0 = logf(\(tiny) >= d ? \(tiny) : d) - sp_cost_mean[c];
                f0 = f0 / sp_cost_spread[c];
                f1 = fabsf(logf((float)n / sp_typical[c]));\(spread)
                f2 = fabsf(logf((v + floor_) / (sp_motion[c] + floor_)));
                p = \(L(w[1])) * f0;
                o = \(L(w[0])) + p;
                p = \(L(w[2])) * f1;
                o = o + p;
                p = \(L(w[3])) * f2;
                return o + p;
            }

            /* SegmentalSpotter.extend: the best cut ending at t, from the background or a segment ending
               at t that starts after the last report. */
            static void sp_extend(\(prefix)_state *s, int64_t t) {
                const int64_t r = t % \(span);
                double best, before;
                int64_t bestNode, chosenStart = 0;
                int32_t k, chosen = -1;
                float chosenOdds = 0.0f;
                best = t > 0 ? s->sp_total[(t - 1) % \(span)] : 0.0;
                bestNode = t > 0 ? s->sp_newest[(t - 1) % \(span)] : -1;
                for (k = 0; k < \(k); k++) {
                    const int32_t at = sp_cell[k] + sp_length[k] - 1, len = sp_length[k];
                    const float dist = s->sp_dist[at];
                    const int64_t st = s->sp_base + s->sp_start[at], cnt = t - st + 1;
                    int32_t c;
                    float extent, v, odds, gain;
                    if (!isfinite(dist) || !(st > s->sp_committed) || !(cnt < \(span) - 1)) continue;
                    if (!(cnt * \(SpringColumns.maxWarp) >= len && cnt <= (int64_t)len * \(SpringColumns.maxWarp))) continue;
                    c = sp_label[k];
                    if (!(dist < sp_reach[c])) continue;
                    extent = (float)cnt / sp_typical[c];
                    extent = 1.0f < extent ? 1.0f : extent;
                    if (!(extent * sp_bound(c, dist) > \(L(penalty)))) continue;
                    v = cnt > 1 ? (float)((s->sp_moved[r] - s->sp_moved[st % \(span)]) / (double)(cnt - 1)) : 0.0f;
                    odds = sp_log_odds(c, dist, cnt, v);
                    gain = extent * odds;
                    gain = gain - \(L(penalty));
                    if (!(gain > 0.0f)) continue;
                    before = st > 0 ? s->sp_total[(st - 1) % \(span)] : 0.0;
                    if (before + (double)gain > best) {
                        best = before + (double)gain;
                        chosen = k;
                        chosenStart = st;
                        chosenOdds = odds;
                    }
                }
                if (chosen >= 0) {
                    const int64_t id = s->sp_nodes++, i = id % \(pool);
                    s->sp_seg_class[i] = sp_label[chosen];
                    s->sp_seg_start[i] = chosenStart;
                    s->sp_seg_end[i] = t;
                    s->sp_seg_odds[i] = chosenOdds;
                    s->sp_seg_parent[i] = chosenStart > 0 ? s->sp_newest[(chosenStart - 1) % \(span)] : -1;
                    bestNode = id;
                }
                s->sp_total[r] = best;
                s->sp_newest[r] = bestNode;
            }

            /* The newest segment both cuts hold (-1 or the last report when none newer). */
            static int64_t sp_ancestor(const \(prefix)_state *s, int64_t a, int64_t b) {
                while (a > s->sp_reported && b > s->sp_reported && a != b) {
                    if (a > b) a = s->sp_seg_parent[a % \(pool)]; else b = s->sp_seg_parent[b % \(pool)];
                }
                return a == b ? a : s->sp_reported;
            }

            /* The columns and the best cuts as if the stream began just after the report (the frames since, replayed). */
            static void sp_rebuild(\(prefix)_state *s) {
                const int64_t last = s->sp_frame - 1, first = s->sp_committed + 1;
                int64_t y;
                int32_t i;
                if (!(first <= last && last - first < \(span))) {
                    const int64_t by = s->sp_committed - s->sp_base;
                    for (i = 0; i < \(total); i++) if ((int64_t)s->sp_start[i] <= by) s->sp_dist[i] = INFINITY;
                    return;
                }
                for (i = 0; i < \(total); i++) { s->sp_dist[i] = INFINITY; s->sp_start[i] = 0; }
                s->sp_base = first;
                s->sp_newest[s->sp_committed % \(span)] = s->sp_reported;
                for (y = first; y <= last; y++) {
                    sp_step(s, s->sp_history + (y % \(span)) * \(ch), y);
                    sp_extend(s, y);
                }
            }

            /* Queues every unreported segment on id's cut up to id, oldest first. */
            static void sp_commit(\(prefix)_state *s, int64_t id) {
                int64_t a;
                int32_t len = 0, j;
                if (id <= s->sp_reported) return;
                for (a = id; a > s->sp_reported; a = s->sp_seg_parent[a % \(pool)]) len++;
                j = len - 1;
                for (a = id; a > s->sp_reported; a = s->sp_seg_parent[a % \(pool)]) {
                    s->sp_ready[(s->sp_ready_head + s->sp_ready_count + j) % \(pool)] = a;
                    j--;
                }
                s->sp_ready_count += len;
                s->sp_reported = id;
                s->sp_committed = s->sp_seg_end[id % \(pool)];
                sp_rebuild(s);
            }

            /* Reports the segments every live path agrees on (SegmentalSpotter.settle). */
            static void sp_settle(\(prefix)_state *s, int64_t t) {
                const double now = s->sp_total[t % \(span)];
                int64_t oldest = t + 1, y, previous = INT64_MIN, agreed, a, last;
                int32_t k, i, c, count = 0, q, found, overflow;
                if (s->sp_nodes - 1 <= s->sp_reported) return;
                for (k = 0; k < \(k); k++) {
                    int64_t earliest = t + 2 - \(SpringColumns.maxWarp) * (int64_t)sp_length[k];
                    float reach;
                    c = sp_label[k];
                    if (s->sp_committed + 1 > earliest) earliest = s->sp_committed + 1;
                    reach = sp_reach[c];
                    for (i = 0; i < sp_length[k]; i++) {
                        const float dist = s->sp_dist[sp_cell[k] + i];
                        if (dist < reach) {
                            const int64_t st = s->sp_base + s->sp_start[sp_cell[k] + i];
                            if (st < oldest && st >= earliest) {
                                float bound = sp_bound(c, dist), g, p;
                                g = logf((float)(t - st + 1) / sp_typical[c]);
                                g = 0.0f >= g ? 0.0f : g;
                                p = \(L(w[2])) * g;
                                bound = bound + p;
                                if ((st > 0 ? s->sp_total[(st - 1) % \(span)] : 0.0) + (double)(bound - \(L(penalty))) > now) oldest = st;
                            }
                        }
                    }
                }
                y = oldest - 1;
                if (y < 0) y = 0;
                if (y < t - \(span) + 2) y = t - \(span) + 2;
                for (; y <= t; y++) {
                    const int64_t id = s->sp_newest[y % \(span)];
                    if (id != previous) {
                        found = 0;
                        for (q = 0; q < count; q++) if (s->sp_scratch[q] == id) { found = 1; break; }
                        if (!found) {
                            if (count == \(cap)) break;
                            s->sp_scratch[count++] = id;
                        }
                    }
                    previous = id;
                }
                if (oldest == 0) s->sp_scratch[count++] = -1;
                overflow = count >= \(cap);
                if (overflow) {
                    agreed = s->sp_reported;
                } else {
                    agreed = s->sp_scratch[0];
                    for (q = 1; q < count; q++) agreed = sp_ancestor(s, agreed, s->sp_scratch[q]);
                }
                /* A segment that fell out of the history is final whatever is alive. */
                last = -2;
                for (a = s->sp_newest[t % \(span)]; a > s->sp_reported; a = s->sp_seg_parent[a % \(pool)]) last = a;
                if (last != -2 && s->sp_seg_end[last % \(pool)] <= t - \(span) + 2 && last > agreed) agreed = last;
                /* Fixed lag: a segment on the best cut that ended a while ago is final, but no sooner
                   than a typical performance after its start. */
                a = s->sp_newest[t % \(span)];
                while (a > agreed) {
                    const int64_t j = a % \(pool);
                    int64_t whole, late;
                    c = s->sp_seg_class[j];
                    whole = s->sp_seg_start[j] + sp_typical_frames[c] - 1;
                    late = s->sp_seg_end[j] + sp_lag[c];
                    if ((late > whole ? late : whole) <= t) { agreed = a; break; }
                    a = s->sp_seg_parent[j];
                }
                sp_commit(s, agreed);
            }

            /* The oldest queued report, if any (SegmentalSpotter.nextReady / report). */
            static int sp_next(\(prefix)_state *s, raw_decision *d) {
                int64_t id, j;
                int32_t c, kk;
                float conf;
                do {
                    if (s->sp_ready_count == 0) return 0;
                    id = s->sp_ready[s->sp_ready_head];
                    s->sp_ready_head = (s->sp_ready_head + 1) % \(pool);
                    s->sp_ready_count--;
                    j = id % \(pool);
                } while (\(m.unlearned == nil ? "0" : "!sp_learned(s, j)"));
                c = \(naming == nil ? "s->sp_seg_class[j]" : "sp_whole_name(s, j)");
                conf = 1.0f / (1.0f + expf(-s->sp_seg_odds[j]));
                for (kk = 0; kk < \(classCount); kk++) s->scores[kk] = 0.0f;
                s->scores[c] = conf;
                d->cls = c;
                d->conf = conf;
                d->start = s->sp_seg_start[j];
                d->end = s->sp_seg_end[j];
                return 1;
            }

            /* SegmentalSpotter.push: one frame; a report when one is final on it. */
            static int spot_decision(\(prefix)_state *s, const float *x, int64_t n, raw_decision *d) {
                const int64_t t = s->sp_frame++;
                const int64_t r = t % \(span);
                double change = 0.0;
                int32_t j;
                (void)n;
                if (t > 0) for (j = 0; j < \(ch); j++) change = change + (double)fabsf(x[j] - s->sp_history[((t - 1) % \(span)) * \(ch) + j]);
                s->sp_moved[r] = (t > 0 ? s->sp_moved[(t - 1) % \(span)] : 0.0) + change;
                for (j = 0; j < \(ch); j++) s->sp_history[r * \(ch) + j] = x[j];
                sp_step(s, x, t);
                sp_extend(s, t);
                sp_settle(s, t);
                return sp_next(s, d);
            }

            /* SegmentalSpotter.flush: the input has ended; call until it returns 0. */
            static int spot_flush(\(prefix)_state *s, raw_decision *d) {
                if (s->sp_frame > 0)
                    while (s->sp_newest[(s->sp_frame - 1) % \(span)] > s->sp_reported) sp_commit(s, s->sp_newest[(s->sp_frame - 1) % \(span)]);
                return sp_next(s, d);
            }

            """)
        spots = true
        return "spot_decision"
    }

    /// ``WholeNaming`` as `sp_whole_name(state *, slot)`: the three windows around the segment
    /// (`SegmentalSpotter.wholeName`), each classified as `DTWClassifier.predict` classifies a whole
    /// example (in the kernel's float operations: a cell's squares summed channel by channel, then its
    /// cheapest predecessor added), the nearest window named when its distance is within its class's
    /// limit. The segment's own class is searched first, so the best so far is tight early; a
    /// template is skipped once its first and last cells alone (on every warping path) cost more than
    /// the best so far or the widest class limit, and abandoned once a row's least value does, as
    /// Swift's search abandons by lower bounds: none of these changes a minimum that can name a
    /// report. Ties go to the lower class, then to the earlier window, as there.
    private mutating func wholeNaming(_ naming: WholeNaming, dtw: DTWClassifier, span: Int) {
        let ch = channels, m = naming.classifier.model!, longest = m.lengths.max() ?? 1
        // With a derivative the windows and templates carry each channel's scaled first difference
        // too (`DTWClassifier.Model.differenced`): the differenced templates are written as they are.
        let scales = m.derivativeScales, wch = scales == nil ? ch : 2 * ch
        let template: String
        if let scales {
            let whole = m.whole
            b.constant("sp_whole_templates", floats: whole.templates)
            b.constant("sp_whole_offset", ints: whole.offsets)
            b.constant("sp_whole_scale", floats: scales)
            b.constant("sp_whole_step", floats: m.differenceLimits ?? [Float](repeating: .infinity, count: ch))
            b.keepFloat32("the differenced templates of the whole-window naming: compared with learned limits")
            template = "sp_whole_templates[sp_whole_offset[k] + c * m + j]"
        } else {
            template = b.read("y[c * m + j]", of: "sp_templates", group: "k * \(ch) + c")
        }
        let differences = scales == nil ? "" : """
                    for (ch = 0; ch < \(ch); ch++)
                        for (y = 0; y < n; y++) {
                            const float *x = s->sp_window + ch * n;
                            float v = n < 2 ? 0.0f : x[y < 1 ? 1 : y] - x[(y < 1 ? 1 : y) - 1];
                            if (n >= 2) {
                                if (v < -sp_whole_step[ch]) v = -sp_whole_step[ch];
                                if (v > sp_whole_step[ch]) v = sp_whole_step[ch];
                                v = v * sp_whole_scale[ch];
                            }
                            s->sp_window[(\(ch) + ch) * n + y] = v;
                        }
            """
        // Independent DTW sums one-channel distances in channel order (gk_dtw_independent).
        // A template is abandoned once it cannot come out below both the window's best and the best
        // window's: costs are never negative, so a partial sum or a row's least value only grows
        // (a channel alone beyond the cutoff puts the sum beyond it).
        let search = dtw.variant == .independent
            ? "d = 0.0f; for (ch = 0; ch < \(wch); ch++) { d = d + sp_whole_dtw(s, s->sp_window, n, k, ch, 1, cut); if (d > cut) { d = INFINITY; break; } }"
            : "d = sp_whole_dtw(s, s->sp_window, n, k, 0, \(wch), cut);"
        let limits = naming.limits.map { $0.isFinite ? $0 : -1 }
        // No window farther than every class's limit can rename a report, so it is a cutoff too.
        let widest = naming.limits.filter(\.isFinite).max() ?? -1
        b.constant("sp_whole_limit", floats: limits)
        let rejects = m.rejection.k == nil ? nil : m.rejection.thresholds
        if let rejects { b.constant("sp_whole_reject", floats: rejects) }
        let window: String
        switch dtw.band {
        case .full: window = "w = n > m ? n : m;"
        case .samples(let v): window = "w = \(v);"
        case .fraction(let f): window = "w = (int64_t)ceil(\(CBuilder.literal(f)) * (double)(n > m ? n : m));"
        }
        b.field(.float, "sp_window", count: span * wch)
        b.field(.float, "sp_row", count: 2 * (longest + 1))
        b.functions.append("""
            /* DTW of window a (channel-major, n frames) against template k over channels c0 ..< c0 + cs
               (gk_dtw_dependent: D(-1, -1) = 0, the band as there); infinity once a row's least value
               exceeds cutoff (no later cell can come below it). */
            static float sp_whole_dtw(\(prefix)_state *s, const float *a, int64_t n, int32_t k, int32_t c0, int32_t cs,
                                      float cutoff) {
                const int64_t m = sp_length[k];
                \(scales == nil ? "const \(b.weightType) *y = sp_templates + sp_offset[k];" : "")
                float *prev = s->sp_row, *next = s->sp_row + \(longest + 1), *tmp;
                float cost, e, sq, best, least;
                int64_t i, j, w, diff;
                int32_t c;
                int banded;
                \(window)
                diff = n > m ? n - m : m - n;
                if (w < diff) w = diff;
                banded = w < (n > m ? n : m) - 1;
                if (n > 1 || m > 1) {
                    float first = 0.0f, last = 0.0f, both;
                    for (i = 0, j = 0, c = c0; c < c0 + cs; c++) {
                        e = a[c * n + i] - \(template);
                        sq = e * e;
                        first = first + sq;
                    }
                    for (i = n - 1, j = m - 1, c = c0; c < c0 + cs; c++) {
                        e = a[c * n + i] - \(template);
                        sq = e * e;
                        last = last + sq;
                    }
                    both = first + last;
                    if (both > cutoff) return INFINITY;
                }
                for (j = 0; j <= m; j++) prev[j] = INFINITY;
                prev[0] = 0.0f;
                for (i = 0; i < n; i++) {
                    next[0] = INFINITY;
                    least = INFINITY;
                    for (j = 0; j < m; j++) {
                        if (banded && (i - j > w || j - i > w)) { next[j + 1] = INFINITY; continue; }
                        cost = 0.0f;
                        for (c = c0; c < c0 + cs; c++) {
                            e = a[c * n + i] - \(template);
                            sq = e * e;
                            cost = cost + sq;
                        }
                        best = next[j] < prev[j + 1] ? next[j] : prev[j + 1];
                        best = prev[j] < best ? prev[j] : best;
                        next[j + 1] = cost + best;
                        if (next[j + 1] < least) least = next[j + 1];
                    }
                    if (least > cutoff) return INFINITY;
                    tmp = prev; prev = next; next = tmp;
                }
                return prev[m];
            }

            /* SegmentalSpotter.wholeName / WholeNaming.name: the class segment slot j is reported as. */
            static int32_t sp_whole_name(\(prefix)_state *s, int64_t j) {
                const int64_t st = s->sp_seg_start[j], en = s->sp_seg_end[j];
                const int32_t own = s->sp_seg_class[j];
                int64_t typical = (int64_t)sp_typical[own], as[3], bs[3], a, b, y, n;
                int32_t windows, q, k, ch, cls, pass, top = -1;
                float d, topD = INFINITY, winD, cut;
                if (typical < en - st + 1) typical = en - st + 1;
                windows = sp_windows(s, st, en, typical, as, bs);
                for (q = 0; q < windows; q++) {
                    a = as[q];
                    b = bs[q];
                    n = b - a + 1;
                    for (y = a; y <= b; y++)
                        for (ch = 0; ch < \(ch); ch++) s->sp_window[ch * n + (y - a)] = s->sp_history[(y % \(span)) * \(ch) + ch];
                    \(differences)
                    cls = -1;
                    winD = INFINITY;
                    for (pass = 0; pass < 2; pass++)
                        for (k = 0; k < \(m.lengths.count); k++) {
                            if ((sp_label[k] == own) != (pass == 0)) continue;
                            cut = winD < topD ? winD : topD;
                            if (cut > \(CBuilder.literal(widest))) cut = \(CBuilder.literal(widest));
                            \(search)
                            if (d < winD || (d == winD && sp_label[k] < cls)) { winD = d; cls = sp_label[k]; }
                        }
                    if (cls < 0 || !(winD < INFINITY)) continue;
                    \(rejects == nil ? "" : "if (winD > sp_whole_reject[cls]) continue;")
                    if (winD < topD) { topD = winD; top = cls; }
                }
                if (top < 0 || !(sp_whole_limit[top] >= 0.0f) || !(topD <= sp_whole_limit[top])) return own;
                return top;
            }

            """)
    }

    /// ``UnlearnedCheck`` as `sp_learned(state *, slot)`: the segment's frames and the windows
    /// around it (as `SegmentalSpotter.checkWindows`) from the history, each resampled, MiniRocket's
    /// transform (the windowed extractors' C) and the nearest library row; the largest ratio,
    /// weighted, added to the segment's gain (`SegmentalSpotter.isLearned`), in the same order of
    /// float operations.
    private mutating func unlearnedCheck(_ u: UnlearnedCheck, span: Int, penalty: Float, shortest: [Int]) throws {
        let ch = channels, n = u.length, f = u.featureCount, rows = u.library.count / max(f, 1)
        let L = CBuilder.literal as (Float) -> String
        try miniRocketHalf(u.rocket, name: "ul", frames: n, pools: false)
        b.constant("ul_library", floats: u.library)
        b.keepFloat32("the unlearned check's library: distances to it are compared with a learned ratio")
        b.field(.float, "ul_segment", count: span * ch)
        b.field(.float, "ul_resampled", count: n * ch)
        b.field(.float, "ul_features", count: f)
        b.constant("sp_shortest", ints: shortest)
        b.functions.append("""
            /* The log-likelihood ratio of frames a...b of the history: resampled, MiniRocket's
               features, the log distance to the nearest training example. */
            static float sp_ratio(\(prefix)_state *s, int64_t first, int64_t n) {
                float *w = s->ul_segment, *r = s->ul_resampled, *f = s->ul_features;
                float best = INFINITY, dist, e, sq, l, p;
                int64_t y, a;
                int32_t k, i, q;
                for (y = 0; y < n; y++)
                    for (k = 0; k < \(ch); k++) w[y * \(ch) + k] = s->sp_history[((first + y) % \(span)) * \(ch) + k];
                if (n > 1) {
                    for (i = 0; i < \(n); i++) {
                        float pos = (float)i * (float)(n - 1), t, v0, v1;
                        pos = pos / \(L(Float(max(n - 1, 1))));
                        a = (int64_t)pos;
                        if (a > n - 2) a = n - 2;
                        t = pos - (float)a;
                        for (k = 0; k < \(ch); k++) {
                            v0 = w[a * \(ch) + k] * (1.0f - t);
                            v1 = w[(a + 1) * \(ch) + k] * t;
                            r[i * \(ch) + k] = v0 + v1;
                        }
                    }
                } else {
                    for (i = 0; i < \(n); i++) for (k = 0; k < \(ch); k++) r[i * \(ch) + k] = w[k];
                }
                ul_extract(s, r, f);
                for (q = 0; q < \(rows); q++) {
                    const float *x = ul_library + (int64_t)q * \(f);
                    dist = 0.0f;
                    for (i = 0; i < \(f); i++) {
                        e = f[i] - x[i];
                        sq = e * e;
                        dist = dist + sq;
                    }
                    if (dist < best) best = dist;
                }
                l = logf(1e-12f >= best ? 1e-12f : best);
                p = \(L(u.slope)) * l;
                return \(L(u.intercept)) + p;
            }

            /* Whether segment slot j stays reported once the largest ratio of its frames and of the
               windows around it (SegmentalSpotter.checkWindows) is weighed in (a segment out of the
               history is kept). */
            static int sp_learned(\(prefix)_state *s, int64_t j) {
                const int64_t st = s->sp_seg_start[j], en = s->sp_seg_end[j], n = en - st + 1;
                const int32_t c = s->sp_seg_class[j];
                int64_t widths[2], as[3], bs[3], tryA[7], tryB[7];
                int32_t q, r, v, windows, tried = 1;
                float ratio, one, gain, p;
                if (s->sp_frame - st > \(span)) return 1;
                ratio = sp_ratio(s, st, n);
                tryA[0] = st;
                tryB[0] = en;
                widths[0] = (int64_t)sp_typical[c];
                if (widths[0] < n) widths[0] = n;
                widths[1] = (int64_t)sp_shortest[c];
                for (v = 0; v < 2; v++) {
                    windows = sp_windows(s, st, en, widths[v], as, bs);
                    for (q = 0; q < windows; q++) {
                        int dup = 0;
                        for (r = 0; r < tried; r++) if (tryA[r] == as[q] && tryB[r] == bs[q]) dup = 1;
                        if (dup) continue;
                        tryA[tried] = as[q];
                        tryB[tried++] = bs[q];
                        one = sp_ratio(s, as[q], bs[q] - as[q] + 1);
                        if (one > ratio) ratio = one;
                    }
                }
                gain = (float)n / sp_typical[c];
                gain = 1.0f < gain ? 1.0f : gain;
                gain = gain * s->sp_seg_odds[j];
                gain = gain - \(L(penalty));
                p = \(L(UnlearnedCheck.weight)) * ratio;
                return gain + p >= 0.0f;
            }

            """)
    }
}
