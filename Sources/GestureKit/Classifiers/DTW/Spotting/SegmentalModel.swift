import Foundation

/// What the segmental spotting decoder (the segmental decoder) learned at training: how likely a
/// subsequence match is to be a gesture of its class rather than anything else.
///
/// A candidate is a SPRING match of a class-`c` template: its cost `d`, its length `n` and the
/// movement of its frames `v`. Four features describe it on class `c`'s own scale:
/// 1. the cost against the class's true matches, `(log d - costMean[c]) / costSpread[c]`;
/// 2. the length against a typical performance, `|log(n / typicalLength[c])|`;
/// 3. the movement against the class's templates, `|log((v + e) / (motion[c] + e))|`, with `v` the
///    candidate's movement spread over a typical performance (`V / (typicalLength[c] - 1)`, `V`
///    summed over its frames: a gesture performed faster moves as far in fewer frames, and half a
///    periodic activity moves half as far) and `e` a hundredth of the templates' mean movement;
/// and a constant. One logistic model over them (``weights``, shared by every class, plus one
/// offset per class) gives the log-odds that a candidate is its class's gesture. A class whose
/// matches on everything else come close to its true ones gets a lower offset, so it must match
/// more closely to be reported; the offset is kept in ``costMean`` (see `fold(offsets:)`).
/// It is fitted at training on:
/// - true matches: each training example between its own first and last frame held, against the
///   templates of its class that are not itself (leave-one-out);
/// - false matches: each class's cheapest matches on held frames, on fragments of its own gestures
///   (less than half of one), on other classes' gestures
///   (what a gesture of a class never learned looks like to it), and on negative recordings
///   (everyday motion with no gesture), one per stretch of a typical performance.
/// The cost and movement weights are kept at or below zero, so a cheaper match or one closer to
/// its class never scores lower; that bound is what lets the decoder report a gesture as soon as
/// no path still alive could beat it.
public struct SegmentalModel: Sendable, Hashable, Codable {
    /// Per class, the mean log cost of its true matches, moved by the class's learned offset
    /// (`offset * costSpread / -weights[1]`; files saved before the offsets hold the plain mean).
    public var costMean: [Float]
    /// Per class, the spread of its log true-match costs, drawn toward the spread pooled over
    /// classes as if that were two more of its matches (a class with few matches borrows it).
    public var costSpread: [Float]
    /// Per class, its median template length.
    public var typicalLength: [Float]
    /// Per class, the mean movement per frame of its templates (summed absolute first differences).
    public var motion: [Float]
    /// Logistic weights: constant, cost, length, movement.
    public var weights: [Float]
    /// True and false matches the weights were fitted on (for `gesture info` and tests).
    public var samples: [Int]
    /// Whether the movement feature is the candidate's movement spread over a typical performance
    /// (`true`, what training learns) or its movement per frame (`nil`: files saved before
    /// 2026-11-29, sixth session, whose weights were fitted on that).
    public var movementPerPerformance: Bool? = nil

    /// Log-odds that a class-`c` candidate of cost `d`, `n` frames, moving `v` per frame, is a gesture of `c`.
    @inline(__always)
    func logOdds(_ c: Int, cost d: Float, length n: Int, movement v: Float) -> Float {
        let f = features(c, cost: d, length: n, movement: v)
        return weights[0] + weights[1] * f.0 + weights[2] * f.1 + weights[3] * f.2
    }

    /// The most log-odds any candidate of class `c` whose cost is at least `d` can reach.
    @inline(__always)
    func bound(_ c: Int, cost d: Float) -> Float {
        weights[0] + weights[1] * (log(max(d, Self.tiny)) - costMean[c]) / costSpread[c]
    }

    /// The most log-odds a live path of class `c` can still reach: its cost and its length only
    /// grow, so a path already longer than a typical performance can only lose more by length.
    @inline(__always)
    func bound(_ c: Int, cost d: Float, lengthSoFar n: Int) -> Float {
        bound(c, cost: d) + weights[2] * max(log(Float(n) / typicalLength[c]), 0)
    }

    @inline(__always)
    func features(_ c: Int, cost d: Float, length n: Int, movement v: Float) -> (Float, Float, Float) {
        let e = motionFloor
        let spread = movementPerPerformance == true ? v * Float(max(n - 1, 0)) / max(typicalLength[c] - 1, 1) : v
        return ((log(max(d, Self.tiny)) - costMean[c]) / costSpread[c],
                abs(log(Float(n) / typicalLength[c])),
                abs(log((spread + e) / (motion[c] + e))))
    }

    var motionFloor: Float { max(motion.reduce(0, +) / Float(max(motion.count, 1)) * 0.01, Self.tiny) }

    static let tiny: Float = 1e-12

    func validate(classCount: Int) throws {
        guard costMean.count == classCount, typicalLength.count == classCount, motion.count == classCount, weights.count == 4 else {
            throw GestureKitError("segmental spotting model sized for another class count", field: "trained.segmental")
        }
        guard costSpread.count == classCount,
              (costMean + typicalLength + motion + weights + costSpread).allSatisfy(\.isFinite), costSpread.allSatisfy({ $0 > 0 }),
              typicalLength.allSatisfy({ $0 > 0 }) else {
            throw GestureKitError("segmental spotting model holds a non-finite or non-positive value", field: "trained.segmental")
        }
    }
}

extension SegmentalModel {
    /// Frames of still context after each example in a calibration stream: long enough to hold a
    /// whole match of the longest template at the fastest plausible speed (see
    /// ``SpringColumns/maxWarp``), so every still-only match the spotter could report is seen.
    static func context(_ model: DTWClassifier.Model) -> Int {
        (model.maxLength + SpringColumns.maxWarp - 1) / SpringColumns.maxWarp + 1
    }
    /// DTW cells (stream frames x template frames) the model's scans may spend; beyond it
    /// fewer examples per class are streamed (at least 2 per class).
    static let budget = 3e9

    /// The examples streamed at training, in order (each after its predecessor, the first after
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

    /// One match seen at training: its class, features and whether it was its class's gesture.
    struct Sample {
        var c: Int; var cost: Float; var length: Int; var movement: Float; var positive: Bool
        /// A true match's example and the stream frame it starts at (see ``truePositives``).
        var example: Int? = nil; var start = 0
    }

    /// Learns the model from `examples` (as the classifier was trained on them) against `model`'s
    /// templates, and from `negatives` (recordings with no gesture in them).
    /// - Parameter templateOf: the template each example became, if any (left out of its own stream).
    static func learn(_ model: DTWClassifier.Model, examples: [TimeSeries], labels: [Int], templateOf: [Int?],
                      negatives: [TimeSeries]) -> SegmentalModel? {
        learnWithCuts(model, examples: examples, labels: labels, templateOf: templateOf, negatives: negatives)?.model
    }

    /// ``learn(_:examples:labels:templateOf:negatives:)``, with the cut of each example's true match:
    /// the frames of its stream (``context(_:)`` copies of its first frame, the example, as many of
    /// its last) the decoder's best candidate spans, by example (those within the cell budget).
    static func learnWithCuts(_ model: DTWClassifier.Model, examples: [TimeSeries], labels: [Int], templateOf: [Int?],
                              negatives: [TimeSeries]) -> (model: SegmentalModel, cuts: [Int: ClosedRange<Int>])? {
        let classCount = model.classes.count, c = model.channels
        guard classCount > 0, !model.lengths.isEmpty else { return nil }
        let typical = (0..<classCount).map { cls -> Float in
            let own = model.lengths.indices.filter { model.labels[$0] == cls }.map { model.lengths[$0] }.sorted()
            return Float(own.isEmpty ? (model.lengths.sorted()[model.lengths.count / 2]) : own[own.count / 2])
        }
        let motion = (0..<classCount).map { cls -> Float in
            let own = model.lengths.indices.filter { model.labels[$0] == cls }
            guard !own.isEmpty else { return 0 }
            return own.map { k -> Float in
                let n = model.lengths[k], at = model.offsets[k]
                guard n > 1 else { return 0 }
                var s: Float = 0
                for ch in 0..<c { for i in 1..<n { s += abs(model.templates[at + ch * n + i] - model.templates[at + ch * n + i - 1]) } }
                return s / Float(n - 1)
            }.reduce(0, +) / Float(own.count)
        }
        var scan = CandidateScan(model, typical: typical)
        var samples: [Sample] = []
        // Streams of neighbours of other classes, each followed by its last frame held.
        let context = Self.context(model)
        let totalLength = model.lengths.reduce(0, +)
        let order = Self.streamOrder(model, examples: examples, labels: labels)
        for (a, i) in order.enumerated() {
            let j = order[(a + order.count - 1) % order.count]
            let parts = (j == i ? [i] : [j, i])
            var stream: [Float] = []
            var spans: [(range: ClosedRange<Int>, label: Int)] = []
            var skip = Set<Int>()
            for p in parts {
                let s = examples[p], n = s.frameCount
                spans.append(((stream.count / c)...(stream.count / c + n - 1), labels[p]))
                stream += s.values
                let last = s.values[((n - 1) * c)..<(n * c)]
                for _ in 0..<context { stream += last }
                if let t = templateOf[p] { skip.insert(t) }
            }
            samples += scan.run(stream, spans: spans, skip: skip)
        }
        let truths = truePositives(model, examples: examples, labels: labels, templateOf: templateOf, context: context)
        samples += truths
        var cuts: [Int: ClosedRange<Int>] = [:]
        for t in truths { if let i = t.example { cuts[i] = t.start...(t.start + t.length - 1) } }
        // Negatives within the same budget of DTW cells.
        let negativeFrames = Int(Self.budget / Double(max(totalLength * c, 1)))
        var used = 0
        for s in negatives where used < negativeFrames {
            let n = min(s.frameCount, negativeFrames - used)
            used += n
            samples += scan.run(Array(s.values[0..<(n * c)]), spans: [], skip: [])
        }
        var costMean = [Float](repeating: 0, count: classCount)
        var logs = [[Float]](repeating: [], count: classCount)
        for s in samples where s.positive { logs[s.c].append(log(max(s.cost, tiny))) }
        let pooled = logs.flatMap { $0 }
        guard !pooled.isEmpty else { return nil }
        let pooledMean = pooled.reduce(0, +) / Float(pooled.count)
        var squares = [Float](repeating: 0, count: classCount), n: Float = 0
        for cls in 0..<classCount {
            costMean[cls] = logs[cls].isEmpty ? pooledMean : logs[cls].reduce(0, +) / Float(logs[cls].count)
            for v in logs[cls] { squares[cls] += (v - costMean[cls]) * (v - costMean[cls]); n += 1 }
        }
        let pooledVariance = squares.reduce(0, +) / max(n - Float(classCount), 1)
        let spread = (0..<classCount).map { cls in
            max(((squares[cls] + 2 * pooledVariance) / (Float(max(logs[cls].count - 1, 0)) + 2)).squareRoot(), 0.05)
        }
        let positives = samples.filter(\.positive).count
        var m = SegmentalModel(costMean: costMean, costSpread: spread, typicalLength: typical, motion: motion,
                               weights: [0, -1, 0, 0], samples: [positives, samples.count - positives],
                               movementPerPerformance: true)
        let fitted = fitWeights(offsetRidge: 1 / Double(2 * max(positives, 1)), samples.map { s in
            let f = m.features(s.c, cost: s.cost, length: s.length, movement: s.movement)
            var x: [Float] = [1, f.0, f.1, f.2] + [Float](repeating: 0, count: classCount)
            x[4 + s.c] = 1
            return (x, s.positive)
        })
        m.weights = Array(fitted[0..<4])
        m.fold(offsets: Array(fitted[4...]))
        return (m, cuts)
    }

    /// Adds `offsets[c]` to class `c`'s log-odds by moving its cost centre (`costMean`), so the
    /// decoder's bound, the file format and the exported C stay as they are. With the cost weight
    /// pinned at zero there is no cost scale to move them into, and the shared constant stays.
    mutating func fold(offsets: [Float]) {
        guard weights[1] < 0 else { return }
        for c in costMean.indices { costMean[c] += offsets[c] * costSpread[c] / -weights[1] }
    }

    /// Each example's true match: the example between its own first and last frame held, matched by
    /// the other templates of its class only (leave-one-out), so that every example within the
    /// budget of DTW cells gives one, not only those the mixed calibration streams can afford.
    static func truePositives(_ model: DTWClassifier.Model, examples: [TimeSeries], labels: [Int], templateOf: [Int?],
                              context: Int) -> [Sample] {
        let c = model.channels
        var out: [Sample] = []
        for cls in model.classes.indices {
            let own = model.lengths.indices.filter { model.labels[$0] == cls }
            let members = labels.indices.filter { labels[$0] == cls }
            guard !own.isEmpty, !members.isEmpty else { continue }
            var templates: [Float] = [], offsets: [Int] = [], lengths: [Int] = []
            for k in own {
                offsets.append(templates.count)
                lengths.append(model.lengths[k])
                templates += model.templates[model.offsets[k]..<(model.offsets[k] + model.lengths[k] * c)]
            }
            var columns = SpringColumns(channels: c, templates: templates, lengths: lengths, offsets: offsets)
            let meanLength = members.reduce(0) { $0 + examples[$1].frameCount } / members.count
            let perExample = Double(meanLength + 2 * context) * Double(lengths.reduce(0, +) * c)
            let quota = max(2, Int(Self.budget / Double(model.classes.count) / max(perExample, 1)))
            let q = min(quota, members.count)
            for i in (0..<q).map({ members[$0 * members.count / q] }) {
                let e = examples[i], n = e.frameCount
                guard n > 0 else { continue }
                let skip = templateOf[i].flatMap { own.firstIndex(of: $0) }
                var stream: [Float] = []
                for _ in 0..<context { stream += e.values[0..<c] }
                stream += e.values
                for _ in 0..<context { stream += e.values[((n - 1) * c)..<(n * c)] }
                let span = context...(context + n - 1), frames = stream.count / c
                var moved = [Float](repeating: 0, count: frames + 1)
                for t in 1..<frames {
                    var m: Float = 0
                    for k in 0..<c { m += abs(stream[t * c + k] - stream[(t - 1) * c + k]) }
                    moved[t + 1] = moved[t] + m
                }
                var best: Sample? = nil
                columns.reset()
                stream.withUnsafeBufferPointer { sp in
                    for t in 0..<frames {
                        columns.step(UnsafeBufferPointer(rebasing: sp[(t * c)..<((t + 1) * c)]), frame: t)
                        for j in lengths.indices where j != skip {
                            let (d, start) = columns.whole(j)
                            let len = t - start + 1
                            guard d.isFinite, d < (best?.cost ?? .infinity), plausibleLength(len, template: lengths[j]) else { continue }
                            let o = span.overlapCount(start, t)
                            guard 2 * o >= len, 2 * o >= n else { continue }
                            let v = len > 1 ? (moved[t + 1] - moved[start + 1]) / Float(len - 1) : 0
                            best = Sample(c: cls, cost: d, length: len, movement: v, positive: true, example: i, start: start)
                        }
                    }
                }
                if let best { out.append(best) }
            }
        }
        return out
    }

    /// Logistic regression by Newton's method, positives and negatives weighted to equal totals,
    /// with a small ridge; weights 1-3 kept at or below zero (a feature pinned at zero is refitted
    /// without it). Columns past the fourth (the class indicators) carry `offsetRidge` instead: on
    /// this likelihood, where the positives weigh one half in all, `1 / (2 * positives)` is a
    /// standard normal prior on each offset, so a class with few examples keeps near the shared constant.
    static func fitWeights(offsetRidge: Double = 1e-3, _ data: [([Float], Bool)]) -> [Float] {
        let d = data.first?.0.count ?? 4
        let pos = Double(data.filter(\.1).count), neg = Double(data.count) - pos
        guard pos > 0, neg > 0 else { return [0, -1, 0, 0] + [Float](repeating: 0, count: max(d - 4, 0)) }
        var w = [Double](repeating: 0, count: d)
        var pinned = Set<Int>()
        for _ in 0..<8 {
            for _ in 0..<50 {
                var g = [Double](repeating: 0, count: d), h = [Double](repeating: 0, count: d * d)
                for (x, y) in data {
                    let weight = y ? 0.5 / pos : 0.5 / neg
                    var z = 0.0
                    for j in 0..<d { z += w[j] * Double(x[j]) }
                    let p = 1 / (1 + exp(-z))
                    let r = (y ? 1 : 0) - p
                    for j in 0..<d {
                        g[j] += weight * r * Double(x[j])
                        for k in 0..<d { h[j * d + k] += weight * p * (1 - p) * Double(x[j]) * Double(x[k]) }
                    }
                }
                for j in 0..<d {
                    let ridge = j < 4 ? 1e-3 : offsetRidge
                    g[j] -= ridge * w[j]; h[j * d + j] += ridge
                }
                for j in pinned { g[j] = 0; for k in 0..<d { h[j * d + k] = 0; h[k * d + j] = 0 }; h[j * d + j] = 1 }
                guard let step = solve(h, g, d) else { break }
                for j in 0..<d { w[j] += step[j] }
                if step.map(abs).max()! < 1e-8 { break }
            }
            let wrong = (1..<min(d, 4)).filter { w[$0] > 0 && !pinned.contains($0) }
            if wrong.isEmpty { break }
            for j in wrong { pinned.insert(j); w[j] = 0 }
        }
        return w.map { Float($0) }
    }

    /// Solves `h x = g` (d by d) by Gaussian elimination with partial pivoting.
    static func solve(_ h: [Double], _ g: [Double], _ d: Int) -> [Double]? {
        var a = h, b = g
        for col in 0..<d {
            let p = (col..<d).max { abs(a[$0 * d + col]) < abs(a[$1 * d + col]) }!
            guard abs(a[p * d + col]) > 1e-15 else { return nil }
            if p != col {
                for k in 0..<d { a.swapAt(p * d + k, col * d + k) }
                b.swapAt(p, col)
            }
            for r in (col + 1)..<d {
                let f = a[r * d + col] / a[col * d + col]
                for k in col..<d { a[r * d + k] -= f * a[col * d + k] }
                b[r] -= f * b[col]
            }
        }
        var x = [Double](repeating: 0, count: d)
        for r in stride(from: d - 1, through: 0, by: -1) {
            var s = b[r]
            for k in (r + 1)..<d { s -= a[r * d + k] * x[k] }
            x[r] = s / a[r * d + r]
        }
        return x
    }
}

/// Subsequence DTW of every template over a training stream, keeping per class its candidates as
/// the decoder sees them: one cheapest per class per end frame.
struct CandidateScan {
    let model: DTWClassifier.Model
    let typical: [Float]
    var columns: SpringColumns

    init(_ model: DTWClassifier.Model, typical: [Float]) {
        self.model = model
        self.typical = typical
        columns = SpringColumns(channels: model.channels, templates: model.templates, lengths: model.lengths,
                                offsets: model.offsets)
    }

    /// The false matches of one stream: per class, the cheapest match in each stretch of a typical
    /// performance that is not one of the class's gestures in `spans` (true matches come from
    /// `SegmentalModel.truePositives`).
    mutating func run(_ stream: [Float], spans: [(range: ClosedRange<Int>, label: Int)], skip: Set<Int>) -> [SegmentalModel.Sample] {
        let c = model.channels, frames = stream.count / c, classCount = model.classes.count
        guard frames > 1 else { return [] }
        var moved = [Float](repeating: 0, count: frames + 1)  // prefix sums of per-frame movement
        for t in 1..<frames {
            var s: Float = 0
            for k in 0..<c { s += abs(stream[t * c + k] - stream[(t - 1) * c + k]) }
            moved[t + 1] = moved[t] + s
        }
        func movement(_ a: Int, _ b: Int) -> Float { b > a ? (moved[b + 1] - moved[a + 1]) / Float(b - a) : 0 }
        var blockBest = [SegmentalModel.Sample?](repeating: nil, count: classCount)
        var blockEnd = typical.map { Int($0) }
        var out: [SegmentalModel.Sample] = []
        columns.reset()
        stream.withUnsafeBufferPointer { sp in
            for t in 0..<frames {
                columns.step(UnsafeBufferPointer(rebasing: sp[(t * c)..<((t + 1) * c)]), frame: t)
                for cls in 0..<classCount where t >= blockEnd[cls] {
                    if let b = blockBest[cls] { out.append(b) }
                    blockBest[cls] = nil
                    blockEnd[cls] = t + max(Int(typical[cls]), 1)
                }
                for k in model.lengths.indices where !skip.contains(k) {
                    let (d, start) = columns.whole(k)
                    let n = t - start + 1
                    guard d.isFinite, plausibleLength(n, template: model.lengths[k]) else { continue }
                    let cls = model.labels[k]
                    // The gesture itself: on its class's span for half the match and half the span.
                    let own = spans.contains {
                        let o = $0.range.overlapCount(start, t)
                        return $0.label == cls && 2 * o >= n && 2 * o >= $0.range.count
                    }
                    if !own, d < (blockBest[cls]?.cost ?? .infinity) {
                        blockBest[cls] = SegmentalModel.Sample(c: cls, cost: d, length: n, movement: movement(start, t), positive: false)
                    }
                }
            }
        }
        for b in blockBest { if let b { out.append(b) } }
        return out
    }
}
