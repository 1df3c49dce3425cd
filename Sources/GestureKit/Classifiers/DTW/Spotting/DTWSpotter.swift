import CGestureKernels

/// A gesture found in a stream by ``DTWSpotter``.
public struct SpotterMatch: Sendable, Hashable {
    /// Index into the classifier's classes.
    public var classIndex: Int
    /// Subsequence DTW distance between the matched stretch of the stream and the best template
    /// (same units as the classifier's distances and thresholds).
    public var distance: Float
    /// First and last stream frame of the match (0-based frame numbers since the last `reset()`,
    /// inclusive).
    public var start: Int
    /// Last frame of the match.
    public var end: Int

    /// A match; every parameter is the property of the same name.
    public init(classIndex: Int, distance: Float, start: Int, end: Int) {
        self.classIndex = classIndex
        self.distance = distance
        self.start = start
        self.end = end
    }

}

/// Finds the trained gestures in an unsegmented stream, one frame at a time: subsequence DTW of every
/// template of a ``DTWClassifier`` against the stream (SPRING, Sakurai et al., ICDE 2007).
///
/// Each template keeps one column of its subsequence-DTW matrix and, per cell, the frame where that
/// cell's best path entered the stream. A path that has matched a whole template with a distance
/// within its class's threshold, at a plausible length (twice as fast or as slow as the template at most, `maxWarp` faster or slower than the
/// template at most), becomes the candidate; the candidate is reported once no conflicting live path
/// (one that started before its last eighth and can still end at a plausible length) can beat it, and
/// conflicting paths are then dropped. So each gesture is reported once, shortly after it ends, and
/// a gesture that follows another without a pause is reported too. A match that starts where the last
/// report ended and lasts with it no longer than 1.25 typical performances is taken as the rest of
/// that gesture and not reported.
///
/// The templates are compared as the classifier stored them, so the classifier must keep the stream's
/// time scale and units: no resampling, no z-normalisation. Whatever the classifier's variant, the
/// spotter aligns all channels on one path (dependent): per-channel paths with their own starts
/// could not be followed one frame at a time at this cost. Thresholds come from
/// ``SpottingCalibration`` (subsequence match costs seen at training).
///
/// ```swift
/// var spotter = try DTWSpotter(classifier: dtw)
/// for frame in stream { if let m = frame.withUnsafeBufferPointer({ spotter.push($0) }) { print(m) } }
/// ```
public struct DTWSpotter: Sendable {
    let channels: Int
    let lengths: [Int]
    let labels: [Int]
    let thresholds: [Float]
    /// Median template length per class: how long one performance of it lasts.
    let typicalLengths: [Int]
    // Per-stream state, sized at init; push never allocates.
    var columns: SpringColumns
    var frame = 0
    var candidate: SpotterMatch?
    /// The last report, stretched over the continuations it absorbed.
    var lastReport: SpotterMatch?

    /// Thresholds are the classifier's ``DTWClassifier/spottingThresholds``: calibrated at training
    /// on subsequence matches, or, for pipelines saved before calibration existed, the whole-example
    /// null-rejection thresholds.
    /// - Throws: ``GestureKitError`` when the classifier is untrained, resamples or z-normalises
    ///   (templates would not be in the stream's time scale and units), or has no
    ///   thresholds (every stretch of the stream would match something).
    public init(classifier: DTWClassifier) throws {
        guard let model = classifier.model else { throw GestureKitError("the DTW classifier is not trained", field: "classifier") }
        guard classifier.resample == nil else {
            throw GestureKitError("spotting needs templates at the stream's rate: train without resampling", field: "resample")
        }
        guard !classifier.zNormalize else {
            throw GestureKitError("spotting compares raw frames: train without z-normalisation", field: "zNormalize")
        }
        guard let live = classifier.spottingThresholds else {
            throw GestureKitError("spotting needs thresholds: retrain (calibrates them) or set nullRejection", field: "nullRejection")
        }
        self.init(channels: model.channels, templates: model.templates, lengths: model.lengths,
                  offsets: model.offsets, labels: model.labels, thresholds: live)
    }

    /// A spotter over prepared channel-major templates (`offsets[k]` is where template `k` starts).
    init(channels: Int, templates: [Float], lengths: [Int], offsets: [Int], labels: [Int], thresholds: [Float]) {
        self.channels = channels
        self.lengths = lengths
        self.labels = labels
        self.thresholds = thresholds
        typicalLengths = (0..<thresholds.count).map { c in
            let own = lengths.indices.filter { labels[$0] == c }.map { lengths[$0] }.sorted()
            return own.isEmpty ? 0 : own[own.count / 2]
        }
        columns = SpringColumns(channels: channels, templates: templates, lengths: lengths, offsets: offsets)
    }

    /// Forgets the stream: frame numbers restart at 0 and no partial match is kept.
    public mutating func reset() {
        columns.reset()
        frame = 0
        candidate = nil
        lastReport = nil
    }

    /// Feeds one frame of `channels` values; returns a match when one has become final.
    /// - Complexity: O(sum of template lengths * channels) per frame (8 templates per step of the
    ///   vector kernel); no allocation.
    public mutating func push(_ x: UnsafeBufferPointer<Float>) -> SpotterMatch? {
        precondition(x.count == channels, "DTWSpotter: frame of \(x.count) values, trained on \(channels) channels")
        let t = frame
        frame += 1
        columns.step(x, frame: t)
        var cand = candidate
        // In pairs, the later template first: the order ties have always been broken in.
        var k = 0
        while k < lengths.count {
            if k + 1 < lengths.count { consider(k + 1, t, &cand) }
            consider(k, t, &cand)
            k += 2
        }
        guard let best = cand else {
            candidate = nil
            return nil
        }
        // Report the candidate once no conflicting live path can beat it, then drop those paths. A
        // path conflicts when it started before the candidate's last eighth (a later start is the
        // next gesture, performed back to back) and can still end at a plausible length (so
        // stillness after a gesture does not hold its report back).
        let mid = Self.conflictEnd(best) - columns.base
        let conflicting = columns.distances.withUnsafeBufferPointer { d in
            columns.starts.withUnsafeBufferPointer { s in
                lengths.indices.contains { k in
                    let earliest = t + 1 - DTWSpotter.maxWarp * lengths[k] - columns.base
                    var at = columns.cell(k, 0)
                    for _ in 0..<lengths[k] {
                        let start = Int(s[at])
                        if d[at] < best.distance && start <= mid && start >= earliest { return true }
                        at += 8
                    }
                    return false
                }
            }
        }
        if conflicting {
            candidate = cand
            return nil
        }
        columns.forget(startingBy: mid)
        return report(best)
    }

    /// Candidate `best` as final: reported, unless it is the rest of the last report.
    private mutating func report(_ best: SpotterMatch) -> SpotterMatch? {
        candidate = nil
        if let last = lastReport, isContinuation(best, of: last) {
            lastReport?.end = best.end
            return nil
        }
        lastReport = best
        return best
    }

    /// The stream has ended: the candidate, which no later frame can beat now (unless it is the rest
    /// of the last report).
    public mutating func flush() -> SpotterMatch? {
        candidate.flatMap { report($0) }
    }

    /// Whether `m` is the rest of the gesture reported as `last` rather than the next one: it starts
    /// within a quarter of a typical performance after `last` ends, and both together last no longer
    /// than ``continuationLength`` typical performances (of the longer of their two classes). Two
    /// gestures back to back last about two performances, so both are reported.
    func isContinuation(_ m: SpotterMatch, of last: SpotterMatch) -> Bool {
        let typical = max(typicalLengths[m.classIndex], typicalLengths[last.classIndex])
        return m.start - last.end <= typical / 4
            && Float(m.end - last.start + 1) <= Self.continuationLength * Float(typical)
    }

    /// The last frame where a path must start to conflict with candidate `m`: paths that start in
    /// its last eighth are taken as the next gesture, performed without a pause (a shared boundary
    /// frame or two). Half was tried: second-half fragments of one gesture were then reported too.
    @inline(__always)
    static func conflictEnd(_ m: SpotterMatch) -> Int { m.end - (m.end - m.start) / 8 }

    /// Takes template `k`'s whole-template distance at frame `t` as the candidate when it is within
    /// its class's threshold and better than the candidate so far.
    @inline(__always)
    private func consider(_ k: Int, _ t: Int, _ cand: inout SpotterMatch?) {
        let (whole, start) = columns.whole(k)
        let cls = labels[k]
        // A match that starts in the candidate's last eighth is the next gesture: it waits until
        // the candidate is reported rather than replacing it.
        if let c = cand, start > Self.conflictEnd(c) { return }
        if whole <= thresholds[cls], whole < (cand?.distance ?? .infinity), plausibleLength(t - start + 1, template: lengths[k]) {
            cand = SpotterMatch(classIndex: cls, distance: whole, start: start, end: t)
        }
    }
}

/// Whether a match of `length` stream frames is a plausible performance of a template of
/// `template` frames: at most ``DTWSpotter/maxWarp`` times faster or slower. Without it a whole
/// template squeezed onto a few held frames, or a fragment of another gesture, could match.
@inline(__always)
func plausibleLength(_ length: Int, template m: Int) -> Bool {
    length * DTWSpotter.maxWarp >= m && length <= m * DTWSpotter.maxWarp
}

extension DTWSpotter {
    /// How much faster or slower than its template a gesture may be performed and still match.
    static let maxWarp = 2
    /// The longest a gesture and its continuation may last together, in typical performances.
    /// Chosen on spotting-replay tuning seeds, with 200 still frames between gestures and with none:
    /// 1.25 removed half of BasicMotions' repeats and cost no back-to-back gesture; 1.5 cost some.
    static let continuationLength: Float = 1.25
}

/// The subsequence-DTW column of every template (SPRING), advanced one stream frame at a time by the
/// vector kernel `gk_spring_step`: templates in groups of 8, one per lane, each group as long as its
/// longest template (the others' extra cells are computed and never read). Row -1 is free
/// (distance 0, starting now), which is what lets a match begin at any frame. Ties prefer left,
/// then diag, then up.
struct SpringColumns: Sendable {
    let channels: Int
    let lengths: [Int]
    /// Per group: its cell count and first cell; the template values interleaved by lane.
    let groupLengths: [Int]
    let groupCells: [Int]
    let interleaved: [Float]
    /// Cell (group g, cell i, lane j) at `(groupCells[g] + i) * 8 + j`.
    var distances: [Float]
    /// Start frames as 32-bit offsets from `base`.
    var starts: [Int32]
    var base = 0

    /// Columns over channel-major templates (`offsets[k]` is where template `k` starts).
    init(channels: Int, templates: [Float], lengths: [Int], offsets: [Int]) {
        self.channels = channels
        self.lengths = lengths
        var gl: [Int] = [], gc: [Int] = []
        var cells = 0
        for g in stride(from: 0, to: lengths.count, by: 8) {
            let m = lengths[g..<min(g + 8, lengths.count)].max() ?? 0
            gl.append(m)
            gc.append(cells)
            cells += m
        }
        var y = [Float](repeating: 0, count: cells * 8 * channels)
        for k in lengths.indices {
            let (g, lane) = (k / 8, k % 8), m = gl[g]
            for c in 0..<channels {
                for i in 0..<lengths[k] { y[(gc[g] * channels + c * m + i) * 8 + lane] = templates[offsets[k] + c * lengths[k] + i] }
            }
        }
        groupLengths = gl
        groupCells = gc
        interleaved = y
        distances = [Float](repeating: .infinity, count: cells * 8)
        starts = [Int32](repeating: 0, count: cells * 8)
    }

    /// Lanes of the kernel in use (8 with AVX2, else 4); results do not depend on it.
    static var lanes: Int { gk_spring_lanes() }
    /// Caps the kernel's lanes, for tests comparing the variants.
    static func limitLanes(_ lanes: Int) { gk_spring_limit_lanes(lanes) }

    /// Where template `k`'s cell `i` is in `distances` and `starts`.
    @inline(__always)
    func cell(_ k: Int, _ i: Int) -> Int { (groupCells[k / 8] + i) * 8 + k % 8 }

    /// Template `k`'s whole-template distance and the stream frame its path started at.
    @inline(__always)
    func whole(_ k: Int) -> (distance: Float, start: Int) {
        let at = cell(k, lengths[k] - 1)
        return (distances[at], base + Int(starts[at]))
    }

    /// No partial match: every cell unreachable.
    mutating func reset() {
        for i in distances.indices { distances[i] = .infinity; starts[i] = 0 }
        base = 0
    }

    /// No partial match, the next frame pushed being `frame` (starts stay small offsets from it).
    mutating func restart(at frame: Int) {
        for i in distances.indices { distances[i] = .infinity; starts[i] = 0 }
        base = frame
    }

    /// Drops the paths that started at or before `base + last`.
    mutating func forget(startingBy last: Int) {
        for i in distances.indices where Int(starts[i]) <= last { distances[i] = .infinity }
    }

    /// Advances every column by frame `x` (`channels` values), stream frame `t`.
    /// - Complexity: O(sum of group lengths * 8 * channels); no allocation.
    mutating func step(_ x: UnsafeBufferPointer<Float>, frame t: Int) {
        // Far older starts only ever fail the length and conflict tests, so clamping them when the
        // base moves keeps every decision.
        if t - base >= 1 << 30 {
            let shift = 1 << 29, oldest = Int(Int32.min / 2)
            for i in starts.indices { starts[i] = Int32(max(Int(starts[i]) - shift, oldest)) }
            base += shift
        }
        let channels = self.channels, at = Int32(t - base)
        groupLengths.withUnsafeBufferPointer { gl in
            groupCells.withUnsafeBufferPointer { gc in
                interleaved.withUnsafeBufferPointer { y in
                    distances.withUnsafeMutableBufferPointer { d in
                        starts.withUnsafeMutableBufferPointer { s in
                            gk_spring_step(x.baseAddress!, channels, gl.count, gl.baseAddress!, gc.baseAddress!, y.baseAddress!,
                                           d.baseAddress!, s.baseAddress!, at)
                        }
                    }
                }
            }
        }
    }
}
