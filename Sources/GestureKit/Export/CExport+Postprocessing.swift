/// The post-processors' C: each turns the raw decision `d` made on frame `n` into what to report,
/// as its Swift `process(_:frame:)` does (a suppressed decision has class -1 and confidence 0).
extension CGenerator {
    /// The statement that runs post-processing stage `i` on `d`.
    mutating func postprocessor(_ stage: any Postprocessor, index i: Int) throws -> String {
        let field = "postprocessing[\(i)] (\(type(of: stage).kind))"
        switch stage {
        case let f as LabelFilter:
            let n = Swift.max(f.bufferSize, 1)
            b.field(.int32, "post\(i)_labels", count: n)
            b.field(.float, "post\(i)_conf", count: n)
            b.field(.int32, "post\(i)_pos")
            b.resetLines.append("{ int32_t q; for (q = 0; q < \(n); q++) { s->post\(i)_labels[q] = -1; s->post\(i)_conf[q] = 0.0f; } s->post\(i)_pos = 0; }")
            b.functions.append("""
                /* Majority of the last \(n) decisions, reported once it has \(f.minimumCount) votes. */
                static void post\(i)(\(prefix)_state *s, raw_decision *d) {
                    int32_t pos = s->post\(i)_pos, q, r, winner = -1, winner_votes = 0, winner_age = INT32_MAX;
                    float sum = 0.0f;
                    s->post\(i)_pos = pos + 1 == \(n) ? 0 : pos + 1;
                    s->post\(i)_labels[pos] = d->cls;
                    s->post\(i)_conf[pos] = isfinite(d->conf) ? d->conf : 0.0f;
                    for (q = 0; q < \(n); q++) {
                        int32_t label = s->post\(i)_labels[q], votes = 0, age = INT32_MAX;
                        float acc = 0.0f;
                        if (label < 0) continue;
                        for (r = 0; r < \(n); r++) {
                            int32_t a;
                            if (s->post\(i)_labels[r] != label) continue;
                            votes++;
                            acc += s->post\(i)_conf[r];
                            a = (pos - r + \(n)) % \(n);
                            if (a < age) age = a;
                        }
                        if (votes > winner_votes || (votes == winner_votes && age < winner_age)) {
                            winner = label;
                            winner_votes = votes;
                            winner_age = age;
                            sum = acc;
                        }
                    }
                    if (winner < 0 || winner_votes < \(f.minimumCount)) {
                        d->cls = -1;
                        d->conf = 0.0f;
                        return;
                    }
                    d->cls = winner;
                    d->conf = sum / (float)winner_votes;
                }

                """)
            return "post\(i)(s, &d);"
        case is ChangeFilter:
            b.field(.int32, "post\(i)_previous")
            b.resetLines.append("s->post\(i)_previous = -1;")
            b.functions.append("""
                /* A class only when the raw decision changes to it. */
                static void post\(i)(\(prefix)_state *s, raw_decision *d) {
                    int32_t label = d->cls;
                    if (label < 0 || label == s->post\(i)_previous) {
                        d->cls = -1;
                        d->conf = 0.0f;
                    }
                    s->post\(i)_previous = label;
                }

                """)
            return "post\(i)(s, &d);"
        case let f as ConfidenceThreshold:
            return "if (!(d.conf >= \(CBuilder.literal(f.threshold)))) { d.cls = -1; d.conf = 0.0f; }"
        case let f as TimeoutFilter:
            guard let frames = f.timeoutFrames else {
                throw Self.refuse("the timeout has no length in frames (no sample rate)", field: field)
            }
            b.field(.int64, "post\(i)_last")
            b.field(.int32, "post\(i)_reported")
            b.resetLines.append("s->post\(i)_reported = 0;")
            b.functions.append("""
                /* Nothing within \(frames) frames of the last report. */
                static void post\(i)(\(prefix)_state *s, raw_decision *d, int64_t n) {
                    if (s->post\(i)_reported && n - s->post\(i)_last <= \(frames)) {
                        d->cls = -1;
                        d->conf = 0.0f;
                        return;
                    }
                    if (d->cls < 0) return;
                    s->post\(i)_last = n;
                    s->post\(i)_reported = 1;
                }

                """)
            return "post\(i)(s, &d, n);"
        case let f as HMMFilter:
            return hmmFilter(f, index: i)
        case let f as TransitionFilter:
            return try transitionFilter(f, index: i, field: field)
        case let f as PostureFilter:
            return try postureFilter(f, index: i, field: field)
        case let f as OnsetFilter:
            return try onsetFilter(f, index: i, field: field)
        default:
            throw Self.refuse("the \(type(of: stage).kind) post-processor has no C form yet", field: field)
        }
    }

    /// ``HMMFilter/process(_:frame:)``: the forward filter over the decision's scores, the belief
    /// carried between decisions, the class of highest belief reported with it as confidence. The
    /// matrix is the learned one, or `stay` on the diagonal, as Swift makes it on the first decision.
    private mutating func hmmFilter(_ f: HMMFilter, index i: Int) -> String {
        let k = classCount
        let matrix: [Float]
        if f.transitions.count == k * k {
            matrix = f.transitions
        } else {
            let off = k > 1 ? (1 - f.stay) / Float(k - 1) : 0
            matrix = (0..<(k * k)).map { $0 / k == $0 % k ? (k > 1 ? f.stay : 1) : off }
        }
        let uniform = CBuilder.literal(1 / Float(k))
        let floor = CBuilder.literal(f.floor)
        b.constant("post\(i)_matrix", floats: matrix)
        b.field(.float, "post\(i)_belief", count: k)
        b.field(.float, "post\(i)_joint", count: k)
        b.resetLines.append("{ int32_t q; for (q = 0; q < \(k); q++) s->post\(i)_belief[q] = \(uniform); }")
        // Swift's max(x, y) is `y >= x ? y : x`: written out so a NaN score goes where Swift's does.
        b.functions.append("""
            /* HMM forward filter: belief = normalised (belief x transitions) x floored emissions. */
            static void post\(i)(\(prefix)_state *s, raw_decision *d) {
                float emission_sum = 0.0f, scale, total = 0.0f, inv, e;
                int32_t c, r, best = 0;
                for (c = 0; c < \(k); c++) {
                    e = s->scores[c];
                    emission_sum += 0.0f >= e ? 0.0f : e;
                }
                scale = emission_sum > 0.0f ? 1.0f / emission_sum : 0.0f;
                for (c = 0; c < \(k); c++) {
                    float prior = 0.0f, emission = 1.0f;
                    for (r = 0; r < \(k); r++) prior += s->post\(i)_belief[r] * post\(i)_matrix[r * \(k) + c];
                    if (emission_sum > 0.0f) {
                        e = s->scores[c];
                        e = (0.0f >= e ? 0.0f : e) * scale;
                        emission = \(floor) >= e ? \(floor) : e;
                    }
                    s->post\(i)_joint[c] = prior * emission;
                    total += s->post\(i)_joint[c];
                }
                inv = total > 0.0f && isfinite(total) ? 1.0f / total : 0.0f;
                for (c = 0; c < \(k); c++) s->post\(i)_belief[c] = inv > 0.0f ? s->post\(i)_joint[c] * inv : \(uniform);
                for (c = 1; c < \(k); c++) {
                    if (s->post\(i)_belief[c] > s->post\(i)_belief[best]) best = c;
                }
                d->cls = best;
                d->conf = s->post\(i)_belief[best];
            }

            """)
        return "post\(i)(s, &d);"
    }

    /// The pipeline's indices of a stage's class names; an unknown name is refused with the stage named.
    private func indices(of names: [String], field: String) throws -> [Int] {
        do { return try classIndices(of: names, in: pipeline.classes) } catch let e as GestureKitError {
            throw Self.refuse(e.message, field: field)
        }
    }

    /// ``TransitionFilter/process(_:frame:)``: while a run of transition classes lasts, the class
    /// before it is reported; when it ends (and the class after has settled) the transition that
    /// best fits before and after becomes the decision's event, dated from the run's first decision.
    private mutating func transitionFilter(_ f: TransitionFilter, index i: Int, field: String) throws -> String {
        let k = classCount
        let held = try indices(of: f.classes, field: field)
        guard f.counts.isEmpty || (f.classCount == k && f.counts.count == (k + 1) * (k + 1) * held.count) else {
            throw Self.refuse("the filter's counts are not learned over the pipeline's \(k) classes", field: field)
        }
        events = true
        let n = held.count
        var position = [Int](repeating: -1, count: k)
        for (p, c) in held.enumerated() { position[c] = p }
        let p = "post\(i)_"
        b.constant("\(p)held", ints: held)
        b.constant("\(p)position", ints: position)
        if !f.counts.isEmpty { b.constant("\(p)counts", floats: f.counts) }
        b.field(.int64, "\(p)run_start")
        b.field(.int64, "\(p)wait_start")
        b.field(.int32, "\(p)last")
        b.field(.int32, "\(p)before")
        b.field(.int32, "\(p)run")
        b.field(.int32, "\(p)waiting")
        b.field(.int32, "\(p)wait_length")
        b.field(.int32, "\(p)wait_before")
        b.field(.int32, "\(p)after_first")
        b.field(.int32, "\(p)after_seen")
        b.field(.int32, "\(p)after_votes", count: k + 1)
        b.field(.float, "\(p)evidence", count: n)
        b.field(.float, "\(p)wait_evidence", count: n)
        // One line of C: a trailing backslash continues a Swift string's line.
        b.resetLines.append("""
            { int32_t q; s->\(p)last = -1; s->\(p)before = -1; s->\(p)run = 0; s->\(p)waiting = 0; s->\(p)after_seen = 0; \
            s->\(p)run_start = 0; s->\(p)wait_start = 0; s->\(p)wait_length = 0; s->\(p)wait_before = -1; s->\(p)after_first = -1; \
            for (q = 0; q <= \(k); q++) s->\(p)after_votes[q] = 0; \
            for (q = 0; q < \(n); q++) { s->\(p)evidence[q] = 0.0f; s->\(p)wait_evidence[q] = 0.0f; } }
            """)
        // The prior of each transition given the contexts before and after (TransitionFilter.choice).
        let choice: String
        if f.counts.isEmpty {
            choice = "(void)after;\n    for (e = 0; e < \(n); e++) prior[e] = 1.0f;"
        } else {
            let rest = f.rest ?? -1
            let open = rest >= 0 ? "\(p)counts[(b * \(k + 1) + \(rest)) * \(n) + e]" : "0.0f"
            choice = """
                {
                        int32_t a = after < 0 ? \(k) : after, base = (b * \(k + 1) + a) * \(n), use_open = 0;
                        float total = 0.0f, t = 0.0f;
                        for (e = 0; e < \(n); e++) total = total + (\(p)counts[base + e] + 0.0f);
                        if (total == 0.0f && a != \(k) && a != \(rest)) {
                            for (e = 0; e < \(n); e++) t = t + (\(p)counts[(b * \(k + 1) + \(k)) * \(n) + e] + \(open));
                            if (t > 0.0f) { use_open = 1; total = t; }
                        }
                        for (e = 0; e < \(n); e++) {
                            float count = use_open ? \(p)counts[(b * \(k + 1) + \(k)) * \(n) + e] + \(open) : \(p)counts[base + e] + 0.0f;
                            prior[e] = (count + \(CBuilder.literal(f.smoothing))) / (total + \(CBuilder.literal(f.smoothing)) * \(CBuilder.literal(Float(n))));
                        }
                    }
                """
        }
        b.functions.append("""
            /* The slot of a label among the votes for the class after a run: the class, or \(k) for none. */
            static void \(p)vote(\(prefix)_state *s, int32_t label) {
                int32_t q;
                if (s->\(p)after_seen == 0) {
                    for (q = 0; q <= \(k); q++) s->\(p)after_votes[q] = 0;
                    s->\(p)after_first = label;
                }
                s->\(p)after_votes[label >= 0 && label < \(k) ? label : \(k)]++;
                s->\(p)after_seen++;
            }

            /* The ended run's transition, the class after it settled, as the decision's event. */
            static void \(p)finish(\(prefix)_state *s, raw_decision *d) {
                float prior[\(n)], best_score = -INFINITY, length;
                int32_t q, e, best = 0, after, b = s->\(p)wait_before < 0 ? \(k) : s->\(p)wait_before;
                int32_t top = s->\(p)after_first >= 0 && s->\(p)after_first < \(k) ? s->\(p)after_first : \(k);
                (void)b;
                s->\(p)waiting = 0;
                for (q = 0; q <= \(k); q++) {
                    if (s->\(p)after_votes[q] > s->\(p)after_votes[top]) top = q;
                }
                s->\(p)after_seen = 0;
                after = top == \(k) ? -1 : top;
                \(choice)
                length = (float)(s->\(p)wait_length > 1 ? s->\(p)wait_length : 1);
                for (e = 0; e < \(n); e++) {
                    float score = (s->\(p)wait_evidence[e] / length) * prior[e];
                    if (score > best_score) { best = e; best_score = score; }
                }
                d->ev = \(p)held[best];
                d->ev_conf = s->\(p)wait_evidence[best] / length;
                d->ev_since = s->\(p)wait_start;
            }

            static void post\(i)(\(prefix)_state *s, raw_decision *d, int64_t n) {
                int32_t label = d->cls, e, q;
                int transition = label >= 0 && label < \(k) && \(p)position[label] >= 0;
                if (s->\(p)waiting) {
                    if (!transition) \(p)vote(s, label);
                    if (transition || s->\(p)after_seen > \(f.settle)) \(p)finish(s, d);
                }
                if (transition) {
                    if (s->\(p)run == 0) {
                        s->\(p)before = s->\(p)last;
                        s->\(p)run_start = n;
                    }
                    if (s->\(p)run < INT32_MAX) s->\(p)run++;
                    for (e = 0; e < \(n); e++) {
                        float v = s->scores[\(p)held[e]];
                        if (isfinite(v)) s->\(p)evidence[e] += v;
                    }
                    if (s->\(p)before < 0) {
                        d->cls = -1;
                        d->conf = 0.0f;
                    } else {
                        d->cls = s->\(p)before;
                        d->conf = s->scores[s->\(p)before];
                    }
                    return;
                }
                if (s->\(p)run > 0) {
                    if (s->\(p)run >= \(f.minimumRun)) {
                        s->\(p)waiting = 1;
                        s->\(p)wait_length = s->\(p)run;
                        s->\(p)wait_start = s->\(p)run_start;
                        s->\(p)wait_before = s->\(p)before;
                        for (q = 0; q < \(n); q++) s->\(p)wait_evidence[q] = s->\(p)evidence[q];
                        \(p)vote(s, label);
                        if (s->\(p)after_seen > \(f.settle)) \(p)finish(s, d);
                    }
                    s->\(p)run = 0;
                    for (q = 0; q < \(n); q++) s->\(p)evidence[q] = 0.0f;
                }
                s->\(p)last = label;
            }

            """)
        return "post\(i)(s, &d, n);"
    }

    /// ``PostureFilter/process(_:frame:)``: after an event whose transition leads to one of its
    /// postures, a decision naming another posture reports that one, until another event or
    /// `leave` decisions in a row outside the postures.
    private mutating func postureFilter(_ f: PostureFilter, index i: Int, field: String) throws -> String {
        let k = classCount
        let held = try indices(of: f.classes, field: field)
        guard f.leadsTo.isEmpty || f.leadsTo.count == k else {
            throw Self.refuse("the filter is not learned over the pipeline's \(k) classes", field: field)
        }
        let postures = (0..<k).map { held.contains($0) ? 1 : 0 }
        let p = "post\(i)_"
        b.constant("\(p)leads_to", ints: f.leadsTo)
        b.constant("\(p)postures", ints: postures)
        b.field(.int32, "\(p)posture")
        b.field(.int32, "\(p)away")
        b.resetLines.append("s->\(p)posture = -1; s->\(p)away = 0;")
        let rest = f.rest ?? -1
        b.functions.append("""
            static void post\(i)(\(prefix)_state *s, raw_decision *d) {
                int32_t l = d->cls;
                if (d->ev >= 0 && d->ev < \(f.leadsTo.count)) {
                    int32_t next = \(p)leads_to[d->ev];
                    s->\(p)posture = next >= 0 && next < \(k) && \(p)postures[next] ? next : -1;
                    s->\(p)away = 0;
                }
                if (l < 0 || l >= \(k) || l == \(rest)) return;
                if (!\(p)postures[l]) {
                    /* Saturates at `leave`: only reaching it matters. */
                    if (s->\(p)away < \(f.leave)) s->\(p)away++;
                    if (s->\(p)away >= \(f.leave)) s->\(p)posture = -1;
                    return;
                }
                s->\(p)away = 0;
                if (s->\(p)posture < 0 || s->\(p)posture == l) return;
                d->cls = s->\(p)posture;
                d->conf = s->scores[s->\(p)posture];
            }

            """)
        return "post\(i)(s, &d);"
    }

    /// ``OnsetFilter/process(_:frame:)``: a held class is reported once decided `decisions` times
    /// in a row; until then the last reported class stays.
    private mutating func onsetFilter(_ f: OnsetFilter, index i: Int, field: String) throws -> String {
        let k = classCount
        let held = try indices(of: f.classes, field: field)
        let p = "post\(i)_"
        b.constant("\(p)held", ints: (0..<k).map { held.contains($0) ? 1 : 0 })
        b.field(.int32, "\(p)reported")
        b.field(.int32, "\(p)candidate")
        b.field(.int32, "\(p)run")
        b.resetLines.append("s->\(p)reported = -1; s->\(p)candidate = -1; s->\(p)run = 0;")
        b.functions.append("""
            static void post\(i)(\(prefix)_state *s, raw_decision *d) {
                int32_t l = d->cls, r;
                if (l < 0 || l == s->\(p)reported || l >= \(k) || !\(p)held[l]) {
                    s->\(p)candidate = -1;
                    s->\(p)run = 0;
                    s->\(p)reported = l;
                    return;
                }
                if (s->\(p)candidate == l) s->\(p)run++; else { s->\(p)candidate = l; s->\(p)run = 1; }
                if (s->\(p)run >= \(f.decisions)) {
                    s->\(p)reported = l;
                    s->\(p)candidate = -1;
                    s->\(p)run = 0;
                    return;
                }
                r = s->\(p)reported;
                if (r < 0) {
                    d->cls = -1;
                    d->conf = 0.0f;
                    return;
                }
                d->cls = r;
                d->conf = s->scores[r];
            }

            """)
        return "post\(i)(s, &d);"
    }
}
