/// Tuned 1-NN DTW: the variant and the Sakoe-Chiba band chosen by leave-one-out accuracy on the
/// training data, the standard tuned baseline of time-series classification.
extension DTWClassifier {
    /// The bands tried, as fractions of the longer length (`nil` = full window).
    static let tunedBands: [Double?] = [0, 0.02, 0.05, 0.1, 0.15, 0.2, nil]

    /// One candidate's leave-one-out result.
    public struct TuningRow: Sendable, Hashable {
        /// The variant tried.
        public var variant: DTWVariant
        /// The band tried.
        public var band: DTWBand
        /// Training examples whose nearest other example had their class.
        public var correct: Int
        /// Training examples classified.
        public var examples: Int
    }

    /// Leave-one-out 1-NN accuracy of every variant and band on the prepared training examples.
    /// The winner is the most accurate; ties go to the configured variant first, then the narrower
    /// band (cheaper, and less warping to overfit with).
    /// - Complexity: the cost of one pruned leave-one-out search per candidate (14 candidates).
    func tuning(_ prepared: [Model], isCancelled: () -> Bool = { false }) -> [TuningRow] {
        var rows: [TuningRow] = []
        let variants = [variant] + DTWVariant.allCases.filter { $0 != variant }
        for (k, fraction) in Self.tunedBands.enumerated() {
            let band: DTWBand = fraction.map { .fraction($0) } ?? .full
            let model = prepared[k]
            for v in variants {
                var searcher = Searcher(model: model)
                var correct = 0
                for t in model.labels.indices {
                    let d = model.templates.withUnsafeBufferPointer { p in
                        searcher.nearest(model: model, variant: v, band: band, query: p.baseAddress! + model.offsets[t],
                                         n: model.lengths[t], excluding: t, onlyClass: nil)
                    }
                    if let best = d.indices.min(by: { d[$0] < d[$1] }), d[best].isFinite, best == model.labels[t] { correct += 1 }
                }
                rows.append(TuningRow(variant: v, band: band, correct: correct, examples: model.labels.count))
            }
        }
        return rows
    }

    /// The winning row of `tuning(_:)`: rows are listed narrowest band first, configured variant first.
    static func best(_ rows: [TuningRow]) -> TuningRow? {
        var best: TuningRow?
        for r in rows where best == nil || r.correct > best!.correct { best = r }
        return best
    }

    /// Chooses `variant` and `band` on `all` (every training example as a template, prepared),
    /// when `tune` is set and there are at least two examples per class on average.
    mutating func tune(on all: Model) {
        guard tune, all.labels.count >= 2 * all.classes.count else { return }
        let models = Self.tunedBands.map { f -> Model in
            var m = all
            m.rebuildDerived(band: f.map { .fraction($0) } ?? .full)
            return m
        }
        guard let b = Self.best(tuning(models)) else { return }
        variant = b.variant
        band = b.band
    }
}
