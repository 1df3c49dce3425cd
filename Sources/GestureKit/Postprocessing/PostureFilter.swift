/// Keeps the posture a reported transition led to. Sitting and standing look alike from one
/// window of a phone on the waist, and how alike depends on the wearer: held-out users lost half
/// of one of the two to the other (HAPT tuning folds), while their transitions were found. After
/// an event whose transition leads to one of `classes`, decisions naming another of `classes`
/// report that posture instead, until another event or `leave` decisions in a row of a class
/// outside `classes` (walking, lying down; null and the rest class leave it be).
///
/// Where each transition leads is learned with ``fit(labelSequences:classCount:rest:)``: the
/// class most often labelled first after a run of it in the training recordings (skipping
/// unlabelled and rest frames). An event of a class that leads nowhere in `classes` ends the
/// posture.
///
/// Latency: none; it acts on the decision that reports the event and after. Causal.
///
/// JSON: `{"kind": "postureFilter", "classes": ["SITTING", "STANDING"], "leave": 2}`; after fitting
/// also `"leadsTo"` (per class of the pipeline, the class its runs lead to, -1 for none) and, when
/// the pipeline has one, `"rest"` (the rest class's index).
/// - Complexity: O(1) per decision, no allocation.
public struct PostureFilter: Postprocessor {
    public static let kind = "postureFilter"
    public var keptByCalibration: Bool { true }
    /// Names of the postures a transition can be kept to.
    public var classes: [String]
    /// Decisions in a row of a class outside `classes` (not null, not rest) that end the posture.
    public var leave: Int
    /// Per class of the pipeline, the class its runs lead to (-1: none); empty until fitted.
    public var leadsTo: [Int]

    private var postures: [Bool] = []
    private(set) var rest: Int?
    private var posture: Int?
    private var away = 0

    /// A filter keeping the postures `classes`.
    public init(classes: [String], leave: Int = 2) {
        self.classes = classes
        self.leave = leave
        leadsTo = []
    }

    enum CodingKeys: String, CodingKey { case classes, leave, leadsTo, rest }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        classes = try c.decodeIfPresent([String].self, forKey: .classes) ?? []
        leave = try c.decodeIfPresent(Int.self, forKey: .leave) ?? 2
        leadsTo = try c.decodeIfPresent([Int].self, forKey: .leadsTo) ?? []
        rest = try c.decodeIfPresent(Int.self, forKey: .rest)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(classes, forKey: .classes)
        try c.encode(leave, forKey: .leave)
        if !leadsTo.isEmpty {
            try c.encode(leadsTo, forKey: .leadsTo)
            try c.encodeIfPresent(rest, forKey: .rest)
        }
    }

    public func validate() throws {
        if classes.isEmpty { throw GestureKitError("names no posture", field: "classes") }
        if leave < 1 { throw GestureKitError("must be at least 1, found \(leave)", field: "leave") }
        if let bad = leadsTo.first(where: { $0 < -1 || $0 >= leadsTo.count }) {
            throw GestureKitError("must be a class index below \(leadsTo.count) or -1, found \(bad)", field: "leadsTo")
        }
        if let r = rest, !leadsTo.indices.contains(r) {
            throw GestureKitError("must be a class index below \(leadsTo.count), found \(r)", field: "rest")
        }
    }

    public mutating func bind(classes names: [String]) throws {
        let held = try classIndices(of: classes, in: names)
        if !leadsTo.isEmpty && leadsTo.count != names.count {
            throw GestureKitError("learned over \(leadsTo.count) classes, the pipeline has \(names.count)", field: "leadsTo")
        }
        postures = [Bool](repeating: false, count: names.count)
        for i in held { postures[i] = true }
        reset()
    }

    /// Per class, the label most often first after its runs, unlabelled and `rest` frames skipped.
    public mutating func fit(labelSequences: [[Int?]], classCount k: Int, rest: Int?) throws {
        var counts = [Int](repeating: 0, count: k * k)
        for seq in labelSequences {
            var open: Int?   // a run that ended, waiting for the next label
            var current: Int?
            for label in seq {
                if let l = label, !(0..<k).contains(l) {
                    throw GestureKitError("label \(l) outside 0..<\(k)", field: "labels")
                }
                guard let l = label, l != rest else {
                    if let c = current { open = c }
                    current = nil
                    continue
                }
                if l == current { continue }
                if let o = current ?? open, o != l { counts[o * k + l] += 1 }
                open = nil
                current = l
            }
        }
        leadsTo = (0..<k).map { c in
            let row = counts[(c * k)..<(c * k + k)]
            guard let m = row.max(), m > 0 else { return -1 }
            return row.firstIndex(of: m)! - c * k
        }
        self.rest = rest
        reset()
    }

    public mutating func reset() {
        posture = nil
        away = 0
    }

    public mutating func process(_ prediction: Prediction, frame: Int) -> Prediction {
        if let e = prediction.event?.classIndex, e >= 0, e < leadsTo.count {
            let next = leadsTo[e]
            posture = next >= 0 && next < postures.count && postures[next] ? next : nil
            away = 0
        }
        guard let l = prediction.classIndex, l >= 0, l < postures.count, l != rest else { return prediction }
        guard postures[l] else {
            away += 1
            if away >= leave { posture = nil }
            return prediction
        }
        away = 0
        guard let p = posture, p != l else { return prediction }
        var kept = prediction
        kept.classIndex = p
        kept.confidence = p < prediction.scores.count ? prediction.scores[p] : prediction.confidence
        return kept
    }
}
