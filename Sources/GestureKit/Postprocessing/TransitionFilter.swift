/// Reports each run of transition classes once, when it ends, as the transition that best fits
/// the classes before and after it. Transitions that begin alike (lying to sitting, lying to
/// standing) are told apart by where they end, which a window deciding during the transition has
/// not seen yet; the class that follows has. While a run lasts, the class before it stays reported;
/// the decision that ends the run passes through and reports the chosen transition as its event.
///
/// The choice maximises (mean score of the transition over the run) x P(transition | class before,
/// class after), the second learned with ``fit(labelSequences:classCount:rest:)`` from the training
/// recordings' label sequences (counts plus `smoothing` per transition; without them, the scores
/// alone decide). Runs shorter than `minimumRun` decisions are dropped.
///
/// A class after the run never seen after a run from that class before (in the training labels)
/// takes the counts of the runs the labels left unlabelled or rest after: those are the
/// transitions whose following class the labels never said. HAPT labels lying to sitting and then
/// sitting, but leaves the standing after lying to standing unlabelled, so a live run from lying
/// that ends in standing is lying to standing, not the alike-beginning lying to sitting.
///
/// The class after the run is the one the decision ending it names, or with `settle` > 0 the one
/// named most often by that decision and the `settle` after it (ties: the first), so a lagging
/// first decision does not decide alone.
///
/// Latency: a transition is reported `settle` + 1 decisions after its run ends, as the
/// ``Prediction/event`` of that decision (which itself passes through: what is happening now),
/// dated from the run's first decision so the event spans the run. A run that starts sooner ends
/// the settling. Causal: nothing after the decision being made is used.
///
/// JSON: `{"kind": "transitionFilter", "classes": ["STAND_TO_SIT", ...], "minimumRun": 1,
/// "smoothing": 1, "settle": 0}`; after fitting also `"classCount": K`, `"counts"` ((K + 1) x (K + 1) x
/// classes, before-major; index K = unlabelled or null) and, when the pipeline has one, `"rest"`
/// (the rest class's index).
/// - Complexity: O(classes) per decision, no allocation after the first.
public struct TransitionFilter: Postprocessor {
    public static let kind = "transitionFilter"
    public var keptByCalibration: Bool { true }
    /// Names of the transition classes.
    public var classes: [String]
    /// Decisions a run needs to be reported.
    public var minimumRun: Int
    /// Added to every learned count, so an unseen context leaves the scores to decide.
    public var smoothing: Float
    /// Decisions after the one ending a run that also name the class after it.
    public var settle: Int
    /// Learned counts of each transition between a class before and a class after; empty when not fitted.
    public var counts: [Float]
    /// K, the pipeline's classes the counts were learned over (0 until fitted).
    public var classCount: Int
    /// The pipeline's rest class when the counts were learned (nil: none, or not fitted).
    public var rest: Int?

    private var held: [Int] = []
    private var position: [Int] = []   // class index -> position in `held`, -1 for other classes
    private var last: Int?             // the last class passed through (nil: null)
    private var before: Int?
    private var run = 0
    private var runStart = 0         // frame of the run's first decision
    private var evidence: [Float] = []
    // A run that has ended, while the class after it settles.
    private var waiting = false
    private var waitLength = 0, waitStart = 0, waitBefore: Int?
    private var waitEvidence: [Float] = []
    private var afterVotes: [Int] = []   // per class, then null
    private var afterFirst: Int?
    private var afterSeen = 0

    /// A filter for the transition classes `classes`.
    public init(classes: [String], minimumRun: Int = 1, smoothing: Float = 1, settle: Int = 0) {
        self.classes = classes
        self.minimumRun = minimumRun
        self.smoothing = smoothing
        self.settle = settle
        self.counts = []
        self.classCount = 0
    }

    enum CodingKeys: String, CodingKey { case classes, minimumRun, smoothing, settle, counts, classCount, rest }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        classes = try c.decodeIfPresent([String].self, forKey: .classes) ?? []
        minimumRun = try c.decodeIfPresent(Int.self, forKey: .minimumRun) ?? 1
        smoothing = try c.decodeIfPresent(Float.self, forKey: .smoothing) ?? 1
        settle = try c.decodeIfPresent(Int.self, forKey: .settle) ?? 0
        counts = try c.decodeIfPresent([Float].self, forKey: .counts) ?? []
        classCount = try c.decodeIfPresent(Int.self, forKey: .classCount) ?? 0
        rest = try c.decodeIfPresent(Int.self, forKey: .rest)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(classes, forKey: .classes)
        try c.encode(minimumRun, forKey: .minimumRun)
        try c.encode(smoothing, forKey: .smoothing)
        if settle != 0 { try c.encode(settle, forKey: .settle) }
        if !counts.isEmpty {
            try c.encode(classCount, forKey: .classCount)
            try c.encode(counts, forKey: .counts)
            try c.encodeIfPresent(rest, forKey: .rest)
        }
    }

    public func validate() throws {
        if classes.isEmpty { throw GestureKitError("names no transition class", field: "classes") }
        if minimumRun < 1 { throw GestureKitError("must be at least 1, found \(minimumRun)", field: "minimumRun") }
        if settle < 0 { throw GestureKitError("must be 0 or more, found \(settle)", field: "settle") }
        if !(smoothing > 0 && smoothing.isFinite) {
            throw GestureKitError("must be a finite number above 0, found \(smoothing)", field: "smoothing")
        }
        if counts.isEmpty { return }
        let expected = (classCount + 1) * (classCount + 1) * classes.count
        if classCount < 1 || counts.count != expected {
            throw GestureKitError("expected \(expected) values for \(classCount) classes, found \(counts.count)", field: "counts")
        }
        if let bad = counts.first(where: { !($0.isFinite && $0 >= 0) }) {
            throw GestureKitError("values must be finite and >= 0, found \(bad)", field: "counts")
        }
        if let r = rest, !(0..<classCount).contains(r) {
            throw GestureKitError("must be a class index below \(classCount), found \(r)", field: "rest")
        }
    }

    public mutating func bind(classes names: [String]) throws {
        held = try classIndices(of: classes, in: names)
        if !counts.isEmpty && classCount != names.count {
            throw GestureKitError("learned over \(classCount) classes, the pipeline has \(names.count)", field: "classCount")
        }
        position = [Int](repeating: -1, count: names.count)
        for (p, i) in held.enumerated() { position[i] = p }
        reset()
    }

    /// Counts, per run of transition labels in the sequences, its most frequent transition between
    /// the label before the run and the label after it (nil, unlabelled, as a context of its own).
    /// Runs at the start or end of a sequence have no context on one side and are not counted.
    public mutating func fit(labelSequences: [[Int?]], classCount k: Int, rest: Int?) throws {
        guard !held.isEmpty else { return }
        var table = [Float](repeating: 0, count: (k + 1) * (k + 1) * held.count)
        var votes = [Int](repeating: 0, count: held.count)
        for seq in labelSequences {
            var prev: Int?? = .none   // nothing seen yet
            var inRun = false
            for label in seq {
                if let l = label, !(0..<k).contains(l) {
                    throw GestureKitError("label \(l) outside 0..<\(k)", field: "labels")
                }
                if let l = label, l < position.count, position[l] >= 0 {
                    let p = position[l]
                    if !inRun {
                        inRun = true
                        for v in votes.indices { votes[v] = 0 }
                    }
                    votes[p] += 1
                    continue
                }
                if inRun, case .some(let b) = prev {
                    let m = votes.indices.max { votes[$0] < votes[$1] }!
                    table[((b ?? k) * (k + 1) + (label ?? k)) * held.count + m] += 1
                }
                inRun = false
                prev = .some(label)
            }
        }
        counts = table
        classCount = k
        self.rest = rest
        reset()
    }

    public mutating func reset() {
        last = nil
        before = nil
        run = 0
        if evidence.count != held.count { evidence = [Float](repeating: 0, count: held.count) }
        for i in evidence.indices { evidence[i] = 0 }
        if waitEvidence.count != held.count { waitEvidence = [Float](repeating: 0, count: held.count) }
        if afterVotes.count != position.count + 1 { afterVotes = [Int](repeating: 0, count: position.count + 1) }
        waiting = false
        afterSeen = 0
    }

    /// Where the counts of transitions between `before` and `after` (`k`: unlabelled or null) begin,
    /// or nil when there are none to read.
    private func context(_ before: Int, _ after: Int) -> Int? {
        let k = classCount
        guard !counts.isEmpty, (0...k).contains(before), (0...k).contains(after) else { return nil }
        return (before * (k + 1) + after) * held.count
    }

    /// The ended run's transition given the class after it.
    private func choice(after: Int?) -> Int {
        let k = classCount, n = held.count
        var best = 0, bestScore = -Float.infinity
        let b = waitBefore ?? k, a = after ?? k
        // The counts of transition e over the contexts in `bases` (up to two, summed).
        func count(_ bases: (Int?, Int?), _ e: Int) -> Float {
            (bases.0.map { counts[$0 + e] } ?? 0) + (bases.1.map { counts[$0 + e] } ?? 0)
        }
        func sum(_ bases: (Int?, Int?)) -> Float { (0..<n).reduce(0) { $0 + count(bases, $1) } }
        var bases: (Int?, Int?) = (context(b, a), nil)
        var total = sum(bases)
        // An after never seen from this before: the transitions the labels left without one.
        if total == 0, a != k, a != rest {
            let open = (context(b, k), rest.flatMap { context(b, $0) })
            let t = sum(open)
            if t > 0 { (bases, total) = (open, t) }
        }
        let learned = bases.0 != nil || bases.1 != nil
        for e in 0..<n {
            let prior = learned ? (count(bases, e) + smoothing) / (total + smoothing * Float(n)) : 1
            let score = (waitEvidence[e] / Float(max(waitLength, 1))) * prior
            if score > bestScore { best = e; bestScore = score }
        }
        return best
    }

    /// `label`'s place in `afterVotes`: the class, or the last place for null and unknown labels.
    private func slot(_ label: Int?) -> Int {
        label.map { $0 >= 0 && $0 < position.count ? $0 : position.count } ?? position.count
    }

    /// Counts `label` toward the class after the ended run.
    private mutating func vote(_ label: Int?) {
        let v = slot(label)
        if afterSeen == 0 {
            for i in afterVotes.indices { afterVotes[i] = 0 }
            afterFirst = label
        }
        afterVotes[v] += 1
        afterSeen += 1
    }

    /// The ended run's event, its class after settled.
    private mutating func finish() -> Prediction.Event {
        waiting = false
        var top = slot(afterFirst)
        for i in afterVotes.indices where afterVotes[i] > afterVotes[top] { top = i }
        afterSeen = 0
        let e = choice(after: top == position.count ? nil : top)
        return Prediction.Event(classIndex: held[e], confidence: waitEvidence[e] / Float(max(waitLength, 1)), since: waitStart)
    }

    public mutating func process(_ prediction: Prediction, frame: Int) -> Prediction {
        let label = prediction.classIndex
        let transition = label.map { $0 >= 0 && $0 < position.count && position[$0] >= 0 } ?? false
        var event = prediction.event
        if waiting {
            if !transition { vote(label) }
            if transition || afterSeen > settle { event = finish() }
        }
        if transition {
            if run == 0 {
                before = last
                runStart = frame
            }
            run += 1
            for (e, i) in held.enumerated() where i < prediction.scores.count {
                let s = prediction.scores[i]
                if s.isFinite { evidence[e] += s }
            }
            guard let b = before else {
                var out = prediction.suppressed
                out.event = event
                return out
            }
            var kept = prediction
            kept.classIndex = b
            kept.confidence = b < prediction.scores.count ? prediction.scores[b] : 0
            kept.event = event
            return kept
        }
        defer { last = label }
        var out = prediction
        out.event = event
        guard run > 0 else { return out }
        if run >= minimumRun {
            waiting = true
            waitLength = run
            waitStart = runStart
            waitBefore = before
            swap(&waitEvidence, &evidence)
            vote(label)
            if afterSeen > settle { out.event = finish() }
        }
        run = 0
        for i in evidence.indices { evidence[i] = 0 }
        return out
    }
}
