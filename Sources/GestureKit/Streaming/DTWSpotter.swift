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
    let templates: [Float]
    let lengths: [Int]
    let offsets: [Int]
    let stateOffsets: [Int]
    let labels: [Int]
    let thresholds: [Float]
    /// Median template length per class: how long one performance of it lasts.
    let typicalLengths: [Int]
    // Per-stream state, sized at init; push never allocates.
    var distances: [Float]
    var starts: [Int]
    var cost: [Float]
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
        self.templates = templates
        self.lengths = lengths
        self.offsets = offsets
        self.labels = labels
        self.thresholds = thresholds
        typicalLengths = (0..<thresholds.count).map { c in
            let own = lengths.indices.filter { labels[$0] == c }.map { lengths[$0] }.sorted()
            return own.isEmpty ? 0 : own[own.count / 2]
        }
        var so: [Int] = []
        var total = 0
        for m in lengths { so.append(total); total += m }
        stateOffsets = so
        distances = [Float](repeating: .infinity, count: total)
        starts = [Int](repeating: 0, count: total)
        cost = [Float](repeating: 0, count: 2 * (lengths.max() ?? 0))
    }

    /// Forgets the stream: frame numbers restart at 0 and no partial match is kept.
    public mutating func reset() {
        for i in distances.indices { distances[i] = .infinity; starts[i] = 0 }
        frame = 0
        candidate = nil
        lastReport = nil
    }

    /// Feeds one frame of `channels` values; returns a match when one has become final.
    /// - Complexity: O(sum of template lengths * channels) per frame; no allocation.
    public mutating func push(_ x: UnsafeBufferPointer<Float>) -> SpotterMatch? {
        precondition(x.count == channels, "DTWSpotter: frame of \(x.count) values, trained on \(channels) channels")
        let t = frame
        frame += 1
        var cand = candidate
        var reported = false
        let c = channels
        templates.withUnsafeBufferPointer { tp in
            distances.withUnsafeMutableBufferPointer { dp in
                starts.withUnsafeMutableBufferPointer { sp in
                    cost.withUnsafeMutableBufferPointer { cp in
                        let maxLength = cp.count / 2
                        // Templates advance two at a time: their cell-to-cell chains are independent,
                        // so the processor overlaps them.
                        var k = 0
                        while k < lengths.count {
                            var a = SpringColumn(k, t, tp, dp, sp, cp.baseAddress!, lengths, offsets, stateOffsets)
                            a.fillCost(x, channels: c)
                            if k + 1 < lengths.count {
                                var b = SpringColumn(k + 1, t, tp, dp, sp, cp.baseAddress! + maxLength, lengths, offsets, stateOffsets)
                                b.fillCost(x, channels: c)
                                let shared = min(a.m, b.m)
                                for i in 0..<shared {
                                    a.step(i)
                                    b.step(i)
                                }
                                for i in shared..<a.m { a.step(i) }
                                for i in shared..<b.m { b.step(i) }
                                Self.consider(b, labels, thresholds, &cand)
                            } else {
                                for i in 0..<a.m { a.step(i) }
                            }
                            Self.consider(a, labels, thresholds, &cand)
                            k += 2
                        }
                    }
                    // Report the candidate once no conflicting live path can beat it, then drop those
                    // paths. A path conflicts when it started before the candidate's last eighth (a
                    // later start is the next gesture, performed back to back) and can still end at a
                    // plausible length (so stillness after a gesture does not hold its report back).
                    guard let best = cand else { return }
                    let mid = Self.conflictEnd(best)
                    for k in lengths.indices {
                        let base = stateOffsets[k], earliest = t + 1 - DTWSpotter.maxWarp * lengths[k]
                        for i in base..<(base + lengths[k]) where dp[i] < best.distance && sp[i] <= mid && sp[i] >= earliest {
                            return
                        }
                    }
                    for i in 0..<dp.count where sp[i] <= mid { dp[i] = .infinity }
                    reported = true
                }
            }
        }
        candidate = reported ? nil : cand
        guard reported, let match = cand else { return nil }
        if let last = lastReport, isContinuation(match, of: last) {
            lastReport?.end = match.end
            return nil
        }
        lastReport = match
        return match
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

    /// Takes template `column`'s whole-template distance as the candidate when it is within its
    /// class's threshold and better than the candidate so far.
    @inline(__always)
    private static func consider(_ column: SpringColumn, _ labels: [Int], _ thresholds: [Float], _ cand: inout SpotterMatch?) {
        let whole = column.d[column.m - 1], cls = labels[column.template], start = column.s[column.m - 1]
        // A match that starts in the candidate's last eighth is the next gesture: it waits until
        // the candidate is reported rather than replacing it.
        if let c = cand, start > conflictEnd(c) { return }
        if whole <= thresholds[cls], whole < (cand?.distance ?? .infinity),
           plausibleLength(column.t - start + 1, template: column.m) {
            cand = SpotterMatch(classIndex: cls, distance: whole, start: column.s[column.m - 1], end: column.t)
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

/// One template's column of the subsequence-DTW matrix, advanced by one stream frame in place.
struct SpringColumn {
    let template: Int
    let t: Int
    let m: Int
    let y: UnsafePointer<Float>
    let d: UnsafeMutablePointer<Float>
    let s: UnsafeMutablePointer<Int>
    let cost: UnsafeMutablePointer<Float>
    // Row -1 is free (distance 0, starting now), which is what lets a match begin at any frame.
    var left: Float = 0
    var leftStart: Int
    var diag: Float = 0
    var diagStart: Int

    @inline(__always)
    init(_ k: Int, _ t: Int, _ tp: UnsafeBufferPointer<Float>, _ dp: UnsafeMutableBufferPointer<Float>,
         _ sp: UnsafeMutableBufferPointer<Int>, _ cost: UnsafeMutablePointer<Float>,
         _ lengths: [Int], _ offsets: [Int], _ stateOffsets: [Int]) {
        template = k
        self.t = t
        m = lengths[k]
        y = tp.baseAddress! + offsets[k]
        d = dp.baseAddress! + stateOffsets[k]
        s = sp.baseAddress! + stateOffsets[k]
        self.cost = cost
        leftStart = t
        diagStart = t
    }

    /// Squared Euclidean cost of frame `x` against every template frame (channel-major template).
    @inline(__always)
    func fillCost(_ x: UnsafeBufferPointer<Float>, channels c: Int) {
        let x0 = x[0]
        for i in 0..<m { let e = x0 - y[i]; cost[i] = e * e }
        for ch in 1..<max(c, 1) {
            let xc = x[ch], yc = y + ch * m
            for i in 0..<m { let e = xc - yc[i]; cost[i] += e * e }
        }
    }

    /// Cell `i` of column t from column t - 1. min(diag, up) does not depend on the cell just
    /// computed, so only one compare and the add stay on the chain from cell to cell. Ties prefer
    /// left, then diag, then up.
    @inline(__always)
    mutating func step(_ i: Int) {
        let up = d[i], upStart = s[i]
        let takeUp = up < diag
        let du = takeUp ? up : diag, duStart = takeUp ? upStart : diagStart
        let takeDU = du < left
        let best = takeDU ? du : left, bestStart = takeDU ? duStart : leftStart
        let v = cost[i] + best
        d[i] = v
        s[i] = bestStart
        diag = up
        diagStart = upStart
        left = v
        leftStart = bestStart
    }
}
