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
        default:
            throw Self.refuse("the \(type(of: stage).kind) post-processor has no C form yet", field: field)
        }
    }
}
