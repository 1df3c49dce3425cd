import Foundation

/// Spots a DTW pipeline's gestures in a stream with one scored decoder: an online segmental
/// (semi-Markov) Viterbi over the candidates SPRING proposes.
///
/// At every frame each template's cheapest subsequence match ending there (SPRING, Sakurai et al.
/// 2007) is a candidate segment. A segment named `c` gains its log-odds of being a gesture of `c`
/// rather than anything else (``SegmentalModel``, learned at training from true matches, still
/// frames, other classes' gestures and negative recordings), counted per typical performance of
/// `c` it spans (`n / typical` times, at most once), less one insertion penalty; a frame outside
/// every segment gains nothing. Counting the evidence by extent keeps a gesture from being cut into
/// shorter segments that each gain as much as the whole (periodic activities were reported several
/// times over); counting it at most once keeps two gestures from merging into one long segment.
/// The decoder keeps, for every frame, the best total over all ways to cut the stream so far into
/// non-overlapping segments and background (`best[t] = max(best[t-1], best[s-1] + gain)`). A
/// segment is reported once every path still alive agrees on it: the best cut ending now, and every
/// cut a live SPRING path would extend while that path could still beat the best cut now (the most
/// its class can gain at the cost it has already run up, added to the best cut before it began).
/// Waiting for that can take about a typical performance, so a segment on the best cut is also
/// final a quarter of a typical performance of its class after its end (a fixed lag,
/// ``lagFraction``), but no sooner than a typical performance after its start: a short segment may
/// be the first part of a gesture a live path is still matching, and the window that starts with it
/// (``WholeNaming``) is whole only then. So a gesture is reported once,
/// shortly after it ends, and everything between gestures that no class explains better than the
/// background is silent.
///
/// A report names the class of the template that matched; its confidence is the segment's
/// probability of being that gesture.
struct SegmentalSpotter: Spotter {
    let model: SegmentalModel
    let lengths: [Int]
    let labels: [Int]
    let channels: Int
    /// What a report costs, in log-odds: a segment is worth reporting only above it.
    let penalty: Float
    var columns: SpringColumns
    /// Frames of history kept: the longest plausible match plus one.
    let span: Int
    var frame = 0
    // Per frame, in rings of `span` frames: best total, newest segment on that best cut, movement so far.
    var total: [Double]
    var newest: [Int]
    var moved: [Double]
    /// The last `span` frames: the previous one for the movement, and the frames since a report
    /// to rebuild the columns from.
    var history: [Float]
    // Segments, by increasing id, in a ring of `pool` entries.
    let pool: Int
    var nodeCount = 0
    var segClass: [Int], segStart: [Int], segEnd: [Int], segParent: [Int], segOdds: [Float]
    /// The last segment reported (-1: none); nothing may overlap it any more.
    var reported = -1
    var committedEnd = -1
    var ready: [Int] = []
    var scratch: [Int] = []
    /// Per class, the cost at which a path can no longer gain anything: the most its class's
    /// log-odds can reach there is the penalty.
    let reachable: [Float]
    /// Per class, the frames after a segment's end at which the best cut's choice is final.
    let lag: [Int]
    /// Per class, a typical performance in frames: a segment is final by the lag no sooner than
    /// that long after its start.
    let typical: [Int]
    /// Per class, its shortest template in frames (a window of the unlearned check).
    let shortest: [Int]
    /// With it, a segment is reported only if its gain plus the weighted ratio stays positive.
    let unlearned: UnlearnedCheck?
    // The check's scratch, allocated once: the segment, resampled, and its features.
    var segmentFrames: [Float], resampledFrames: [Float], segmentFeatures: [Float]
    /// With it, a segment is named by the whole window around it.
    let naming: WholeNaming?

    init(model m: DTWClassifier.Model, segmental: SegmentalModel, penalty: Float, naming: WholeNaming? = nil) {
        model = segmental
        unlearned = m.unlearned
        self.naming = naming
        lengths = m.lengths
        labels = m.labels
        channels = m.channels
        self.penalty = penalty
        columns = SpringColumns(channels: m.channels, templates: m.templates, lengths: m.lengths, offsets: m.offsets)
        span = SpringColumns.maxWarp * (m.lengths.max() ?? 1) + 2
        total = [Double](repeating: 0, count: span)
        newest = [Int](repeating: -1, count: span)
        moved = [Double](repeating: 0, count: span)
        history = [Float](repeating: 0, count: span * m.channels)
        segmentFrames = [Float](repeating: 0, count: m.unlearned == nil ? 0 : span * m.channels)
        resampledFrames = [Float](repeating: 0, count: (m.unlearned?.length ?? 0) * m.channels)
        segmentFeatures = [Float](repeating: 0, count: m.unlearned?.featureCount ?? 0)
        reachable = segmental.costMean.indices.map { c in
            let w0 = segmental.weights[0], w1 = segmental.weights[1]
            guard w1 < 0 else { return w0 > penalty ? .infinity : 0 }
            return exp(segmental.costMean[c] + (w0 - penalty) * segmental.costSpread[c] / -w1)
        }
        lag = segmental.typicalLength.map { Int(Self.lagFraction * $0) }
        typical = segmental.typicalLength.map { Int($0) }
        shortest = Self.shortest(m, segmental)
        pool = 4 * span + 16
        segClass = [Int](repeating: 0, count: pool)
        segStart = segClass; segEnd = segClass; segParent = segClass
        segOdds = [Float](repeating: 0, count: pool)
        ready.reserveCapacity(pool)
        scratch.reserveCapacity(Self.liveCuts + 1)
    }

    mutating func reset() {
        columns.reset()
        frame = 0
        nodeCount = 0
        reported = -1
        committedEnd = -1
        ready.removeAll(keepingCapacity: true)
        for i in 0..<span { total[i] = 0; newest[i] = -1; moved[i] = 0 }
    }

    @inline(__always) func ring(_ t: Int) -> Int { t % span }

    mutating func push(_ x: UnsafeBufferPointer<Float>) -> SpotMatch? {
        precondition(x.count == channels, "SegmentalSpotter: frame of \(x.count) values, trained on \(channels) channels")
        let t = frame
        frame += 1
        let r = ring(t)
        var change = 0.0
        if t > 0 { let p = ring(t - 1) * channels; for k in 0..<channels { change += Double(abs(x[k] - history[p + k])) } }
        moved[r] = (t > 0 ? moved[ring(t - 1)] : 0) + change
        for k in 0..<channels { history[r * channels + k] = x[k] }
        columns.step(x, frame: t)

        extend(t)
        settle(t)
        return nextReady()
    }

    /// `best[t]`: background from `t - 1`, or the best segment ending at `t` that starts after the
    /// last report.
    private mutating func extend(_ t: Int) {
        let r = ring(t)
        var best = t > 0 ? total[ring(t - 1)] : 0
        var bestNode = t > 0 ? newest[ring(t - 1)] : -1
        var chosen: (k: Int, start: Int, odds: Float)? = nil
        for k in lengths.indices {
            let (d, s) = columns.whole(k)
            let n = t - s + 1
            guard d.isFinite, s > committedEnd, n < span - 1, plausibleLength(n, template: lengths[k]) else { continue }
            let c = labels[k]
            guard d < reachable[c] else { continue }
            let extent = min(Float(n) / model.typicalLength[c], 1)
            guard extent * model.bound(c, cost: d) > penalty else { continue }
            let v = n > 1 ? Float((moved[r] - moved[ring(s)]) / Double(n - 1)) : 0
            let odds = model.logOdds(c, cost: d, length: n, movement: v)
            let gain = extent * odds - penalty
            guard gain > 0 else { continue }
            let before = s > 0 ? total[ring(s - 1)] : 0
            if before + Double(gain) > best {
                best = before + Double(gain)
                chosen = (k, s, odds)
            }
        }
        if let (k, s, odds) = chosen {
            let id = nodeCount
            nodeCount += 1
            let i = id % pool
            let parent = s > 0 ? newest[ring(s - 1)] : -1
            segClass[i] = labels[k]; segStart[i] = s; segEnd[i] = t; segOdds[i] = odds
            segParent[i] = parent
            bestNode = id
        }
        total[r] = best
        newest[r] = bestNode
    }

    mutating func flush() -> [SpotMatch] {
        guard frame > 0 else { return [] }
        // Each commit rebuilds the cuts after it, which may hold a segment more.
        while newest[ring(frame - 1)] > reported { commit(through: newest[ring(frame - 1)]) }
        var out: [SpotMatch] = []
        while let m = nextReady() { out.append(m) }
        return out
    }

    /// Reports the segments every live path agrees on: the common ancestor of the newest segment on
    /// the best cut now and on every cut a live SPRING path could still extend.
    private mutating func settle(_ t: Int) {
        // Every cut holds only reported segments until a newer one is found: nothing to agree on.
        guard nodeCount - 1 > reported else { return }
        let now = total[ring(t)]
        // The oldest start among the live paths that could still beat the best cut now; every
        // cut from a frame before it on is taken as alive (a superset of the live ones: a report
        // may wait a little longer, never come wrong). Cheap tests first: a path at or above its
        // class's reach can gain nothing whatever cut it extends.
        var oldest = t + 1
        columns.distances.withUnsafeBufferPointer { d in
            columns.starts.withUnsafeBufferPointer { st in
                for k in lengths.indices {
                    let c = labels[k], earliest = max(t + 2 - SpringColumns.maxWarp * lengths[k], committedEnd + 1)
                    let reach = reachable[c]
                    var at = columns.cell(k, 0)
                    for _ in 0..<lengths[k] {
                        let dist = d[at]
                        if dist < reach {
                            let s = columns.base + Int(st[at])
                            // Alive only while it could still beat the best cut now: the cuts
                            // after its end are open to both, so one it cannot beat here it never will.
                            if s < oldest, s >= earliest,
                               (s > 0 ? total[ring(s - 1)] : 0) + Double(model.bound(c, cost: dist, lengthSoFar: t - s + 1) - penalty) > now {
                                oldest = s
                            }
                        }
                        at += 8
                    }
                }
            }
        }
        scratch.removeAll(keepingCapacity: true)
        var previous = Int.min
        for y in max(oldest - 1, 0, t - span + 2)...t {
            let id = newest[ring(y)]
            if id != previous, !scratch.contains(id) {
                if scratch.count == Self.liveCuts { break }
                scratch.append(id)
            }
            previous = id
        }
        if oldest == 0 { scratch.append(-1) }
        let overflow = scratch.count >= Self.liveCuts
        var agreed: Int
        if overflow {
            agreed = reported
        } else {
            agreed = scratch[0]
            for y in scratch.dropFirst() { agreed = ancestor(agreed, y) }
        }
        // A segment that fell out of the history is final whatever is alive.
        if let old = oldestUnreported(newest[ring(t)]), segEnd[old % pool] <= t - span + 2 { agreed = max(agreed, old) }
        // Fixed lag: a segment on the best cut now that ended a while ago is final whatever is
        // still alive (a live path rarely beats it by then, and waiting for every one to die took
        // about a typical performance).
        var a = newest[ring(t)]
        while a > agreed {
            let i = a % pool, c = segClass[i]
            if max(segEnd[i] + lag[c], segStart[i] + typical[c] - 1) <= t { agreed = a; break }
            a = segParent[i]
        }
        commit(through: agreed)
    }

    /// The oldest segment after the last report on the cut that `id` ends.
    private func oldestUnreported(_ id: Int) -> Int? {
        var a = id, last: Int? = nil
        while a > reported { last = a; a = segParent[a % pool] }
        return last
    }

    /// The newest segment both cuts hold (-1 or the last report when none newer).
    private func ancestor(_ a0: Int, _ b0: Int) -> Int {
        var a = a0, b = b0
        while a > reported, b > reported, a != b {
            if a > b { a = segParent[a % pool] } else { b = segParent[b % pool] }
        }
        return a == b ? a : reported
    }

    /// Queues every unreported segment on `id`'s cut up to `id`, oldest first.
    private mutating func commit(through id: Int) {
        guard id > reported else { return }
        let first = ready.count
        var a = id
        while a > reported { ready.append(a); a = segParent[a % pool] }
        ready[first...].reverse()
        reported = id
        committedEnd = segEnd[id % pool]
        rebuildColumns()
    }

    /// A path through the reported frames can never be a segment now, and while the cells held
    /// one it shadowed every path of the next gesture through the same cell: the columns are
    /// rebuilt as if the stream began just after the report (the frames since, replayed). The best
    /// cuts since are rebuilt with them, from the report: a cut found before it that holds a
    /// segment overlapping the report would otherwise be reported too.
    private mutating func rebuildColumns() {
        let last = frame - 1, first = committedEnd + 1
        guard first <= last, last - first < span else { columns.forget(startingBy: committedEnd - columns.base); return }
        columns.restart(at: first)
        newest[ring(committedEnd)] = reported
        for y in first...last {
            let at = ring(y) * channels
            history.withUnsafeBufferPointer { h in
                columns.step(UnsafeBufferPointer(rebasing: h[at..<(at + channels)]), frame: y)
            }
            extend(y)
        }
    }

    private mutating func nextReady() -> SpotMatch? {
        while !ready.isEmpty {
            let id = ready.removeFirst(), i = id % pool
            if unlearned != nil, !isLearned(i) { continue }
            let c = naming.flatMap { wholeName(i, $0) } ?? segClass[i]
            return report(c, start: segStart[i], end: segEnd[i], odds: segOdds[i])
        }
        return nil
    }

    /// The windows around segment `i` of a typical performance of its class or the segment,
    /// whichever is longer (see ``windows(around:width:frames:)``).
    private func windows(_ i: Int) -> [ClosedRange<Int>] {
        Self.windows(around: segStart[i]...segEnd[i], width: max(typical[segClass[i]], segEnd[i] - segStart[i] + 1),
                     frames: max(frame - span + 1, 0)...(frame - 1))
    }

    /// The windows of `width` frames around a segment: starting with it, centred on it and
    /// ending with it, each moved back to end by the last of `frames` (what is still in the
    /// history) and cut to it; a window equal to one before is left out.
    static func windows(around segment: ClosedRange<Int>, width: Int, frames: ClosedRange<Int>) -> [ClosedRange<Int>] {
        let s = segment.lowerBound, e = segment.upperBound
        var out: [ClosedRange<Int>] = []
        for start in [s, (s + e + 1) / 2 - width / 2, e - width + 1] {
            let b = min(start + width - 1, frames.upperBound)
            let a = max(b - width + 1, frames.lowerBound)
            // A window already listed, or one that has left the history (a report queued long).
            guard a <= b, !out.contains(where: { $0.lowerBound == a }) else { continue }
            out.append(a...b)
        }
        return out
    }

    /// What the unlearned check compares with the training examples for a class-`c` segment: the
    /// segment, the windows around it as long as a typical performance of its class (those the
    /// naming classifies) and as long as its shortest recording. A cut may hold part of a gesture
    /// only, or a quick one with the stillness after it; a gesture of a learned class lies near a
    /// training example in the window that holds it whole.
    static func checkWindows(around segment: ClosedRange<Int>, typical: Int, shortest: Int, frames: ClosedRange<Int>) -> [ClosedRange<Int>] {
        var out = [segment]
        for w in windows(around: segment, width: max(typical, segment.count), frames: frames)
            + windows(around: segment, width: shortest, frames: frames) where !out.contains(w) {
            out.append(w)
        }
        return out
    }

    /// The class the windows around segment `i` name. Runs once per report.
    private func wholeName(_ i: Int, _ naming: WholeNaming) -> Int? {
        naming.name(windows(i).map { w in
            var values = [Float](repeating: 0, count: w.count * channels)
            Self.copy(w, of: history, span: span, channels: channels, into: &values)
            return TimeSeries(values: values, channelCount: channels)
        })
    }

    /// Frames `frames` of the history ring (`span` frames of `channels`), frame-major, into the
    /// start of `out`.
    private static func copy(_ frames: ClosedRange<Int>, of history: [Float], span: Int, channels: Int, into out: inout [Float]) {
        for y in frames { for k in 0..<channels { out[(y - frames.lowerBound) * channels + k] = history[(y % span) * channels + k] } }
    }

    /// Whether segment `i`'s gain stays positive once the unlearned check's ratio, the largest of
    /// its ``checkWindows(around:typical:shortest:frames:)``, is added; a segment no longer in the
    /// history is kept.
    private mutating func isLearned(_ i: Int) -> Bool {
        guard let u = unlearned, frame - segStart[i] <= span else { return true }
        let s = segStart[i], n = segEnd[i] - s + 1, c = segClass[i]
        var ratio = -Float.infinity
        for w in Self.checkWindows(around: s...segEnd[i], typical: typical[c], shortest: shortest[c],
                                   frames: max(frame - span + 1, 0)...(frame - 1)) {
            Self.copy(w, of: history, span: span, channels: channels, into: &segmentFrames)
            let r = segmentFrames.withUnsafeBufferPointer { f in
                resampledFrames.withUnsafeMutableBufferPointer { r in
                    segmentFeatures.withUnsafeMutableBufferPointer { x in u.ratio(f, frames: w.count, resampled: r, features: x) }
                }
            }
            ratio = max(ratio, r)
        }
        let gain = min(Float(n) / model.typicalLength[c], 1) * segOdds[i] - penalty
        return gain + UnlearnedCheck.weight * ratio >= 0
    }

    /// A segment as a report, named by the class whose template matched it: on the tuning split
    /// that named more gestures rightly than the whole-example classifier on the segment's frames
    /// (UWave 37 against 33 of 48, RacketSports 19 against 14 of 24).
    private func report(_ c: Int, start: Int, end: Int, odds: Float) -> SpotMatch {
        let confidence = 1 / (1 + exp(-odds))
        var scores = [Float](repeating: 0, count: model.costMean.count)
        scores[c] = confidence
        return SpotMatch(prediction: Prediction(classIndex: c, confidence: confidence, scores: scores), start: start, end: end)
    }
}

extension SegmentalSpotter {
    /// Per class, its shortest template in frames (a typical performance for a class with none).
    static func shortest(_ m: DTWClassifier.Model, _ segmental: SegmentalModel) -> [Int] {
        segmental.typicalLength.indices.map { c in
            m.lengths.indices.filter { m.labels[$0] == c }.map { m.lengths[$0] }.min() ?? Int(segmental.typicalLength[c])
        }
    }

    /// The insertion penalty when the pipeline sets none (log-odds per typical performance; 0
    /// reports a segment more likely a gesture than not, on training's balance of true and false
    /// matches), with the unlearned check (`checked`) and without it. Both chosen on the spotting
    /// suite's tuning split. Without the check: 1 / 2 / 3 gave 95 / 87 / 67 of 120 gestures amid
    /// everyday motion at 0.27 / 0.08 / 0 false reports a minute, 449 / 390 / 287 of 504 between held
    /// still frames, 100 / 77 / 48 of 120 back to back (two seeds; on five, 0.5 reported 70 and 103 of
    /// 120 and 151 unlearned UWave and RacketSports gestures amid motion, more than half). With it:
    /// 0.35 / 0.5 / 0.75 found 259 / 259 / 251 of 300 amid motion, 1162 / 1144 / 1123 of 1260 held
    /// still, and rejected 216 / 233 / 259 of RacketSports' 453 unlearned strokes between held
    /// frames (at most half reported from 0.5 up).
    static func defaultPenalty(checked: Bool) -> Float { checked ? 0.5 : 1 }

    /// How long after its end, in typical performances of its class, a segment on the best cut is
    /// reported even while a path that could still beat it is alive. Chosen on the spotting suite's
    /// tuning split: without it / 1 / 0.5 / 0.25 / 0.1 / 0 found 93 / 92 / 92 / 92 / 86 / 75 of 120
    /// gestures amid everyday motion, 444 / 443 / 443 / 441 / 421 / 400 of 504 between held still
    /// frames and 100 / 93 / 91 / 94 / 88 / 72 of 120 back to back; at 0.25 the median report amid
    /// motion came 0.7 s after the gesture's end on UWave (2.3 s without) and 3.2 s on Epilepsy (12.6 s).
    static let lagFraction: Float = 0.25

    /// Distinct cuts the agreement check follows at most; beyond them a report waits for the lag
    /// (a fixed bound, so the exported C decides the same and nothing is allocated per frame).
    static let liveCuts = 64
}

