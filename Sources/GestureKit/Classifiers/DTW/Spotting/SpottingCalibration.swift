/// Live spotting thresholds learned from the costs the spotter actually sees: subsequence matches
/// of training examples embedded in a stream, not whole-example distances.
///
/// At training, each calibration example `i` is streamed after a neighbour `j` of another class,
/// each followed by its last frame held (as a user pauses): `j, hold(j), i, hold(i)`. Every
/// template except those of `i` and `j` (leave-one-out) runs over that stream as the live spotter
/// runs it (subsequence DTW, any start). Then, per class `c`:
/// - true costs: the cheapest class-`c` match overlapping an example of class `c`;
/// - false costs: the cheapest class-`c` match that lies only on held frames, or that overlaps an
///   example of another class and beats that example's true cost (it would be reported instead).
///
/// The threshold of class `c` is `mean + k * std` of its true costs (`k` is the pipeline's
/// `nullRejection`, ``defaultK`` when unset; a std from four costs or fewer is first widened, see
/// ``NullRejection/widenFewSpreads(counts:)``), loosened up to `mean + 3k * std` as long as it stays
/// below half the cheapest class-`c` match on other classes' gestures (impostor cost: where classes
/// are far apart, a slow or sloppy performance should still match), and capped just below
/// `falseCosts`: the cheapest match on held frames alone, so a still stretch that fooled the
/// spotter in training is rejected live, and the cheapest match that beat another class's
/// gesture, unless accepting the cheapest few such confusions gains more of the class's own
/// matches than it costs (`confusionCap`): where two classes lie
/// close, one stray confusion no longer rejects most of a class.
public struct SpottingCalibration: Sendable, Hashable {
    /// Mean and standard deviation of each class's leave-one-out subsequence match costs.
    public var means: PackedFloats
    /// Standard deviation of each class's true match costs.
    public var stds: PackedFloats
    /// What each class's threshold stays below: its cheapest false match on held frames, or the
    /// cap chosen among its confusions if lower (`Float.greatestFiniteMagnitude` when none was
    /// seen). In files saved before confusions were weighed, the cheapest false match of either kind.
    public var falseCosts: PackedFloats
    /// Each class's cheapest match on gestures of other classes, whether or not it beat their own
    /// (`Float.greatestFiniteMagnitude` when none was seen); `nil` in files saved before it.
    public var impostorCosts: PackedFloats?

    /// Statistics of a calibration; every parameter is the property of the same name.
    public init(means: PackedFloats, stds: PackedFloats, falseCosts: PackedFloats, impostorCosts: PackedFloats? = nil) {
        self.means = means
        self.stds = stds
        self.falseCosts = falseCosts
        self.impostorCosts = impostorCosts
    }

    /// `k` when the pipeline sets no `nullRejection`. Chosen among 1 to 8 on UWave TRAIN spotting
    /// replays (seeds 0-1), not on the GRT letters; larger k trades misses for wrong labels there.
    public static let defaultK: Float = 3

    /// The acceptance threshold of each class for multiplier `k`.
    public func thresholds(k: Float) -> [Float] {
        (0..<means.values.count).map { c in
            min(Self.uncapped(mean: means.values[c], std: stds.values[c], impostor: impostorCosts?.values[c], k: k),
                falseCosts.values[c].nextDown)
        }
    }

    /// A class's threshold before the false-match cap: mean + k std, loosened toward
    /// mean + loosening * k * std while below ``impostorFraction`` of its impostor cost.
    static func uncapped(mean: Float, std: Float, impostor: Float?, k: Float) -> Float {
        let own = mean + k * std
        guard let impostor else { return own }
        return max(own, min(mean + loosening * k * std, impostorFraction * impostor))
    }

    /// How far a class's threshold may loosen (to mean + loosening * k * std) where other classes'
    /// gestures stay far from its templates. Match costs are heavy-tailed: on the G/R/T letters
    /// mean + 3 std rejected one held-out letter in 12 partitions. Chosen on the tuning seeds
    /// (letters 0-19, UWave 0-1): 2 gave 176 of 180 letters, 3 and 4 gave 178 (was 167); UWave,
    /// RacketSports and Epilepsy unchanged, since their classes sit close.
    static let loosening: Float = 3
    /// The loosened threshold stays below this fraction of the class's cheapest impostor cost.
    /// 0.3 lost one letter on the tuning seeds; 0.5 and 0.7 gave the same.
    static let impostorFraction: Float = 0.5

    func validate(classCount: Int) throws {
        try means.check("trained.spottingMeans", count: classCount)
        try stds.check("trained.spottingStds", count: classCount)
        try falseCosts.check("trained.spottingFalseCosts", count: classCount)
        try impostorCosts?.check("trained.spottingImpostorCosts", count: classCount)
    }

    /// Frames of still context after each example in a calibration stream: long enough to hold a
    /// whole match of the longest template at the fastest plausible speed (see
    /// ``DTWSpotter/maxWarp``), so every still-only match the spotter could report is seen.
    static func context(_ model: DTWClassifier.Model) -> Int {
        (model.maxLength + DTWSpotter.maxWarp - 1) / DTWSpotter.maxWarp + 1
    }
    /// DTW cells (stream frames x template frames) calibration may spend; beyond it fewer
    /// examples per class are streamed (at least 2 per class).
    static let budget = 3e9

    /// The examples streamed at calibration, in order (each after its predecessor, the first after
    /// the last): as many of each class as the cell budget allows, evenly spread over its members,
    /// interleaved so that neighbours differ in class.
    static func streamOrder(_ model: DTWClassifier.Model, examples: [TimeSeries], labels: [Int]) -> [Int] {
        let classCount = model.classes.count
        let totalLength = model.lengths.reduce(0, +)
        let meanLength = examples.reduce(0) { $0 + $1.frameCount } / max(examples.count, 1)
        let perStream = Double(2 * (meanLength + context(model))) * Double(totalLength) * Double(model.channels)
        let streams = max(2 * classCount, Int(budget / max(perStream, 1)))
        let quota = max(2, streams / max(classCount, 1))
        var chosen = [[Int]](repeating: [], count: classCount)
        for cls in 0..<classCount {
            let members = labels.indices.filter { labels[$0] == cls }
            let q = min(quota, members.count)
            chosen[cls] = (0..<q).map { members[$0 * members.count / q] }
        }
        var order: [Int] = []
        for r in 0..<(chosen.map(\.count).max() ?? 0) {
            for cls in 0..<classCount where r < chosen[cls].count { order.append(chosen[cls][r]) }
        }
        return order
    }

    /// Calibrates on `examples` (row-major, as the classifier is trained on them) against the
    /// prepared templates of `model`.
    /// - Parameter templateOf: the template each example became, if any (left out of its own stream).
    /// - Complexity: O(S * L * M * channels), S streams of L frames, M the summed template length;
    ///   S is capped so that the product stays near ``budget``.
    static func calibrate(_ model: DTWClassifier.Model, examples: [TimeSeries], labels: [Int],
                          templateOf: [Int?], k: Float = defaultK) -> SpottingCalibration {
        let classCount = model.classes.count
        let context = Self.context(model)
        let order = streamOrder(model, examples: examples, labels: labels)

        var trueCosts = [[Float]](repeating: [], count: classCount)
        var stillCost = [Float](repeating: .greatestFiniteMagnitude, count: classCount)
        var confusions = [[Float]](repeating: [], count: classCount)
        var impostor = [Float](repeating: .greatestFiniteMagnitude, count: classCount)
        var scan = SpringScan(model)
        for (a, i) in order.enumerated() {
            let j = order[(a + order.count - 1) % order.count]
            let r = scan.run(first: j == i ? nil : (examples[j], labels[j], templateOf[j]),
                             second: (examples[i], labels[i], templateOf[i]), context: context)
            if r.trueSecond.isFinite { trueCosts[labels[i]].append(r.trueSecond) }
            for cls in 0..<classCount {
                stillCost[cls] = min(stillCost[cls], r.stillCosts[cls])
                if r.confusionCosts[cls] < .greatestFiniteMagnitude { confusions[cls].append(r.confusionCosts[cls]) }
                impostor[cls] = min(impostor[cls], r.impostorCosts[cls])
            }
        }
        var rejection = NullRejection(k: nil, classCount: classCount)
        rejection.fitWidening(trueCosts)
        let caps = (0..<classCount).map { cls in
            let own = uncapped(mean: rejection.means.values[cls], std: rejection.stds.values[cls], impostor: impostor[cls], k: k)
            return min(stillCost[cls], confusionCap(own: own, trueCosts: trueCosts[cls], confusions: confusions[cls]))
        }
        return SpottingCalibration(means: rejection.means, stds: rejection.stds, falseCosts: PackedFloats(caps),
                                   impostorCosts: PackedFloats(impostor))
    }

    /// What a class's threshold stays below among the matches that beat another class's gesture
    /// in training: the cheapest one, unless accepting the cheapest few gains more of the class's
    /// own matches (under `own`) than ``confusionWeight`` times their number. One stray
    /// confusion then no longer rejects most of a class whose neighbour is close, while still
    /// stretches stay a hard limit.
    static func confusionCap(own: Float, trueCosts: [Float], confusions: [Float]) -> Float {
        let falses = confusions.sorted(), trues = trueCosts.sorted()
        func accepted(below cap: Float) -> Int {
            let t = min(own, cap.nextDown)
            var n = 0
            while n < trues.count, trues[n] <= t { n += 1 }
            return n
        }
        var best = falses.first ?? .greatestFiniteMagnitude
        var bestGain = Float(accepted(below: best))
        for taken in stride(from: 1, through: falses.count, by: 1) {
            let cap = taken < falses.count ? falses[taken] : .greatestFiniteMagnitude
            let gain = Float(accepted(below: cap)) - confusionWeight * Float(taken)
            if gain > bestGain { (best, bestGain) = (cap, gain) }
        }
        return best
    }

    /// How many of a class's own training matches one accepted confusion must buy (see
    /// ``confusionCap(own:trueCosts:confusions:)``): more than one, the break-even of a right
    /// report against a wrong one. Chosen on the spotting-replay tuning seeds (letters 0-19, the
    /// other sets 0-9 or 0-4, every still kind and back to back, 9090 gestures): infinite (the
    /// cheapest confusion always capped, as before) 4145 reported once rightly, 2 gave 4216, 1 gave
    /// 4238; no false detection in any.
    static let confusionWeight: Float = 1
}

/// Subsequence DTW of every template over a short calibration stream, keeping per class the
/// cheapest true and false matches (see ``SpottingCalibration``).
struct SpringScan {
    let model: DTWClassifier.Model
    var columns: SpringColumns

    init(_ model: DTWClassifier.Model) {
        self.model = model
        columns = SpringColumns(channels: model.channels, templates: model.templates, lengths: model.lengths,
                                offsets: model.offsets)
    }

    struct Result {
        var trueSecond: Float
        /// Per class the cheapest match on held frames only, and the cheapest that beats the true
        /// matches of the gestures it overlaps.
        var stillCosts: [Float]
        var confusionCosts: [Float]
        var impostorCosts: [Float]
    }

    typealias Part = (series: TimeSeries, label: Int, template: Int?)

    /// Streams `first` (optional), its last frame held `context` times, `second`, its last frame held.
    mutating func run(first: Part?, second: Part, context: Int) -> Result {
        let c = model.channels
        var stream: [Float] = []
        var spans: [(range: ClosedRange<Int>, label: Int)] = []
        var skip = Set<Int>()
        for part in [first, second].compactMap({ $0 }) {
            let n = part.series.frameCount
            spans.append(((stream.count / c)...(stream.count / c + n - 1), part.label))
            stream += part.series.values
            let last = part.series.values[((n - 1) * c)..<(n * c)]
            for _ in 0..<context { stream += last }
            if let t = part.template { skip.insert(t) }
        }
        let frames = stream.count / c
        let classCount = model.classes.count
        // Cheapest match per class and per overlap pattern: bit 0 overlaps span 0, bit 1 span 1.
        var cheapest = [Float](repeating: .infinity, count: classCount * 4)
        columns.reset()
        let lengths = model.lengths, labels = model.labels
        stream.withUnsafeBufferPointer { sp in
            for t in 0..<frames {
                columns.step(UnsafeBufferPointer(rebasing: sp[(t * c)..<((t + 1) * c)]), frame: t)
                for k in lengths.indices where !skip.contains(k) {
                    let (whole, start) = columns.whole(k)
                    guard whole.isFinite, plausibleLength(t - start + 1, template: lengths[k]) else { continue }
                    var pattern = 0
                    for (b, span) in spans.enumerated() where start <= span.range.upperBound && t >= span.range.lowerBound {
                        pattern |= 1 << b
                    }
                    let slot = labels[k] * 4 + pattern
                    if whole < cheapest[slot] { cheapest[slot] = whole }
                }
            }
        }
        // Span b's true cost: its own class overlapping it alone.
        var trueCost = [Float](repeating: .infinity, count: spans.count)
        for (b, span) in spans.enumerated() { trueCost[b] = cheapest[span.label * 4 + (1 << b)] }
        var stillCosts = [Float](repeating: .greatestFiniteMagnitude, count: classCount)
        var confusionCosts = stillCosts
        var impostorCosts = stillCosts  // cheapest match lying only on other classes' gestures
        for cls in 0..<classCount {
            stillCosts[cls] = min(stillCosts[cls], cheapest[cls * 4])
            for pattern in 1..<(1 << spans.count) {
                let v = cheapest[cls * 4 + pattern]
                let over = spans.indices.filter { pattern & (1 << $0) != 0 }
                if over.allSatisfy({ spans[$0].label != cls }) { impostorCosts[cls] = min(impostorCosts[cls], v) }
                if over.count == 1, spans[over[0]].label == cls { continue }  // a true match
                // Reported instead of the gestures it overlaps only if it beats their true matches.
                if v < over.map({ trueCost[$0] }).min() ?? .infinity { confusionCosts[cls] = min(confusionCosts[cls], v) }
            }
        }
        return Result(trueSecond: trueCost[spans.count - 1], stillCosts: stillCosts, confusionCosts: confusionCosts,
                      impostorCosts: impostorCosts)
    }
}
