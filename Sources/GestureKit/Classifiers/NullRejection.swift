/// Per-class null rejection learned from training distances, GRT style: class `c` accepts a match
/// whose distance is at most `mean[c] + k * std[c]` of the distances seen for `c` in training.
///
/// `k` is the user's knob: larger accepts more (fewer true gestures rejected, more false
/// activations). The statistics are kept so `k` can be changed after training without retraining.
public struct NullRejection: Sendable, Hashable, Codable {
    /// Multiplier of the standard deviation; `nil` switches rejection off.
    public var k: Float?
    /// Mean training distance per class, as the pipeline file stores it.
    @usableFromInline package var means: PackedFloats
    /// Standard deviation of the training distances per class, as the pipeline file stores it.
    @usableFromInline package var stds: PackedFloats

    /// Mean training distance per class.
    public var distanceMeans: [Float] { means.values }
    /// Standard deviation of the training distances per class.
    public var distanceStds: [Float] { stds.values }

    /// Thresholds for `classCount` classes, not yet fitted; `k` `nil` = off.
    public init(k: Float?, classCount: Int) {
        self.k = k
        means = PackedFloats([Float](repeating: 0, count: classCount))
        stds = PackedFloats([Float](repeating: 0, count: classCount))
    }

    /// Learns mean and standard deviation of each class's training distances.
    /// - Parameter distances: for each class, the distances seen for its training examples (for
    ///   example leave-one-out nearest-neighbour distances).
    public mutating func fit(distances: [[Float]]) {
        var m = [Float](), s = [Float]()
        for d in distances {
            guard !d.isEmpty else { m.append(.infinity); s.append(0); continue }
            let mean = d.reduce(0, { $0 + Double($1) }) / Double(d.count)
            let v = d.reduce(0, { $0 + (Double($1) - mean) * (Double($1) - mean) }) / Double(d.count)
            m.append(Float(mean))
            s.append(Float(v.squareRoot()))
        }
        means = PackedFloats(m)
        stds = PackedFloats(s)
    }

    /// Widens the spread of each class fitted on at most ``fewDistances`` distances (`counts[c]`,
    /// before any pooled filling; 0 leaves the class as it is): its standard deviation becomes
    /// `sqrt((n * std^2 + priorWeight * (priorSpread * mean)^2) / (n + priorWeight))`. Two examples
    /// of a class give two near-equal leave-one-out distances, so mean + k * std would accept only
    /// what lies closer than they lie to each other: about half of new performances. Chosen on
    /// spotting-replay tuning seeds of gesture sets cut to 5 and 6 examples per class (docs/measurement-log.md).
    public mutating func widenFewSpreads(counts: [Int]) {
        precondition(counts.count == means.values.count)
        stds = PackedFloats(stds.values.indices.map { c in
            let n = Float(counts[c]), m = means.values[c], s = stds.values[c]
            guard n > 0, counts[c] <= Self.fewDistances, m.isFinite, m < .greatestFiniteMagnitude / 4 else { return s }
            let prior = Self.priorSpread * m
            return ((n * s * s + Self.priorWeight * prior * prior) / (n + Self.priorWeight)).squareRoot()
        })
    }

    /// Classes fitted on this many distances or fewer have their spread widened. 3 and 4 gave the
    /// same on the cut sets; 4 gained 5 of 2790 on the full sets' tuning replay (UWave's calibration
    /// streams three or four examples per class). Widening every class cost BasicMotions (seven
    /// training examples per class; its repeats 12 -> 34).
    public static let fewDistances = 4
    /// The spread assumed before any distance is seen, as a fraction of the class's mean: well-sampled
    /// classes of the data sets here show 0.1 to 0.85. Tuning seeds (sets cut to 5 and 6 per class,
    /// 5040 gestures): off 3825; at most 3 distances, 0.6 / 0.8 / 1: 4024 / 4051 / 4066; at most 4,
    /// 1 / 1.5 / 2: 4066 / 4074 / 4079 (1 is the knee).
    public static let priorSpread: Float = 1
    /// How many distances the prior weighs (every class widened, spotting thresholds only, spread
    /// 0.6: weight 2 / 4 gave 3926 / 3934; at most 3 distances: 4 / 8 gave 3934 / 3940).
    public static let priorWeight: Float = 4

    /// The acceptance threshold of each class (infinite when rejection is off).
    public var thresholds: [Float] {
        guard let k else { return [Float](repeating: .infinity, count: means.values.count) }
        return zip(means.values, stds.values).map { $0 + k * $1 }
    }

    /// Whether a match of class `c` at `distance` is rejected.
    @inlinable
    public func rejects(classIndex c: Int, distance: Float) -> Bool {
        guard let k else { return false }
        return distance > means.values[c] + k * stds.values[c]
    }

    /// Throws unless there is one finite mean and standard deviation per class.
    public func validate(classCount: Int) throws {
        try means.check("nullRejection.means", count: classCount)
        try stds.check("nullRejection.stds", count: classCount)
        if let k, !k.isFinite { throw GestureKitError("k is not finite", field: "nullRejection.k") }
    }
}
