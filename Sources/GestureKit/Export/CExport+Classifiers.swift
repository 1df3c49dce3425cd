/// The vector classifiers' C: `classify(state *, const float *x, raw_decision *)` sets the class
/// (-1: rejected), the confidence and `s->scores`.
extension CGenerator {
    mutating func classify(_ classifier: any VectorClassifier, width: Int) throws {
        let field = "classifier (\(type(of: classifier).kind))"
        switch classifier {
        case let knn as KNNClassifier: try nearestNeighbours(knn, width: width, field: field)
        case let centroid as MinimumDistance: try nearestCentroid(centroid, width: width, field: field)
        case let ridge as RidgeClassifier: try ridgeRegression(ridge, width: width, field: field)
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
        let first: String, next: String
        switch knn.metric {
        case .euclidean:
            first = "e = x[0] - \(b.read("col[j]", of: "knn_vectors")); blk[j] = e * e;"
            next = "e = xf - \(b.read("col[j]", of: "knn_vectors", group: "f")); blk[j] = e * e + blk[j];"
        case .manhattan:
            first = "blk[j] = 0.0f; (void)e;"
            next = "blk[j] = blk[j] + fabsf(xf - \(b.read("col[j]", of: "knn_vectors", group: "f")));"
        case .cosine:
            throw Self.refuse("the cosine metric's sums are reordered by the Swift compiler and cannot be matched", field: field)
        }
        let n = m.count, d = m.dimensions, k = Swift.min(m.k, n)
        let manhattan = knn.metric == .manhattan
        // Dimension-major as in Swift: a block of training vectors' distances grows feature by
        // feature, each in the order Swift sums it, and vectorises as Swift's does.
        // int8: a scale per feature, as features differ in range and each is compared only with itself.
        b.weights("knn_vectors", m.vectors, groups: d) { $0 / n }
        b.constant("knn_labels", ints: m.labels)
        let limits = thresholds(m.rejection)
        if let limits { b.constant("knn_threshold", floats: limits) }
        let vote = knn.distanceWeighting ? "1.0f / (1e-12f >= top_d[q] ? 1e-12f : top_d[q])" : "1.0f"
        let root = knn.metric == .euclidean ? "for (q = 0; q < \(k); q++) top_d[q] = sqrtf(top_d[q]);" : ""
        b.functions.append("""
            static void classify(\(prefix)_state *s, const float *x, raw_decision *d) {
                float top_d[\(k)], sums[\(classCount)], blk[32], bound = INFINITY, total = 0.0f, dist, e = 0.0f, distance;
                int32_t top_i[\(k)], counts[\(classCount)], j0, j, f, q, c, best = 0;
                (void)e;
                for (q = 0; q < \(k); q++) { top_d[q] = INFINITY; top_i[q] = -1; }
                for (j0 = 0; j0 < \(n); j0 += 32) {
                    int32_t m = \(n) - j0 < 32 ? \(n) - j0 : 32;
                    const \(b.weightType) *col = knn_vectors + j0;
                    for (j = 0; j < m; j++) { \(first) }
                    for (f = \(manhattan ? 0 : 1); f < \(d); f++) {
                        const float xf = x[f];
                        col = knn_vectors + f * \(n) + j0;
                        for (j = 0; j < m; j++) { \(next) }
                    }
                    for (j = 0; j < m; j++) {
                        dist = blk[j];
                        if (!(dist < bound)) continue;
                        q = \(k - 1);
                        while (q > 0 && top_d[q - 1] > dist) { top_d[q] = top_d[q - 1]; top_i[q] = top_i[q - 1]; q--; }
                        top_d[q] = dist;
                        top_i[q] = j0 + j;
                        bound = top_d[\(k - 1)];
                    }
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
        // int8: a scale per class (its centroid): one per feature would cost as many bytes as the codes.
        b.weights("centroids", m.centroids, groups: classCount) { $0 / d }
        let limits = thresholds(m.rejection)
        if let limits { b.constant("centroid_threshold", floats: limits) }
        b.functions.append("""
            static void classify(\(prefix)_state *s, const float *x, raw_decision *d) {
                float best_d = INFINITY, inverse_sum = 0.0f;
                int32_t c, i, best = -1, zeros = 0;
                for (c = 0; c < \(classCount); c++) {
                    float acc = 0.0f, e, dist;
                    for (i = 0; i < \(d); i++) { e = x[i] - \(b.read("centroids[c * \(d) + i]", of: "centroids", group: "c")); acc = acc + e * e; }
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

    /// ``RidgeClassifier/predict(_:)``: standardise, one decision per class, softmax at the fitted
    /// temperature in Double. Swift sums the decisions in BLAS's order, the C in index order: the
    /// decisions may differ in their last bits, so confidences agree to a tolerance, not exactly.
    private mutating func ridgeRegression(_ ridge: RidgeClassifier, width: Int, field: String) throws {
        guard let m = ridge.model, m.dimensions == width, m.classes.count == classCount else {
            throw Self.refuse("the classifier is not trained on \(width) features and \(classCount) classes", field: field)
        }
        let p = m.dimensions
        b.constant("ridge_mean", floats: m.means)
        b.constant("ridge_scale", floats: m.scales)
        // int8: a scale per class, its row of weights over standardised features (alike in range).
        b.weights("ridge_weight", m.weights, groups: classCount) { $0 / p }
        b.keepFloat32("ridge's per-feature means and scales: a feature of small spread magnifies any error in its mean")
        b.constant("ridge_intercept", floats: m.intercepts)
        b.functions.append("""
            static void classify(\(prefix)_state *s, const float *x, raw_decision *d) {
                float decision[\(classCount)];
                double e[\(classCount)], top, total = 0.0;
                int32_t c, j, best = 0;
                for (c = 0; c < \(classCount); c++) {
                    const \(b.weightType) *w = ridge_weight + c * \(p);
                    float acc = 0.0f;
                    /* The standardised feature, recomputed per class (the same value) to keep it out of RAM. */
                    for (j = 0; j < \(p); j++) acc = acc + \(b.read("w[j]", of: "ridge_weight", group: "c")) * ((x[j] - ridge_mean[j]) / ridge_scale[j]);
                    decision[c] = acc + ridge_intercept[c];
                    if (!isfinite(decision[c])) {
                        for (c = 0; c < \(classCount); c++) s->scores[c] = 0.0f;
                        d->cls = -1;
                        d->conf = 0.0f;
                        return;
                    }
                    if (decision[c] > decision[best]) best = c;
                }
                top = (double)decision[best];
                for (c = 0; c < \(classCount); c++) {
                    e[c] = exp(((double)decision[c] - top) / \(CBuilder.literal(Double(m.temperature))));
                    total += e[c];
                }
                for (c = 0; c < \(classCount); c++) s->scores[c] = (float)(e[c] / total);
                d->cls = best;
                d->conf = s->scores[best];
            }

            """)
    }
}
