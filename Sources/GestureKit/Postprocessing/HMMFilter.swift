import Foundation

/// Causal temporal decoding: an HMM forward filter over the classifier's per-decision class scores.
/// The belief over classes is carried from decision to decision through a transition matrix, so a
/// single stray window cannot flip the reported class unless its evidence outweighs the prior to
/// stay. No look-ahead: the output at decision t uses decisions 0...t only (latency 0 decisions; the
/// price is that a real change is reported once its evidence has overcome the stay prior, typically
/// 1-2 decisions).
///
/// Transitions are either learned with ``fit(labelSequences:classCount:)`` from the label sequences
/// of the training recordings, sampled at the decision rate (self-transition from the mean segment
/// length, so long activities get a strong stay prior = a soft minimum duration), or, when none are
/// learned, `stay` on the diagonal and the rest spread evenly.
///
/// JSON: `{"kind": "hmmFilter", "stay": 0.9}`; after fitting also `"classes": K` and `"transitions"`
/// (K x K, row-major, row = from). Keys: `stay` in (0, 1) (default 0.9), `floor` (default 1e-3, the
/// smallest emission a class gets so one confident wrong window cannot zero a belief), `restLeave`
/// (default 1: learned transitions out of the pipeline's rest class times this, so its expected stay
/// is that many times shorter; the rest class's long unlabelled gaps otherwise hold the filter in rest
/// into the activity that follows).
/// - Complexity: O(K^2) per decision for K classes, no allocation after the first decision.
public struct HMMFilter: Postprocessor {
    public static let kind = "hmmFilter"
    /// Self-transition probability when no transitions are learned.
    public var stay: Float
    /// Smallest emission probability, so one confident window cannot zero a class's belief.
    public var floor: Float
    /// Whether ``fit(labelSequences:classCount:)`` learns the transitions (`learn`, default true);
    /// false keeps `stay` on the diagonal whatever the training recordings show.
    public var learn: Bool = true
    /// Multiplies the learned probability of leaving the rest class (the pipeline's `rest`), leaving
    /// at least 0.01 to stay; 1 learns it like any class.
    public var restLeave: Float = 1
    /// Learned K x K row-stochastic matrix, row-major; empty when not fitted.
    public var transitions: [Float]
    /// K, the classes of ``transitions`` (0 until fitted or prepared).
    public var classes: Int

    private var belief: [Float] = []
    private var scratch: [Float] = []
    private var matrix: [Float] = []

    /// A filter with `stay` on the diagonal until fitted.
    public init(stay: Float = 0.9, floor: Float = 1e-3) {
        self.stay = stay
        self.floor = floor
        self.transitions = []
        self.classes = 0
    }

    enum CodingKeys: String, CodingKey { case stay, floor, learn, restLeave, transitions, classes }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        stay = try c.decodeIfPresent(Float.self, forKey: .stay) ?? 0.9
        floor = try c.decodeIfPresent(Float.self, forKey: .floor) ?? 1e-3
        learn = try c.decodeIfPresent(Bool.self, forKey: .learn) ?? true
        restLeave = try c.decodeIfPresent(Float.self, forKey: .restLeave) ?? 1
        transitions = try c.decodeIfPresent([Float].self, forKey: .transitions) ?? []
        classes = try c.decodeIfPresent(Int.self, forKey: .classes) ?? 0
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(stay, forKey: .stay)
        try c.encode(floor, forKey: .floor)
        try c.encode(learn, forKey: .learn)
        if restLeave != 1 { try c.encode(restLeave, forKey: .restLeave) }
        if !transitions.isEmpty {
            try c.encode(classes, forKey: .classes)
            try c.encode(transitions, forKey: .transitions)
        }
    }

    public func validate() throws {
        if !(stay > 0 && stay < 1) { throw GestureKitError("must be in (0, 1), found \(stay)", field: "stay") }
        if !(floor > 0 && floor < 1) { throw GestureKitError("must be in (0, 1), found \(floor)", field: "floor") }
        if !(restLeave > 0 && restLeave.isFinite) {
            throw GestureKitError("must be a finite number above 0, found \(restLeave)", field: "restLeave")
        }
        if transitions.isEmpty { return }
        if classes < 1 || transitions.count != classes * classes {
            throw GestureKitError("expected \(classes) x \(classes) = \(classes * classes) values, found \(transitions.count)", field: "transitions")
        }
        for r in 0..<classes {
            let row = transitions[r * classes ..< (r + 1) * classes]
            if let bad = row.first(where: { !($0.isFinite && $0 >= 0) }) {
                throw GestureKitError("row \(r): values must be finite and >= 0, found \(bad)", field: "transitions")
            }
            let sum = row.reduce(0, +)
            if abs(sum - 1) > 1e-3 { throw GestureKitError("row \(r) sums to \(sum), expected 1", field: "transitions") }
        }
    }

    /// Learns the transition matrix from label sequences at the decision rate (one class index per
    /// decision; nil = unlabelled, which breaks a segment). The self-transition of class c is
    /// 1 - 1/L_c for its mean segment length L_c (in decisions), clamped to [0.5, 0.999]; leaving
    /// c goes to the classes it was seen to go to (counts plus 1, so an unseen change stays possible).
    /// With `rest`, that class's probability of leaving is multiplied by ``restLeave``.
    /// - Complexity: O(total labels + K^2).
    public mutating func fit(labelSequences: [[Int?]], classCount k: Int, rest: Int?) throws {
        guard learn else { return }
        guard k >= 1 else { throw GestureKitError("needs at least one class", field: "classes") }
        var segments = [Int](repeating: 0, count: k), frames = [Int](repeating: 0, count: k)
        var change = [Float](repeating: 1, count: k * k)
        for seq in labelSequences {
            var prev: Int? = nil
            for label in seq {
                if let l = label {
                    guard l >= 0 && l < k else { throw GestureKitError("label \(l) outside 0..<\(k)", field: "labels") }
                    frames[l] += 1
                    if l != prev { segments[l] += 1; if let p = prev { change[p * k + l] += 1 } }
                }
                prev = label
            }
        }
        var t = [Float](repeating: 0, count: k * k)
        for r in 0..<k {
            let meanLength = segments[r] > 0 ? Float(frames[r]) / Float(segments[r]) : 1 / (1 - stay)
            var p = k == 1 ? 1 : min(0.999, max(0.5, 1 - 1 / meanLength))
            if r == rest, k > 1 { p = max(0.01, 1 - (1 - p) * restLeave) }
            var off: Float = 0
            for c in 0..<k where c != r { off += change[r * k + c] }
            for c in 0..<k { t[r * k + c] = c == r ? p : (1 - p) * change[r * k + c] / max(off, 1e-12) }
        }
        transitions = t
        classes = k
        reset()
    }

    public mutating func fit(labelSequences: [[Int?]], classCount k: Int) throws {
        try fit(labelSequences: labelSequences, classCount: k, rest: nil)
    }

    public mutating func reset() {
        belief = []
    }

    /// Sizes the state for `k` classes: the uniform prior and the matrix (learned, or from `stay`).
    private mutating func start(_ k: Int) {
        belief = [Float](repeating: 1 / Float(k), count: k)
        scratch = [Float](repeating: 0, count: k)
        if transitions.count == k * k {
            matrix = transitions
        } else {
            let off = k > 1 ? (1 - stay) / Float(k - 1) : 0
            matrix = (0..<(k * k)).map { $0 / k == $0 % k ? (k > 1 ? stay : 1) : off }
        }
    }

    public mutating func process(_ prediction: Prediction, frame: Int) -> Prediction {
        let k = prediction.scores.count
        guard k > 0 else { return prediction }
        if belief.count != k { start(k) }
        var total: Float = 0
        belief.withUnsafeMutableBufferPointer { b in
            scratch.withUnsafeMutableBufferPointer { s in
                matrix.withUnsafeBufferPointer { m in
                    prediction.scores.withUnsafeBufferPointer { e in
                        var emissionSum: Float = 0
                        for c in 0..<k { emissionSum += max(e[c], 0) }
                        let scale: Float = emissionSum > 0 ? 1 / emissionSum : 0
                        for c in 0..<k {
                            var prior: Float = 0
                            for r in 0..<k { prior += b[r] * m[r * k + c] }
                            // Scores are normalised to a distribution, then floored.
                            let emission = emissionSum > 0 ? max(max(e[c], 0) * scale, floor) : 1
                            s[c] = prior * emission
                            total += s[c]
                        }
                        let inv: Float = total > 0 && total.isFinite ? 1 / total : 0
                        for c in 0..<k { b[c] = inv > 0 ? s[c] * inv : 1 / Float(k) }
                    }
                }
            }
        }
        var best = 0
        for c in 1..<k where belief[c] > belief[best] { best = c }
        var out = prediction
        out.classIndex = best
        out.confidence = belief[best]
        return out
    }
}
