/// Tuned 1-NN DTW: the variant and the Sakoe-Chiba band chosen by leave-one-out accuracy on the
/// training data, the standard tuned baseline of time-series classification.
extension DTWClassifier {
    /// The bands tried, as fractions of the longer length (`nil` = full window).
    static let tunedBands: [Double?] = [0, 0.02, 0.05, 0.1, 0.15, 0.2, nil]
    /// The `k`th of ``tunedBands`` as a band.
    static func tunedBand(_ k: Int) -> DTWBand { tunedBands[k].map { .fraction($0) } ?? .full }
    /// The `derivative` weights tried beside off: the differences at half the values' scale and at it.
    static let tunedDerivatives: [Float] = [0.5, 1]
    /// Differences are taken only when their best row beats the best without them by more than this
    /// fraction of the examples: leave-one-out on the few examples left in a spotting replay's
    /// partitions picked them by one example where held-out gestures then lost (tuning replays,
    /// Epilepsy 345 -> 339 of 360 at 0, 341 at 0.01, 345 at 0.02; GunPoint 60 -> 68 at each).
    static let derivativeMargin = 0.02

    /// One candidate's leave-one-out result.
    public struct TuningRow: Sendable, Hashable {
        /// The variant tried.
        public var variant: DTWVariant
        /// The band tried.
        public var band: DTWBand
        /// The derivative weight tried (`nil` = off).
        public var derivative: Float?
        /// Training examples whose nearest other example had their class.
        public var correct: Int
        /// Training examples classified.
        public var examples: Int
        /// False when the row stopped early, unable to win (see `tuning(_:derivative:beyond:)`).
        public var complete = true
    }

    /// Leave-one-out 1-NN accuracy of every variant, band and derivative weight on the prepared
    /// training examples (`prepared[k]` has the envelopes of band `k`, and its differences when
    /// `derivative` is set). The winner (`chosen(_:)`) is the most accurate; ties go to the
    /// configured variant, then the narrower band (cheaper, and less to overfit with).
    /// With `beyond`, a row stops once its count can no longer exceed `beyond` nor the rows before
    /// it (it cannot be chosen then; its `correct` is the count so far and `complete` is false).
    /// - Complexity: the cost of one pruned leave-one-out search per candidate (14 per weight).
    func tuning(_ prepared: [Model], derivative: Float? = nil, beyond: Int? = nil) -> [TuningRow] {
        var rows: [TuningRow] = []
        var bar = beyond
        let variants = [variant] + DTWVariant.allCases.filter { $0 != variant }
        for k in Self.tunedBands.indices {
            let band = Self.tunedBand(k)
            let model = prepared[k].whole
            for v in variants {
                var searcher = Searcher(model: model)
                var correct = 0, complete = true
                for t in model.labels.indices {
                    if let bar, correct + model.labels.count - t <= bar { complete = false; break }
                    let d = model.templates.withUnsafeBufferPointer { p in
                        searcher.nearest(model: model, variant: v, band: band, query: p.baseAddress! + model.offsets[t],
                                         n: model.lengths[t], excluding: t, onlyClass: nil)
                    }
                    if let best = d.indices.min(by: { d[$0] < d[$1] }), d[best].isFinite, best == model.labels[t] { correct += 1 }
                }
                if let b = bar, complete { bar = max(b, correct) }
                rows.append(TuningRow(variant: v, band: band, derivative: derivative, correct: correct,
                                      examples: model.labels.count, complete: complete))
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

    /// The best row without differences, unless one with them is better by `derivativeMargin`.
    static func chosen(_ rows: [TuningRow]) -> TuningRow? {
        guard let plain = best(rows.filter { $0.derivative == nil }) else { return best(rows) }
        guard let d = best(rows.filter { $0.derivative != nil }),
              Double(d.correct - plain.correct) > derivativeMargin * Double(d.examples) else { return plain }
        return d
    }

    /// Chooses `variant`, `band` and `derivative` on `all` (every training example as a template,
    /// prepared), when `tune` is set and there are at least two examples per class on average.
    mutating func tune(on all: Model) {
        guard tune, all.labels.count >= 2 * all.classes.count else { return }
        var models = Self.tunedBands.indices.map { k -> Model in
            var m = all
            m.rebuildDerived(band: Self.tunedBand(k))
            return m
        }
        var rows = tuning(models)
        // Rows with differences only count when they pass the margin, so each stops once it cannot.
        guard let plain = Self.best(rows) else { return }
        var beyond = plain.correct + Int((Self.derivativeMargin * Double(plain.examples)).rounded(.down))
        for w in Self.tunedDerivatives {
            let scales = models[0].differenceScales(weight: w)
            for k in models.indices {
                models[k].setDifferences(scales, band: Self.tunedBand(k))
            }
            let own = tuning(models, derivative: w, beyond: beyond)
            beyond = max(beyond, own.filter(\.complete).map(\.correct).max() ?? beyond)
            rows += own
        }
        guard let b = Self.chosen(rows) else { return }
        variant = b.variant
        band = b.band
        derivative = b.derivative
    }
}
