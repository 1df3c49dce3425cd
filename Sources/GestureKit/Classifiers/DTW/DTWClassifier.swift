/// Classifies whole series by dynamic time warping against stored templates (kind `dtw`).
///
/// Training prepares every example (optional still-trimming, resampling, z-normalisation) and keeps
/// either all of them (1-nearest-neighbour) or `medoids` representatives per class (a compact model).
/// An example identical to an earlier one of its class (a recording saved twice) is kept once.
/// Prediction prepares the input the same way and finds the nearest template of every class, pruned
/// by LB_Kim and LB_Keogh (envelopes precomputed at training) and early abandoning, so most templates
/// never need a full DTW. With `nullRejection` set, a best match farther than its class's threshold
/// (mean + k * std of leave-one-out same-class distances seen in training) is reported as null.
///
/// ```swift
/// var dtw = DTWClassifier(variant: .independent, band: .fraction(0.1), nullRejection: 2)
/// try dtw.train(series, labels: labels, classes: ["G", "R", "T"])
/// let p = dtw.predict(query)   // p.classIndex == nil when rejected
/// ```
public struct DTWClassifier: SequenceClassifier {
    public static let kind = "dtw"

    // MARK: configuration
    /// Dependent (one warping path for all channels) or independent (one per channel).
    public var variant: DTWVariant
    /// The Sakoe-Chiba band limiting how far the warping path may stray from the diagonal.
    public var band: DTWBand
    /// Still-trim threshold (fraction of the peak frame-to-frame motion); `nil` = off.
    public var trim: Float?
    /// Length every series is resampled to; `nil` = keep lengths.
    public var resample: Int?
    /// Z-normalise each channel of every series before comparing (loses the stream's units, so no spotting).
    public var zNormalize: Bool
    /// Templates per class kept after training (k-medoids); `nil` keeps every training example.
    public var medoids: Int?
    /// Choose `variant` and `band` by leave-one-out 1-NN accuracy on the training data when training
    /// (a leave-one-out table per variant and band); the chosen ones are kept in `variant` and `band`.
    /// With `tune`, `derivative` is chosen too (off, 0.5 or 1: `tunedDerivatives`).
    public var tune: Bool = false
    /// Whole examples are compared with each channel's first difference beside it, weighted by this
    /// times the ratio of the channel's spread to its difference's (derivative DTW, Górecki and
    /// Łuczak 2013: two performances of one gesture differ more in level than in shape); `nil` = off.
    /// Spotting still matches the raw channels; only the labelling of what it found uses them.
    public var derivative: Float?
    /// The log-odds a spotted segment must exceed to be reported; `nil`: 0.5 with the unlearned
    /// check, 1 without it, both chosen on the spotting suite's tuning split.
    /// Can be changed after training without retraining.
    public var insertionPenalty: Float?
    /// Also weighs, for each spotted segment, how far its MiniRocket features lie from every
    /// training example (`UnlearnedCheck`), so that gestures of no learned class are reported less
    /// often; `nil` (the default) or `true`: on; `false`: off (a pipeline file about a third the
    /// size, and a smaller C export). Learned at training.
    public var rejectUnlearned: Bool?
    /// Whether training learns the unlearned check (``rejectUnlearned``).
    public var rejectsUnlearned: Bool { rejectUnlearned != false }
    /// Names each spotted segment by a window of at least a typical performance of its class
    /// around it, classified as a whole example (`WholeNaming`), when the window's distance is
    /// typical of the class it names; `nil` (the default) or `true`: on; `false`: by the matching
    /// template. Nothing is learned for it; can be changed after training.
    public var nameWhole: Bool?
    /// Whether spotted segments are named by the whole window around them (``nameWhole``).
    public var namesWhole: Bool { nameWhole != false }
    /// Negative recordings of the training call in progress (see ``TrainingContext/negatives``).
    var trainingNegatives: [TimeSeries] = []
    /// Null-rejection multiplier k (threshold = mean + k * std); `nil` = off. Can be changed after
    /// training without retraining.
    public var nullRejection: Float? {
        didSet { model?.rejection.k = nullRejection }
    }

    // MARK: learned state
    /// Templates and thresholds; `nil` until trained.
    package internal(set) var model: Model?

    /// What training learns.
    package struct Model: Sendable, Hashable {
        public var classes: [String]
        public var channels: Int
        /// Prepared templates, channel-major, concatenated.
        public var templates: [Float]
        public var lengths: [Int]
        public var labels: [Int]
        public var rejection: NullRejection
        /// Per channel, the weight of its first difference in whole-example search; `nil` = none.
        package var derivativeScales: [Float]? = nil
        /// What the segmental spotting decoder learned; `nil` when the configuration cannot spot.
        package var segmental: SegmentalModel? = nil
        /// With `rejectUnlearned`, how far from every training example a segment may lie.
        var unlearned: UnlearnedCheck? = nil
        // Derived at training and after decoding; not stored.
        /// With `derivativeScales`, the same templates with the differences appended (one model).
        var differenced: [Model] = []
        /// Per channel, the largest step between two frames of any template: a query's larger steps
        /// are clamped to it before scaling (see ``differenced(_:frames:scales:limits:)``).
        var differenceLimits: [Float]? = nil
        var offsets: [Int] = []
        var upper: [Float] = []
        var lower: [Float] = []
        var maxLength: Int = 0
    }

    /// A DTW classifier; every parameter is the property of the same name.
    public init(variant: DTWVariant = .dependent, band: DTWBand = .full, trim: Float? = nil,
                resample: Int? = nil, zNormalize: Bool = false, medoids: Int? = nil, nullRejection: Float? = nil) {
        self.variant = variant
        self.band = band
        self.trim = trim
        self.resample = resample
        self.zNormalize = zNormalize
        self.medoids = medoids
        self.nullRejection = nullRejection
    }

    /// What is done to every series before comparing (trim, resample, z-normalise).
    public var preparation: SeriesPreparation {
        SeriesPreparation(trim: trim, resample: resample, zNormalize: zNormalize)
    }

    /// Classes of the trained model (0 before training).
    public var classCount: Int { model?.classes.count ?? 0 }

    public var summary: [String: String] {
        var s: [String: String] = [
            "variant": variant.rawValue,
            "band": { switch band { case .full: "full"; case .fraction(let f): "\(f) of length"; case .samples(let n): "\(n) samples" } }(),
            "preparation": "trim \(trim.map { "\($0)" } ?? "off"), resample \(resample.map { "\($0)" } ?? "off"), z-normalise \(zNormalize)",
            "model": medoids.map { "\($0) medoid(s) per class" } ?? "1-NN over all training examples",
            "derivative": derivative.map { "weight \($0)" } ?? "off",
        ]
        if let model {
            s["templates"] = "\(model.lengths.count) (\(model.channels) channels)"
            let t = model.rejection.thresholds
            s["nullRejection"] = nullRejection.map { k in
                "k = \(k); thresholds " + zip(model.classes, t).map { "\($0) \($1)" }.joined(separator: ", ")
            } ?? "off"
            if canSpot, let m = model.segmental {
                s["spotting"] = "segmental decoder, insertion penalty \(penalty); "
                    + "log-odds weights (constant, cost, length, movement) "
                    + m.weights.map { "\(($0 * 1000).rounded() / 1000)" }.joined(separator: ", ")
                    + "; fitted on \(m.samples[0]) true and \(m.samples[1]) false matches"
                    + (namesWhole ? "; segments named by the whole window around them" : "; segments named by their templates")
            }
            if let u = model.unlearned {
                let zero = u.slope < 0 ? " (even at \(((-u.intercept / u.slope) * 100).rounded() / 100))" : ""
                s["unlearned"] = "check on: \(u.featureCount) MiniRocket features of \(u.library.count / max(u.featureCount, 1)) examples "
                    + "resampled to \(u.length) frames; log-likelihood ratio \(u.intercept) + \(u.slope) log distance\(zero), weight \(UnlearnedCheck.weight)"
            }
        } else {
            s["nullRejection"] = nullRejection.map { "k = \($0) (not trained)" } ?? "off"
        }
        return s
    }

    // MARK: training

    /// Prepares the examples, picks templates and learns rejection thresholds.
    /// - Complexity: 1-NN: O(N * p * n * w * channels) with `p` the templates a pruned leave-one-out
    ///   search still has to align (usually a few); medoids: O(sum over classes of N_c^2 * n * w * channels).
    public mutating func train(_ given: [TimeSeries], labels givenLabels: [Int], classes: [String]) throws {
        guard !given.isEmpty else { throw GestureKitError("no training examples", field: "examples") }
        guard given.count == givenLabels.count else {
            throw GestureKitError("\(given.count) examples but \(givenLabels.count) labels", field: "labels")
        }
        let channels = given[0].channelCount
        for (i, e) in given.enumerated() {
            guard e.channelCount == channels else {
                throw GestureKitError("example \(i) has \(e.channelCount) channels, expected \(channels)", field: "examples")
            }
            guard e.frameCount > 0 else { throw GestureKitError("example \(i) is empty", field: "examples") }
            guard e.isFinite else { throw GestureKitError("example \(i) has non-finite values", field: "examples") }
            guard classes.indices.contains(givenLabels[i]) else {
                throw GestureKitError("label \(givenLabels[i]) of example \(i) is not a class index", field: "labels")
            }
        }
        try checkSettings()
        // A second copy of an example (the same recording saved twice) adds no template the search
        // could use, and would be the example's own neighbour at no cost in every leave-one-out
        // statistic (the spotting decoder's cost scale, the rejection thresholds), so it is kept once.
        let (examples, labels) = Self.withoutCopies(given, labels: givenLabels)

        let prep = preparation
        let prepared = examples.map { prep.prepare($0) }
        var all = Model(classes: classes, channels: channels, templates: prepared.flatMap(\.values),
                        lengths: prepared.map(\.frames), labels: labels,
                        rejection: NullRejection(k: nullRejection, classCount: classes.count))
        tune(on: all)
        all.rebuildDerived(band: band)
        let scales = derivative.map { all.differenceScales(weight: $0) }
        all.setDifferences(scales, band: band)

        var perClass = [[Float]](repeating: [], count: classes.count)
        if let k = medoids {
            var keep: [Int] = []
            for c in classes.indices {
                let members = labels.indices.filter { labels[$0] == c }
                guard !members.isEmpty else { continue }
                let d = pairwise(all, members)
                let chosen = DTWClassifier.kMedoids(d, count: members.count, k: min(k, members.count))
                keep += chosen.map { members[$0] }
                // Rejection statistics: each non-medoid member's distance to its nearest medoid.
                let chosenSet = Set(chosen)
                for i in 0..<members.count where !chosenSet.contains(i) {
                    perClass[c].append(chosen.map { d[i * members.count + $0] }.min()!)
                }
            }
            keep.sort()
            var m = Model(classes: classes, channels: channels,
                          templates: keep.flatMap { prepared[$0].values }, lengths: keep.map { prepared[$0].frames },
                          labels: keep.map { labels[$0] },
                          rejection: NullRejection(k: nullRejection, classCount: classes.count))
            m.rebuildDerived(band: band)
            m.setDifferences(scales, band: band)
            m.rejection.fitWidening(perClass)
            let templateOf = Dictionary(uniqueKeysWithValues: keep.enumerated().map { ($1, $0) })
            if canSpot { m.learnSpotting(examples, labels: labels, templateOf: examples.indices.map { templateOf[$0] },
                                         negatives: trainingNegatives, checkUnlearned: rejectsUnlearned) }
            model = m
        } else {
            // Leave-one-out nearest same-class distance of every example.
            let whole = all.whole
            var searcher = Searcher(model: whole)
            for t in whole.labels.indices {
                let c = whole.labels[t]
                let d = whole.templates.withUnsafeBufferPointer { p in
                    searcher.nearest(model: whole, variant: variant, band: band,
                                     query: p.baseAddress! + whole.offsets[t], n: whole.lengths[t],
                                     excluding: t, onlyClass: c)[c]
                }
                if d.isFinite { perClass[c].append(d) }
            }
            all.rejection.fitWidening(perClass)
            if canSpot { all.learnSpotting(examples, labels: labels, templateOf: Array(examples.indices),
                                           negatives: trainingNegatives, checkUnlearned: rejectsUnlearned) }
            model = all
        }
    }

    /// Training that also learns what is not a gesture from `context.negatives` (for the
    /// the segmental spotting decoder), instead of taking them as a rest class.
    public mutating func train(_ examples: [TimeSeries], labels: [Int], classes: [String], context: TrainingContext) throws {
        trainingNegatives = context.negatives
        defer { trainingNegatives = [] }
        try train(examples, labels: labels, classes: classes)
    }

    /// Whether templates stay in the stream's time scale and units, so the spotter can run them
    /// (it aligns channels dependently whatever `variant` whole examples use).
    public var canSpot: Bool { resample == nil && !zNormalize }

    /// The segmental decoder's model learned from the templates alone, for a file saved without
    /// one (trained before the decoder existed): its templates are its examples, with no negatives.
    static func segmentalFromTemplates(_ m: Model) -> SegmentalModel? {
        let examples = m.lengths.indices.map { k in
            TimeSeries(channels: (0..<m.channels).map { ch in
                Array(m.templates[(m.offsets[k] + ch * m.lengths[k])..<(m.offsets[k] + (ch + 1) * m.lengths[k])])
            })
        }
        return SegmentalModel.learn(m, examples: examples, labels: m.labels, templateOf: Array(m.lengths.indices), negatives: [])
    }

    /// The examples with every later copy of an earlier one of the same class left out.
    static func withoutCopies(_ examples: [TimeSeries], labels: [Int]) -> ([TimeSeries], [Int]) {
        struct Key: Hashable { let values: [Float]; let channels: Int; let label: Int }
        var seen = Set<Key>()
        var kept: [Int] = []
        for i in examples.indices where seen.insert(Key(values: examples[i].values, channels: examples[i].channelCount, label: labels[i])).inserted {
            kept.append(i)
        }
        guard kept.count < examples.count else { return (examples, labels) }
        return (kept.map { examples[$0] }, kept.map { labels[$0] })
    }

    /// A class with a single example has no leave-one-out distance: it borrows the pooled distances
    /// of the other classes so that its threshold stays finite and comparable.
    static func filled(_ perClass: [[Float]]) -> [[Float]] {
        let pooled = perClass.flatMap { $0 }
        return perClass.map { $0.isEmpty ? (pooled.isEmpty ? [Float.greatestFiniteMagnitude] : pooled) : $0 }
    }

    /// Full within-class distance matrix (row-major `members.count` squared).
    private func pairwise(_ raw: Model, _ members: [Int]) -> [Float] {
        let model = raw.whole
        let k = members.count
        var d = [Float](repeating: 0, count: k * k)
        var rows = [Float](repeating: 0, count: DTWKernel.scratchCount(n: model.maxLength, m: model.maxLength,
                                                                       channels: model.channels))
        model.templates.withUnsafeBufferPointer { t in
            rows.withUnsafeMutableBufferPointer { r in
                let base = t.baseAddress!, s = r.baseAddress!
                for x in 0..<k {
                    for y in (x + 1)..<max(k, x + 1) {
                        let a = members[x], b = members[y]
                        let v = DTWClassifier.align(variant, band, base + model.offsets[a], model.lengths[a],
                                                    base + model.offsets[b], model.lengths[b], model.channels,
                                                    .infinity, s)
                        d[x * k + y] = v
                        d[y * k + x] = v
                    }
                }
            }
        }
        return d
    }

    /// k-medoids on a distance matrix: greedy BUILD, then Voronoi iteration until nothing changes.
    /// Deterministic (ties go to the lower index).
    static func kMedoids(_ d: [Float], count n: Int, k: Int) -> [Int] {
        var chosen: [Int] = []
        var nearest = [Float](repeating: .infinity, count: n)
        for _ in 0..<k {
            var best = -1, bestCost = Float.infinity
            for cand in 0..<n where !chosen.contains(cand) {
                var cost: Float = 0
                for i in 0..<n { cost += min(nearest[i], d[i * n + cand]) }
                if cost < bestCost { bestCost = cost; best = cand }
            }
            chosen.append(best)
            for i in 0..<n { nearest[i] = min(nearest[i], d[i * n + best]) }
        }
        for _ in 0..<20 {
            var clusters = [[Int]](repeating: [], count: k)
            for i in 0..<n {
                let j = chosen.indices.min { d[i * n + chosen[$0]] < d[i * n + chosen[$1]] }!
                clusters[j].append(i)
            }
            var changed = false
            for j in 0..<k where !clusters[j].isEmpty {
                let m = clusters[j].min { a, b in
                    clusters[j].reduce(0) { $0 + d[a * n + $1] } < clusters[j].reduce(0) { $0 + d[b * n + $1] }
                }!
                if m != chosen[j] { chosen[j] = m; changed = true }
            }
            if !changed { break }
        }
        return chosen.sorted()
    }

    // MARK: prediction

    /// The nearest template's class, or null when rejected.
    ///
    /// `scores` are normalised inverse distances to the nearest template of each class (summing to 1);
    /// `distance` is the DTW distance to the nearest template.
    /// - Complexity: O(T * n * channels) for the lower bounds plus O(p * n * w * channels) for the `p`
    ///   templates that survive pruning (at most T, the number of templates).
    public func predict(_ series: TimeSeries) -> Prediction {
        guard let model else { return .null(classCount: 0) }
        precondition(series.channelCount == model.channels,
                     "DTWClassifier: \(series.channelCount) channels, trained on \(model.channels)")
        var (q, n) = preparation.prepare(series)
        if let scales = model.derivativeScales {
            q = Model.differenced(q, frames: n, scales: scales, limits: model.differenceLimits)
        }
        let whole = model.whole
        var searcher = Searcher(model: whole)
        let best = q.withUnsafeBufferPointer {
            searcher.nearest(model: whole, variant: variant, band: band, query: $0.baseAddress!, n: n,
                             excluding: nil, onlyClass: nil)
        }
        return DTWClassifier.prediction(perClass: best, rejection: model.rejection)
    }

    static func prediction(perClass best: [Float], rejection: NullRejection) -> Prediction {
        var scores = [Float](repeating: 0, count: best.count)
        guard let top = best.indices.min(by: { best[$0] < best[$1] }), best[top].isFinite else {
            return Prediction(classIndex: nil, confidence: 0, scores: scores, distance: nil)
        }
        if best[top] <= 0 {
            for c in best.indices where best[c] <= 0 { scores[c] = 1 }
        } else {
            for c in best.indices where best[c].isFinite { scores[c] = 1 / best[c] }
        }
        let total = scores.reduce(0, +)
        for c in scores.indices { scores[c] /= total }
        let rejected = rejection.rejects(classIndex: top, distance: best[top])
        return Prediction(classIndex: rejected ? nil : top, confidence: scores[top], scores: scores,
                          distance: best[top])
    }

    /// DTW between two prepared channel-major series.
    @inlinable
    static func align(_ variant: DTWVariant, _ band: DTWBand, _ a: UnsafePointer<Float>, _ n: Int,
                      _ b: UnsafePointer<Float>, _ m: Int, _ channels: Int, _ cutoff: Float,
                      _ scratch: UnsafeMutablePointer<Float>, tail: UnsafePointer<Float>? = nil) -> Float {
        let window = band.window(n, m) ?? max(n, m)
        switch variant {
        case .dependent:
            return DTWKernel.distance(a: a, n: n, b: b, m: m, channels: channels, window: window, cutoff: cutoff,
                                      scratch: scratch, tail: tail)
        case .independent:
            return DTWKernel.independentDistance(a: a, n: n, b: b, m: m, channels: channels, window: window,
                                                 cutoff: cutoff, scratch: scratch)
        }
    }

    /// Classes are searched exactly only within this factor of the nearest template: a class whose
    /// templates are all farther is reported at `scoreMargin * nearest` (a lower bound on its true
    /// distance), which lets the search abandon those alignments early. The winning class and its
    /// distance are always exact.
    static let scoreMargin: Float = 2

    /// Scratch for one search: allocated once per prediction, reused for every template.
    struct Searcher {
        var rows: [Float]
        var bounds: [Float]
        var keys: [Float]
        var order: [Int]
        var tail: [Float]

        init(model: Model) {
            rows = []
            bounds = [Float](repeating: 0, count: model.lengths.count)
            keys = bounds
            order = Array(model.lengths.indices)
            tail = [Float](repeating: 0, count: model.maxLength + 1)
        }

        /// The DTW distance from the query to the nearest template of each class within
        /// `margin` times the overall nearest; classes farther than that get `margin * nearest`, a
        /// lower bound of their distance; classes with no eligible template get `.infinity`.
        ///
        /// Pruning: LB_Kim and LB_Keogh skip templates that cannot beat their cutoff; for equal
        /// lengths the lock-step distance (the diagonal path, inside every band) is an upper bound
        /// that orders the search (likely nearest first) and caps every cutoff from the start;
        /// alignments abandon as soon as a block of rows exceeds the cutoff.
        mutating func nearest(model: Model, variant: DTWVariant, band: DTWBand, query: UnsafePointer<Float>, n: Int,
                              excluding: Int?, onlyClass: Int?, margin: Float = DTWClassifier.scoreMargin) -> [Float] {
            let classCount = model.classes.count
            var best = [Float](repeating: .infinity, count: classCount)
            var upper = best
            var eligible = [Bool](repeating: false, count: classCount)
            var found = eligible
            let c = model.channels
            let haveEnvelopes = !model.upper.isEmpty
            var count = 0
            model.templates.withUnsafeBufferPointer { tp in
                model.upper.withUnsafeBufferPointer { up in
                    model.lower.withUnsafeBufferPointer { lp in
                        let t0 = tp.baseAddress!
                        for t in model.lengths.indices {
                            let cls = model.labels[t]
                            if t == excluding { continue }
                            if let onlyClass, cls != onlyClass { continue }
                            eligible[cls] = true
                            let m = model.lengths[t], off = model.offsets[t]
                            var bound = DTWKernel.lbKim(a: query, n: n, b: t0 + off, m: m, channels: c)
                            if haveEnvelopes, m == n {
                                bound = max(bound, DTWKernel.lbKeogh(a: query, n: n, upper: up.baseAddress! + off,
                                                                     lower: lp.baseAddress! + off, channels: c,
                                                                     cutoff: .infinity))
                            }
                            bounds[t] = bound
                            if m == n {
                                let e = DTWKernel.lockStep(a: query, b: t0 + off, n: n, channels: c)
                                keys[t] = e
                                // Slack for rounding, so the best template is never abandoned.
                                upper[cls] = min(upper[cls], e * 1.0001 + Float.leastNormalMagnitude)
                            } else {
                                keys[t] = bound
                            }
                            order[count] = t
                            count += 1
                        }
                        // Insertion sort by key: template counts are small and this allocates nothing.
                        for i in 1..<max(count, 1) {
                            let v = order[i]
                            var j = i
                            while j > 0, keys[order[j - 1]] > keys[v] { order[j] = order[j - 1]; j -= 1 }
                            order[j] = v
                        }
                        var nearest = upper.min() ?? .infinity  // an upper bound of the overall nearest
                        let need = DTWKernel.scratchCount(n: n, m: model.maxLength, channels: c)
                        if rows.count < need { rows = [Float](repeating: 0, count: need) }
                        let useTail = haveEnvelopes && variant == .dependent
                        rows.withUnsafeMutableBufferPointer { r in
                          tail.withUnsafeMutableBufferPointer { tb in
                            let rp = r.baseAddress!
                            for i in 0..<count {
                                let t = order[i], cls = model.labels[t]
                                let cut = min(best[cls], upper[cls], margin * nearest)
                                if bounds[t] >= cut { continue }
                                let m = model.lengths[t], off = model.offsets[t]
                                var tailPointer: UnsafePointer<Float>? = nil
                                if useTail, m == n {
                                    DTWKernel.keoghTail(a: query, n: n, upper: up.baseAddress! + off,
                                                        lower: lp.baseAddress! + off, channels: c, into: tb.baseAddress!)
                                    tailPointer = UnsafePointer(tb.baseAddress!)
                                }
                                let d = DTWClassifier.align(variant, band, query, n, t0 + off, m, c, cut, rp,
                                                            tail: tailPointer)
                                if d < best[cls] {
                                    best[cls] = d
                                    found[cls] = true
                                    nearest = min(nearest, d)
                                }
                            }
                          }
                        }
                        // Every template of such a class was skipped or abandoned at a cutoff of at least
                        // margin * nearest (an upper-bound cutoff cannot lose the class's best template).
                        // Above a nearest of 0 (the query is a template), so the ties do not go to class 0.
                        let reached = best.min() ?? .infinity
                        for cls in 0..<classCount where eligible[cls] && !found[cls] { best[cls] = max(margin * reached, reached.nextUp) }
                    }
                }
            }
            return best
        }
    }
}

extension DTWClassifier.Model {
    /// Recomputes offsets and LB_Keogh envelopes from the templates.
    mutating func rebuildDerived(band: DTWBand) {
        offsets = []
        var o = 0
        for l in lengths { offsets.append(o); o += l * channels }
        maxLength = lengths.max() ?? 0
        upper = [Float](repeating: 0, count: templates.count)
        lower = [Float](repeating: 0, count: templates.count)
        let c = channels
        templates.withUnsafeBufferPointer { t in
            upper.withUnsafeMutableBufferPointer { u in
                lower.withUnsafeMutableBufferPointer { l in
                    for (i, m) in lengths.enumerated() {
                        let w = band.window(m, m) ?? m
                        DTWKernel.envelope(t.baseAddress! + offsets[i], n: m, channels: c, window: w,
                                           upper: u.baseAddress! + offsets[i], lower: l.baseAddress! + offsets[i])
                    }
                }
            }
        }
    }
}

extension DTWClassifier.Model {
    /// What whole examples are searched in: the templates, with their differences when set.
    var whole: Self { differenced.first ?? self }

    /// Sets `derivativeScales` and builds the differenced templates (envelopes for `band`).
    mutating func setDifferences(_ scales: [Float]?, band: DTWBand) {
        derivativeScales = scales
        differenced = []
        differenceLimits = nil
        guard let scales else { return }
        differenceLimits = stepLimits()
        var d = self
        d.derivativeScales = nil
        d.channels = 2 * channels
        d.templates = []
        d.templates.reserveCapacity(2 * templates.count)
        for (i, n) in lengths.enumerated() {
            d.templates += Self.differenced(Array(templates[offsets[i]..<(offsets[i] + n * channels)]), frames: n, scales: scales)
        }
        d.rebuildDerived(band: band)
        differenced = [d]
    }

    /// A channel-major series followed by each channel's first difference times its scale; the first
    /// frame takes the second's difference, so the appended channels have no step at the start.
    /// With `limits`, a difference is first clamped to its channel's limit: a step no template takes
    /// is where a held level meets a gesture's start, not movement, and unclamped it outweighs the
    /// whole gesture.
    static func differenced(_ x: [Float], frames n: Int, scales: [Float], limits: [Float]? = nil) -> [Float] {
        let c = scales.count
        var out = x
        out.reserveCapacity(2 * x.count)
        for ch in 0..<c {
            let base = ch * n, limit = limits?[ch] ?? .infinity
            for t in 0..<n {
                let i = n < 2 ? base : base + max(t, 1)
                out.append(n < 2 ? 0 : min(max(x[i] - x[i - 1], -limit), limit) * scales[ch])
            }
        }
        return out
    }

    /// Per channel, the largest absolute step between consecutive frames of any template.
    func stepLimits() -> [Float] {
        var limits = [Float](repeating: 0, count: channels)
        for (i, n) in lengths.enumerated() where n > 1 {
            for ch in 0..<channels {
                let base = offsets[i] + ch * n
                for t in 1..<n { limits[ch] = max(limits[ch], abs(templates[base + t] - templates[base + t - 1])) }
            }
        }
        return limits
    }

    /// Per channel, `weight` times the spread of the templates' values over that of their first
    /// differences, so a weight of 1 gives the differences the values' scale (0 for a still channel).
    func differenceScales(weight: Float) -> [Float] {
        (0..<channels).map { ch in
            var s = 0.0, s2 = 0.0, d = 0.0, d2 = 0.0, count = 0.0, dc = 0.0, offset = 0
            for n in lengths {
                let base = offset + ch * n
                offset += n * channels
                for t in 0..<n {
                    let v = Double(templates[base + t])
                    s += v; s2 += v * v; count += 1
                    if t > 0 { let e = v - Double(templates[base + t - 1]); d += e; d2 += e * e; dc += 1 }
                }
            }
            guard count > 0, dc > 0 else { return 0 }
            let sv = max(0, s2 / count - (s / count) * (s / count)), sd = max(0, d2 / dc - (d / dc) * (d / dc))
            return sd > 1e-12 ? weight * Float((sv / sd).squareRoot()) : 0
        }
    }
}

extension NullRejection {
    /// Fits each class on its distances (an empty class on every class's) and widens the spread of
    /// those fitted on few (``widenFewSpreads(counts:)``): DTW's whole-example and spotting statistics.
    mutating func fitWidening(_ perClass: [[Float]]) {
        fit(distances: DTWClassifier.filled(perClass))
        widenFewSpreads(counts: perClass.map(\.count))
    }
}
