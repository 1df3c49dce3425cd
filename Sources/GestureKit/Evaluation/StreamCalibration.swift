import Foundation

/// Stream calibration: chooses a windowed pipeline's rest weight and live post-processing (decision
/// threshold and temporal smoothing) by cross-validation grouped by user or session on the
/// continuous training recordings only, maximising event F1 plus frame accuracy under a cap on
/// false activations per minute.
///
/// Each fold trains the spec on the other groups and replays its own recordings once, keeping the
/// classifier's raw decisions; every candidate post-processing is then run over those decisions
/// exactly as a ``Recognizer`` would run it live (HMM transitions learned from the fold's training
/// recordings where a candidate learns), under each rest weight tried. The winner has the highest
/// pooled event F1 plus frame accuracy (post-processed, over labelled frames) among the candidates
/// within the cap (ties: the earlier candidate); when none is within the cap, the one with the
/// fewest false activations. The spec's stages that are ``Postprocessor/keptByCalibration``
/// (``OnsetFilter``, ``TransitionFilter``, ``PostureFilter``) are not chosen but kept: each candidate
/// runs with them after it. Frame accuracy counts because events alone ignore how the frames
/// between them are named (activities that are not events, e.g. walking between postures).
///
/// Spec key (`gesture train --calibrate` adds it with its defaults):
/// `"calibration": {"folds": 3, "maxFalseActivationsPerMinute": 0.3, "events": ["A", "B"]}`
/// (`events`: the classes whose segments count as events; default every class but the rest class).
///
/// - Complexity: `folds` trainings and one replay of every recording, plus, per candidate, one pass
///   of its post-processing over the decisions (O(decisions * classes^2) at most).
public enum StreamCalibration {
    /// What to calibrate on: the spec's `calibration` key.
    public struct Settings: Sendable, Hashable, Codable {
        /// Groups of users (or sessions) the recordings are dealt into; each is held out once.
        public var folds: Int
        /// The cap on false activations per minute of null time a candidate must keep.
        public var maxFalseActivationsPerMinute: Double
        /// Classes whose segments count as events; `nil` for every class but the rest class.
        public var events: [String]?

        /// Settings with the spec's defaults.
        public init(folds: Int = 3, maxFalseActivationsPerMinute: Double = 0.3, events: [String]? = nil) {
            self.folds = folds
            self.maxFalseActivationsPerMinute = maxFalseActivationsPerMinute
            self.events = events
        }

        enum CodingKeys: String, CodingKey { case folds, maxFalseActivationsPerMinute, events }

        /// Reads the `calibration` key, refusing unknown keys and out-of-range values.
        public init(from decoder: Decoder) throws {
            let all = try decoder.container(keyedBy: StringKey.self)
            if let unknown = all.allKeys.first(where: { CodingKeys(stringValue: $0.stringValue) == nil }) {
                throw GestureKitError("unknown key \"\(unknown.stringValue)\" (keys: events, folds, maxFalseActivationsPerMinute)",
                                      field: "calibration.\(unknown.stringValue)")
            }
            let c = try decoder.container(keyedBy: CodingKeys.self)
            folds = try c.decodeIfPresent(Int.self, forKey: .folds) ?? 3
            maxFalseActivationsPerMinute = try c.decodeIfPresent(Double.self, forKey: .maxFalseActivationsPerMinute) ?? 0.3
            events = try c.decodeIfPresent([String].self, forKey: .events)
            try validate()
        }

        /// Throws when a setting is out of range, naming it.
        public func validate() throws {
            if folds < 2 { throw GestureKitError("must be at least 2, found \(folds)", field: "calibration.folds") }
            if !(maxFalseActivationsPerMinute >= 0) {
                throw GestureKitError("must be a non-negative number", field: "calibration.maxFalseActivationsPerMinute")
            }
            if let e = events, e.isEmpty { throw GestureKitError("names no class", field: "calibration.events") }
        }
    }

    /// One candidate's pooled figures over the held-out folds.
    public struct Row: Sendable, Hashable {
        /// The candidate, e.g. `hmm stay 0.9, threshold 0.5`.
        public var name: String
        /// Its replay scores pooled over the held-out folds.
        public var report: StreamReport
        /// Post-processed frame accuracy over the frames labelled with a class (rest and unlabelled
        /// frames left out: false activations score those).
        public var labelledFrameAccuracy: Double
        /// What the choice maximises: event F1 plus `labelledFrameAccuracy`.
        public var merit: Double { report.eventF1 + labelledFrameAccuracy }
    }

    /// The choice and the table it was made from.
    public struct Result: Sendable {
        /// The spec with the chosen post-processing (untrained).
        public var spec: PipelineSpec
        /// Every candidate: each rest weight tried (see ``StreamCalibration/restWeights(for:classes:)``)
        /// with each of ``StreamCalibration/candidates()`` in order.
        public var table: [Row]
        /// Index of the winner in `table`.
        public var chosen: Int
        /// Whether the folds hold users or sessions.
        public var groupedBy: GroupBy
        /// The user or session names held out in each fold.
        public var folds: [[String]]
    }

    /// The post-processing variants tried: none; thresholds 0.5 / 0.7 / 0.9; each with an HMM
    /// filter (stay 0.8, 0.9, 0.95, 0.98, learned, or learned with rest left ten times sooner:
    /// `restLeave` 10) or a majority label filter (2 of 3, 3 of 5, 4 of 7).
    public static func candidates() -> [(name: String, stages: [any Postprocessor])] {
        var smoothing: [(String, [any Postprocessor], Bool)] = [("none", [], false)]
        for stay: Float in [0.8, 0.9, 0.95, 0.98] {
            var h = HMMFilter(stay: stay)
            h.learn = false
            smoothing.append(("hmm stay \(stay)", [h], false))
        }
        smoothing.append(("hmm learned", [HMMFilter()], false))
        var quick = HMMFilter()
        quick.restLeave = 10
        smoothing.append(("hmm learned, rest leave x10", [quick], false))
        for (m, b) in [(2, 3), (3, 5), (4, 7)] {
            smoothing.append(("labelFilter \(m)/\(b)", [LabelFilter(minimumCount: m, bufferSize: b)], true))
        }
        var out: [(String, [any Postprocessor])] = []
        for threshold: Float? in [nil, 0.5, 0.7, 0.9] {
            for (name, stages, thresholdFirst) in smoothing {
                guard let t = threshold else {
                    out.append((name, stages))
                    continue
                }
                let gate = ConfidenceThreshold(threshold: t)
                out.append(("\(name), threshold \(t)", thresholdFirst ? [gate] + stages : stages + [gate]))
            }
        }
        return out
    }

    /// The rest weights tried: the spec's own when it pins one; else, when the spec has a rest
    /// class, 1, 0.3, 0.1, 0.03, 0.01 and 0.003; else none (`nil`: no weighing).
    public static func restWeights(for spec: PipelineSpec, classes: [String]) -> [Float?] {
        if let w = spec.restWeight { return [w] }
        guard let rest = spec.rest, classes.contains(rest) else { return [nil] }
        return [1, 0.3, 0.1, 0.03, 0.01, 0.003]
    }

    /// Users when every recording names one and there are at least `folds` of them; else sessions.
    static func grouping(of data: Dataset, folds: Int) -> GroupBy? {
        for g in [GroupBy.user, .session] {
            let ids = data.recordings.map { g.id(user: $0.user, session: $0.session) }
            if ids.allSatisfy({ $0 != nil }), data.examples.allSatisfy({ g.id(user: $0.user, session: $0.session) != nil }),
               Set(ids).count >= folds { return g }
        }
        return nil
    }

    /// Chooses the post-processing of `spec` for `data` (see the type's description).
    /// - Parameters:
    ///   - spec: a windowed spec; its own post-processing is replaced by the choice, except its
    ///     stages that are ``Postprocessor/keptByCalibration``, which every candidate is replayed
    ///     with and the choice keeps last.
    ///   - data: the training data, with its continuous recordings (never the data a figure is
    ///     reported on).
    ///   - settings: folds, the false-activation cap and the event classes.
    ///   - progress: receives each fold as it is trained and replayed.
    /// - Throws: when the spec is not windowed, the data has no continuous recordings or too few
    ///   users or sessions for the folds, or an event class is not a class of the data.
    public static func calibrate(_ spec: PipelineSpec, on data: Dataset, settings: Settings,
                                 progress: (@Sendable (String) -> Void)? = nil) throws -> Result {
        try settings.validate()
        guard let window = spec.window else {
            throw GestureKitError("stream calibration needs a windowed pipeline (features.window)", field: "calibration")
        }
        guard !data.recordings.isEmpty else {
            throw GestureKitError("stream calibration needs continuous recordings (CSV sessions, HAPT streams)",
                                  file: data.source, field: "calibration")
        }
        guard let group = grouping(of: data, folds: settings.folds) else {
            throw GestureKitError("stream calibration needs at least \(settings.folds) users or sessions named on every recording",
                                  file: data.source, field: "calibration.folds")
        }
        if let unknown = settings.events?.first(where: { !data.classes.contains($0) }) {
            throw GestureKitError("\(unknown) is not a class of the data", file: data.source, field: "calibration.events")
        }
        func key(_ user: String?, _ session: String?) -> String { group.id(user: user, session: session) ?? "" }
        let ids = Dataset.classOrder(data.recordings.map { key($0.user, $0.session) }).sorted()
        let folds = (0..<settings.folds).map { f in stride(from: f, to: ids.count, by: settings.folds).map { ids[$0] } }
        let post = candidates()
        let kept = spec.postprocessing.filter(\.keptByCalibration)
        let weights = restWeights(for: spec, classes: data.classes)
        // Weight-major: candidate w * post.count + j is post-processing j under weight w.
        let names = weights.flatMap { w in post.map { c in w.map { "rest x\($0), \(c.name)" } ?? c.name } }
        var replays = [[ScoredReplay]](repeating: [], count: names.count)
        var reference: Pipeline?
        for (n, held) in folds.enumerated() {
            let heldSet = Set(held)
            var train = data
            train.examples = data.examples.filter { !heldSet.contains(key($0.user, $0.session)) }
            train.recordings = data.recordings.filter { !heldSet.contains(key($0.user, $0.session)) }
            var bare = spec
            bare.postprocessing = []
            bare.restWeight = nil
            let pipeline = try Pipeline.train(bare, on: train)
            reference = reference ?? pipeline
            let sequences = Pipeline.decisionLabels(of: train, window: window, classes: pipeline.classes)
            let heldRecordings = data.recordings.filter { heldSet.contains(key($0.user, $0.session)) }
            let traces = try heldRecordings.map { try Evaluation.trace(pipeline, $0) }
            let weighed = weights.map { w -> [DecisionTrace] in
                guard let w, w != 1, let rest = pipeline.restIndex else { return traces }
                return traces.map { $0.weighingRest(w, at: rest) }
            }
            for (j, c) in post.enumerated() {
                var stages = c.stages + kept
                for s in stages.indices {
                    try stages[s].bind(classes: pipeline.classes)
                    if !sequences.isEmpty {
                        try stages[s].fit(labelSequences: sequences, classCount: pipeline.classes.count, rest: pipeline.restIndex)
                    }
                    try stages[s].prepare(sampleRate: pipeline.sampleRate)
                }
                for (w, ts) in weighed.enumerated() {
                    replays[w * post.count + j] += zip(heldRecordings, ts).map {
                        ScoredReplay(recording: $0, trace: $1, postprocessing: stages)
                    }
                }
            }
            progress?("fold \(n + 1)/\(folds.count): trained on \(ids.count - held.count) \(group)s, replayed \(held.joined(separator: ","))")
        }
        let events = settings.events.map(Set.init)
        let labelled = Set(reference!.classes.filter { $0 != spec.rest })
        let table = names.indices.map { i in
            let report = Evaluation.score(replays[i], pipeline: reference!, classes: events)
            return Row(name: names[i], report: report,
                       labelledFrameAccuracy: report.frameAccuracy(of: labelled, decoded: true))
        }
        let cap = settings.maxFalseActivationsPerMinute
        let within = table.indices.filter { table[$0].report.falseActivationsPerMinute <= cap }
        let chosen: Int
        if within.isEmpty {
            chosen = table.indices.min { table[$0].report.falseActivationsPerMinute < table[$1].report.falseActivationsPerMinute }!
        } else {
            chosen = within.max { a, b in
                let (x, y) = (table[a].merit, table[b].merit)
                return x != y ? x < y : a > b
            }!
        }
        var result = spec
        result.postprocessing = post[chosen % post.count].stages + kept
        result.restWeight = weights[chosen / post.count]
        return Result(spec: result, table: table, chosen: chosen, groupedBy: group, folds: folds)
    }
}
