/// JSON form. Every configuration key is optional; a hand-written spec such as
/// `{"kind": "knn", "k": "auto", "metric": "cosine", "nullRejection": 3}` decodes (`kind` belongs to
/// the pipeline). Keys and defaults:
///
/// | key | meaning | default |
/// |---|---|---|
/// | `k` | a number, `"auto"` (cross-validated among 1, 3, 5, 7, 9, 11, 15, 21) or a list of candidates | `10` |
/// | `metric` | `"euclidean"`, `"manhattan"` or `"cosine"` | `"euclidean"` |
/// | `distanceWeighting` | votes weighted by 1 / distance | `false` |
/// | `nullRejection` | k in mean + k * std | off |
/// | `folds` | folds of the cross-validation that chooses k | `5` |
/// | `seed` | seed of that cross-validation's shuffle | `0` |
///
/// Learned state appears only after training, under `trained`: `classes`, `dimensions`, `labels`,
/// `k` (the one in use), `vectors` (PackedFloats, dimension-major), `rejectionMeans`, `rejectionStds`.
extension KNNClassifier {
    enum CodingKeys: String, CodingKey {
        case k, metric, distanceWeighting, nullRejection, folds, seed, trained
    }

    enum TrainedKeys: String, CodingKey {
        case classes, dimensions, labels, k, vectors, rejectionMeans, rejectionStds
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        var choice = KChoice.fixed(10)
        if c.contains(.k) {
            if let v = try? c.decode(Int.self, forKey: .k) {
                choice = .fixed(v)
            } else if let list = try? c.decode([Int].self, forKey: .k) {
                choice = .candidates(list)
            } else if let s = try? c.decode(String.self, forKey: .k), s == "auto" {
                choice = .auto
            } else {
                throw GestureKitError("expected a number, \"auto\" or a list of numbers", field: "k")
            }
        }
        self.init(k: choice,
                  metric: try c.decodeIfPresent(Metric.self, forKey: .metric) ?? .euclidean,
                  distanceWeighting: try c.decodeIfPresent(Bool.self, forKey: .distanceWeighting) ?? false,
                  nullRejection: try c.decodeIfPresent(Float.self, forKey: .nullRejection),
                  folds: try c.decodeIfPresent(Int.self, forKey: .folds) ?? 5,
                  seed: try c.decodeIfPresent(UInt64.self, forKey: .seed) ?? 0)
        if c.contains(.trained) {
            let t = try c.nestedContainer(keyedBy: TrainedKeys.self, forKey: .trained)
            let classes = try t.decode([String].self, forKey: .classes)
            var rejection = NullRejection(k: nullRejection, classCount: classes.count)
            rejection.means = try t.decode(PackedFloats.self, forKey: .rejectionMeans)
            rejection.stds = try t.decode(PackedFloats.self, forKey: .rejectionStds)
            var m = Model(classes: classes, dimensions: try t.decode(Int.self, forKey: .dimensions),
                          vectors: try t.decode(PackedFloats.self, forKey: .vectors).values,
                          labels: try t.decode([Int].self, forKey: .labels), k: try t.decode(Int.self, forKey: .k),
                          rejection: rejection)
            try KNNClassifier.checkShapes(m)
            m.rebuildDerived(metric: metric)
            model = m
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch k {
        case .fixed(let v): try c.encode(v, forKey: .k)
        case .auto: try c.encode("auto", forKey: .k)
        case .candidates(let list): try c.encode(list, forKey: .k)
        }
        try c.encode(metric, forKey: .metric)
        try c.encode(distanceWeighting, forKey: .distanceWeighting)
        try c.encode(nullRejection, forKey: .nullRejection)  // null when off
        try c.encode(folds, forKey: .folds)
        try c.encode(seed, forKey: .seed)
        if let model {
            var t = c.nestedContainer(keyedBy: TrainedKeys.self, forKey: .trained)
            try t.encode(model.classes, forKey: .classes)
            try t.encode(model.dimensions, forKey: .dimensions)
            try t.encode(model.labels, forKey: .labels)
            try t.encode(model.k, forKey: .k)
            try t.encode(PackedFloats(model.vectors), forKey: .vectors)
            try t.encode(model.rejection.means, forKey: .rejectionMeans)
            try t.encode(model.rejection.stds, forKey: .rejectionStds)
        }
    }

    public func validate() throws {
        switch k {
        case .fixed(let v) where v < 1: throw GestureKitError("must be at least 1, got \(v)", field: "k")
        case .candidates(let l) where l.isEmpty || l.contains(where: { $0 < 1 }):
            throw GestureKitError("candidates must be at least 1", field: "k")
        default: break
        }
        if folds < 2 { throw GestureKitError("must be at least 2", field: "folds") }
        if let k = nullRejection, !k.isFinite { throw GestureKitError("must be finite", field: "nullRejection") }
        if let model { try KNNClassifier.checkShapes(model) }
    }

    static func checkShapes(_ m: Model) throws {
        guard m.dimensions > 0 else { throw GestureKitError("must be positive", field: "trained.dimensions") }
        guard !m.classes.isEmpty else { throw GestureKitError("no classes", field: "trained.classes") }
        guard !m.labels.isEmpty else { throw GestureKitError("no training vectors", field: "trained.labels") }
        if let bad = m.labels.firstIndex(where: { !m.classes.indices.contains($0) }) {
            throw GestureKitError("vector \(bad) has label \(m.labels[bad]) outside \(m.classes.count) classes",
                                  field: "trained.labels")
        }
        guard m.k >= 1 else { throw GestureKitError("must be at least 1", field: "trained.k") }
        try PackedFloats(m.vectors).check("trained.vectors", count: m.labels.count * m.dimensions)
        try m.rejection.means.check("trained.rejectionMeans", count: m.classes.count)
        try m.rejection.stds.check("trained.rejectionStds", count: m.classes.count)
    }
}
