/// Holds back the onset of short, confusable classes (postural transitions, gestures) until one of
/// them has been decided `decisions` times in a row; until then the last reported class stays
/// reported. Transitions that begin alike (lying to sitting, lying to standing) each last a few
/// decisions, and the first decisions of one often name the other: reported at once, that brief
/// wrong run is an event of its own. Other classes pass through unchanged, so activities are not
/// delayed.
///
/// Latency: `decisions - 1` decisions for the classes held, none for the others. Causal.
///
/// JSON: `{"kind": "onsetFilter", "decisions": 2, "classes": ["STAND_TO_SIT", "SIT_TO_STAND"]}`:
/// `decisions` >= 1 (default 2; 1 passes everything through), `classes` the class names held back
/// (at least one; each must be a class of the pipeline, checked when it is trained or loaded).
/// - Complexity: O(classes) per prediction, no allocation.
public struct OnsetFilter: Postprocessor {
    public static let kind = "onsetFilter"
    public var keptByCalibration: Bool { true }
    /// Consecutive decisions a held class needs before it is reported.
    public var decisions: Int
    /// Names of the classes held back.
    public var classes: [String]

    /// `classes` as indices into the pipeline's classes, once bound.
    private var held: [Int] = []
    private var reported: Int?
    private var candidate: Int?
    private var run = 0

    /// A filter holding `classes` until they are decided `decisions` times in a row.
    public init(decisions: Int = 2, classes: [String]) {
        self.decisions = decisions
        self.classes = classes
    }

    enum CodingKeys: String, CodingKey { case decisions, classes }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        decisions = try c.decodeIfPresent(Int.self, forKey: .decisions) ?? 2
        classes = try c.decodeIfPresent([String].self, forKey: .classes) ?? []
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(decisions, forKey: .decisions)
        try c.encode(classes, forKey: .classes)
    }

    public func validate() throws {
        if decisions < 1 { throw GestureKitError("must be at least 1, found \(decisions)", field: "decisions") }
        if classes.isEmpty { throw GestureKitError("names no class to hold back", field: "classes") }
    }

    public mutating func bind(classes names: [String]) throws {
        held = try classIndices(of: classes, in: names)
        reset()
    }

    public mutating func reset() {
        reported = nil
        candidate = nil
        run = 0
    }

    public mutating func process(_ prediction: Prediction, frame: Int) -> Prediction {
        let label = prediction.classIndex
        guard let l = label, l != reported, held.contains(l) else {
            candidate = nil
            run = 0
            reported = label
            return prediction
        }
        if candidate == l { run += 1 } else { candidate = l; run = 1 }
        if run >= decisions {
            reported = l
            candidate = nil
            run = 0
            return prediction
        }
        guard let r = reported else { return prediction.suppressed }
        var kept = prediction
        kept.classIndex = r
        kept.confidence = r < prediction.scores.count ? prediction.scores[r] : prediction.confidence
        return kept
    }
}
