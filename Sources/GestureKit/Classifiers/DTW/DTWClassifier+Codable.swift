/// JSON form. Every configuration key is optional, so a hand-written spec such as
/// `{"kind": "dtw", "variant": "independent", "band": 0.1, "nullRejection": 2}` decodes
/// (the `kind` key belongs to the pipeline and is ignored here). Keys and defaults:
///
/// | key | meaning | default |
/// |---|---|---|
/// | `variant` | `"dependent"` or `"independent"` | `"dependent"` |
/// | `band` | Sakoe-Chiba half-width as a fraction of the longer length, in [0, 1] | full window |
/// | `bandSamples` | half-width in samples (wins over `band`) | full window |
/// | `trim` | still-trim threshold, fraction of peak motion | off |
/// | `resample` | fixed length to resample to | off |
/// | `zNormalize` | per-series, per-channel z-normalisation | `false` |
/// | `medoids` | templates kept per class (k-medoids) | all examples (1-NN) |
/// | `nullRejection` | k in mean + k * std | off |
/// | `tune` | choose `variant`, `band` and `derivative` by leave-one-out on the training data (then saved) | `false` |
/// | `derivative` | weight of each channel's first difference beside it in whole-example search | off |
/// | `insertionPenalty` | log-odds (per typical performance) a spotted segment must exceed to be reported | 0.5 with the unlearned check, 1 without |
/// | `rejectUnlearned` | also check each spotted segment against the training examples' MiniRocket features | on |
/// | `nameWhole` | name each spotted segment by the whole window around it; `false`: by its template | on |
///
/// Learned state appears only after training, under `trained`: `classes`, `channels`, `lengths`,
/// `labels`, `templates` (PackedFloats, channel-major), `rejectionMeans`, `rejectionStds`
/// (PackedFloats), when the model can spot `segmental` (``SegmentalModel``), and with `derivative`
/// `derivativeScales` (one per channel). LB_Keogh envelopes are derived from the templates on load,
/// not stored. Files of earlier versions load too: their `decoder` key and the rule stack's
/// thresholds (`spottingMeans` and the like) are ignored, and a trained file without `segmental`
/// has the decoder's model learned from its templates as it loads.
extension DTWClassifier {
    enum CodingKeys: String, CodingKey {
        case variant, band, bandSamples, trim, resample, zNormalize, medoids, nullRejection, tune, derivative, trained
        case decoder, insertionPenalty, rejectUnlearned, nameWhole
    }

    enum TrainedKeys: String, CodingKey {
        case classes, channels, lengths, labels, templates, rejectionMeans, rejectionStds
        case derivativeScales, segmental, unlearned
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            variant: try c.decodeIfPresent(DTWVariant.self, forKey: .variant) ?? .dependent,
            trim: try c.decodeIfPresent(Float.self, forKey: .trim),
            resample: try c.decodeIfPresent(Int.self, forKey: .resample),
            zNormalize: try c.decodeIfPresent(Bool.self, forKey: .zNormalize) ?? false,
            medoids: try c.decodeIfPresent(Int.self, forKey: .medoids),
            nullRejection: try c.decodeIfPresent(Float.self, forKey: .nullRejection))
        tune = try c.decodeIfPresent(Bool.self, forKey: .tune) ?? false
        derivative = try c.decodeIfPresent(Float.self, forKey: .derivative)
        // Earlier versions could pick the rule stack; a spec that still asks for it is told so.
        // A trained file that used it loads and spots with the segmental decoder.
        if let d = try c.decodeIfPresent(String.self, forKey: .decoder), d != "segmental", !c.contains(.trained) {
            throw GestureKitError("\"\(d)\" is no longer a decoder: DTW pipelines spot with the segmental decoder only (delete the key)",
                                  field: "decoder")
        }
        insertionPenalty = try c.decodeIfPresent(Float.self, forKey: .insertionPenalty)
        if let p = insertionPenalty, !p.isFinite { throw GestureKitError("must be finite", field: "insertionPenalty") }
        rejectUnlearned = try c.decodeIfPresent(Bool.self, forKey: .rejectUnlearned)
        nameWhole = try c.decodeIfPresent(Bool.self, forKey: .nameWhole)
        if let s = try c.decodeIfPresent(Int.self, forKey: .bandSamples) {
            band = .samples(s)
        } else if let f = try c.decodeIfPresent(Double.self, forKey: .band) {
            band = .fraction(f)
        }
        if c.contains(.trained) {
            let t = try c.nestedContainer(keyedBy: TrainedKeys.self, forKey: .trained)
            let classes = try t.decode([String].self, forKey: .classes)
            var rejection = NullRejection(k: nullRejection, classCount: classes.count)
            rejection.means = try t.decode(PackedFloats.self, forKey: .rejectionMeans)
            rejection.stds = try t.decode(PackedFloats.self, forKey: .rejectionStds)
            var m = Model(classes: classes, channels: try t.decode(Int.self, forKey: .channels),
                          templates: try t.decode(PackedFloats.self, forKey: .templates).values,
                          lengths: try t.decode([Int].self, forKey: .lengths),
                          labels: try t.decode([Int].self, forKey: .labels), rejection: rejection)
            m.derivativeScales = try t.decodeIfPresent(PackedFloats.self, forKey: .derivativeScales)?.values
            m.segmental = try t.decodeIfPresent(SegmentalModel.self, forKey: .segmental)
            try m.segmental?.validate(classCount: classes.count)
            m.unlearned = try t.decodeIfPresent(UnlearnedCheck.self, forKey: .unlearned)
            try m.unlearned?.validate(channels: m.channels)
            // Envelopes are rebuilt only once the shapes are known to agree (validate() rechecks).
            try DTWClassifier.checkShapes(m, band: band)
            m.rebuildDerived(band: band)
            m.setDifferences(m.derivativeScales, band: band)
            if m.segmental == nil, canSpot { m.segmental = Self.segmentalFromTemplates(m) }
            model = m
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(variant, forKey: .variant)
        // Every configuration key is written, `null` when off, so a saved file lists them all.
        switch band {
        case .full:
            try c.encodeNil(forKey: .band)
            try c.encodeNil(forKey: .bandSamples)
        case .fraction(let f):
            try c.encode(f, forKey: .band)
            try c.encodeNil(forKey: .bandSamples)
        case .samples(let s):
            try c.encodeNil(forKey: .band)
            try c.encode(s, forKey: .bandSamples)
        }
        try c.encode(trim, forKey: .trim)
        try c.encode(resample, forKey: .resample)
        try c.encode(zNormalize, forKey: .zNormalize)
        try c.encode(medoids, forKey: .medoids)
        try c.encode(nullRejection, forKey: .nullRejection)
        try c.encode(tune, forKey: .tune)
        // Written only when on, so the files of pipelines without it keep their bytes.
        try c.encodeIfPresent(derivative, forKey: .derivative)
        try c.encodeIfPresent(insertionPenalty, forKey: .insertionPenalty)
        try c.encodeIfPresent(rejectUnlearned, forKey: .rejectUnlearned)
        try c.encodeIfPresent(nameWhole, forKey: .nameWhole)
        if let model {
            var t = c.nestedContainer(keyedBy: TrainedKeys.self, forKey: .trained)
            try t.encode(model.classes, forKey: .classes)
            try t.encode(model.channels, forKey: .channels)
            try t.encode(model.lengths, forKey: .lengths)
            try t.encode(model.labels, forKey: .labels)
            try t.encode(PackedFloats(model.templates), forKey: .templates)
            try t.encode(model.rejection.means, forKey: .rejectionMeans)
            try t.encode(model.rejection.stds, forKey: .rejectionStds)
            try t.encodeIfPresent(model.derivativeScales.map(PackedFloats.init), forKey: .derivativeScales)
            try t.encodeIfPresent(model.segmental, forKey: .segmental)
            try t.encodeIfPresent(model.unlearned, forKey: .unlearned)
        }
    }

    /// Checks configuration ranges and, when trained, that templates, lengths, labels and
    /// thresholds agree and are finite.
    public func validate() throws {
        try checkSettings()
        if let model { try DTWClassifier.checkShapes(model, band: band) }
    }

    /// The configuration's ranges: checked on load and again before training, since a classifier
    /// built in code reaches `train` without a load.
    func checkSettings() throws {
        if case .fraction(let f) = band, !(f >= 0 && f <= 1) { throw GestureKitError("must be in [0, 1], got \(f)", field: "band") }
        if case .samples(let s) = band, s < 0 { throw GestureKitError("must be non-negative", field: "bandSamples") }
        if let trim, !(trim >= 0 && trim < 1) { throw GestureKitError("must be in [0, 1)", field: "trim") }
        if let resample, resample < 2 { throw GestureKitError("must be at least 2", field: "resample") }
        if let medoids, medoids < 1 { throw GestureKitError("must be at least 1", field: "medoids") }
        if let k = nullRejection, !k.isFinite { throw GestureKitError("must be finite", field: "nullRejection") }
        if let w = derivative, !(w.isFinite && w >= 0) { throw GestureKitError("must be finite and non-negative", field: "derivative") }
    }

    static func checkShapes(_ m: Model, band: DTWBand) throws {
        guard m.channels > 0 else { throw GestureKitError("must be positive", field: "trained.channels") }
        guard !m.classes.isEmpty else { throw GestureKitError("no classes", field: "trained.classes") }
        guard m.lengths.count == m.labels.count, !m.lengths.isEmpty else {
            throw GestureKitError("\(m.lengths.count) lengths for \(m.labels.count) labels", field: "trained.lengths")
        }
        if let bad = m.lengths.firstIndex(where: { $0 < 1 }) {
            throw GestureKitError("template \(bad) has length \(m.lengths[bad])", field: "trained.lengths")
        }
        if let bad = m.labels.firstIndex(where: { !m.classes.indices.contains($0) }) {
            throw GestureKitError("template \(bad) has label \(m.labels[bad]) outside \(m.classes.count) classes",
                                  field: "trained.labels")
        }
        try PackedFloats(m.templates).check("trained.templates", count: m.lengths.reduce(0, +) * m.channels)
        try m.rejection.means.check("trained.rejectionMeans", count: m.classes.count)
        try m.rejection.stds.check("trained.rejectionStds", count: m.classes.count)
        if let s = m.derivativeScales { try PackedFloats(s).check("trained.derivativeScales", count: m.channels) }
    }
}
