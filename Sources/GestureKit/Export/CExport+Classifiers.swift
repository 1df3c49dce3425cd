/// The vector classifiers' C: `classify(state *, const float *x, raw_decision *)` sets the class
/// (-1: rejected), the confidence and `s->scores`.
extension CGenerator {
    mutating func classify(_ classifier: any VectorClassifier, width: Int) throws {
        let field = "classifier (\(type(of: classifier).kind))"
        switch classifier {
        case let knn as KNNClassifier: try nearestNeighbours(knn, width: width, field: field)
        case let centroid as MinimumDistance: try nearestCentroid(centroid, width: width, field: field)
        default: throw Self.refuse("the \(type(of: classifier).kind) classifier has no C form yet", field: field)
        }
    }

    /// Per-class acceptance thresholds `mean + k * std`, computed here in Float as Swift does, or
    /// `nil` when rejection is off.
    private func thresholds(_ r: NullRejection) -> [Float]? {
        guard r.k != nil else { return nil }
        return r.thresholds
    }

    /// ``KNNClassifier/predict(_:)``: squared distances summed feature by feature, the k nearest by
    /// insertion, roots of those k, votes, ties to the class nearer on average.
    private mutating func nearestNeighbours(_ knn: KNNClassifier, width: Int, field: String) throws {
        guard let m = knn.model, m.dimensions == width, m.classes.count == classCount else {
            throw Self.refuse("the classifier is not trained on \(width) features and \(classCount) classes", field: field)
        }
        let distance: String
        switch knn.metric {
        case .euclidean: distance = "e = x[0] - v[0];\n            dist = e * e;\n            for (f = 1; f < \(m.dimensions); f++) { e = x[f] - v[f]; dist = e * e + dist; }"
        case .manhattan: distance = "dist = 0.0f;\n            for (f = 0; f < \(m.dimensions); f++) dist = dist + fabsf(x[f] - v[f]);"
        case .cosine:
            throw Self.refuse("the cosine metric's sums are reordered by the Swift compiler and cannot be matched", field: field)
        }
        let n = m.count, d = m.dimensions, k = Swift.min(m.k, n)
        // Vector-major here: the C reads each training vector once, in the order Swift sums it.
        var rows = [Float](repeating: 0, count: n * d)
        for j in 0..<n { for f in 0..<d { rows[j * d + f] = m.vectors[f * n + j] } }
        b.constant("knn_vectors", floats: rows)
        b.constant("knn_labels", ints: m.labels)
        let limits = thresholds(m.rejection)
        if let limits { b.constant("knn_threshold", floats: limits) }
        let vote = knn.distanceWeighting ? "1.0f / (1e-12f >= top_d[q] ? 1e-12f : top_d[q])" : "1.0f"
        let root = knn.metric == .euclidean ? "for (q = 0; q < \(k); q++) top_d[q] = sqrtf(top_d[q]);" : ""
        b.functions.append("""
            static void classify(\(prefix)_state *s, const float *x, raw_decision *d) {
                float top_d[\(k)], sums[\(classCount)], bound = INFINITY, total = 0.0f, dist, e, distance;
                int32_t top_i[\(k)], counts[\(classCount)], j, f, q, c, best = 0;
                (void)e;
                for (q = 0; q < \(k); q++) { top_d[q] = INFINITY; top_i[q] = -1; }
                for (j = 0; j < \(n); j++) {
                    const float *v = knn_vectors + j * \(d);
                    \(distance)
                    if (!(dist < bound)) continue;
                    q = \(k - 1);
                    while (q > 0 && top_d[q - 1] > dist) { top_d[q] = top_d[q - 1]; top_i[q] = top_i[q - 1]; q--; }
                    top_d[q] = dist;
                    top_i[q] = j;
                    bound = top_d[\(k - 1)];
                }
                \(root)
                for (c = 0; c < \(classCount); c++) { s->scores[c] = 0.0f; sums[c] = 0.0f; counts[c] = 0; }
                for (q = 0; q < \(k); q++) {
                    if (top_i[q] < 0) continue;
                    c = knn_labels[top_i[q]];
                    s->scores[c] += \(vote);
                    sums[c] += top_d[q];
                    counts[c]++;
                }
                for (c = 1; c < \(classCount); c++) {
                    if (s->scores[c] > s->scores[best]) { best = c; continue; }
                    if (s->scores[c] == s->scores[best] && counts[c] > 0
                        && (counts[best] == 0 || sums[c] / (float)counts[c] < sums[best] / (float)counts[best])) best = c;
                }
                for (c = 0; c < \(classCount); c++) total = total + s->scores[c];
                if (total > 0.0f) for (c = 0; c < \(classCount); c++) s->scores[c] /= total;
                distance = sums[best] / (float)(counts[best] > 1 ? counts[best] : 1);
                d->cls = best;
                d->conf = s->scores[best];
                \(limits == nil ? "(void)distance;" : "if (distance > knn_threshold[best]) d->cls = -1;")
            }

            """)
    }

    /// ``MinimumDistance/predict(_:)``: Euclidean distance to each centroid, inverse distances
    /// normalised as scores, then rejection.
    private mutating func nearestCentroid(_ m: MinimumDistance, width: Int, field: String) throws {
        guard m.isTrained, m.dimension == width, m.classes.count == classCount else {
            throw Self.refuse("the classifier is not trained on \(width) features and \(classCount) classes", field: field)
        }
        let d = m.dimension
        b.constant("centroids", floats: m.centroids.values)
        let limits = thresholds(m.rejection)
        if let limits { b.constant("centroid_threshold", floats: limits) }
        b.functions.append("""
            static void classify(\(prefix)_state *s, const float *x, raw_decision *d) {
                float best_d = INFINITY, inverse_sum = 0.0f;
                int32_t c, i, best = -1, zeros = 0;
                for (c = 0; c < \(classCount); c++) {
                    float acc = 0.0f, e, dist;
                    for (i = 0; i < \(d); i++) { e = x[i] - centroids[c * \(d) + i]; acc = acc + e * e; }
                    dist = sqrtf(acc);
                    s->scores[c] = dist;
                    if (dist < best_d) { best_d = dist; best = c; }
                    if (dist == 0.0f) zeros++; else inverse_sum += 1.0f / dist;
                }
                if (best < 0 || !isfinite(best_d)) {
                    for (c = 0; c < \(classCount); c++) s->scores[c] = 0.0f;
                    d->cls = -1;
                    d->conf = 0.0f;
                    return;
                }
                for (c = 0; c < \(classCount); c++) {
                    float dist = s->scores[c];
                    s->scores[c] = zeros > 0 ? (dist == 0.0f ? 1.0f / (float)zeros : 0.0f) : (1.0f / dist) / inverse_sum;
                }
                d->cls = best;
                d->conf = s->scores[best];
                \(limits == nil ? "" : "if (best_d > centroid_threshold[best]) { d->cls = -1; d->conf = 0.0f; }")
            }

            """)
    }
}
