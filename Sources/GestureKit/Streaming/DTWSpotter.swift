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
    public var end: Int

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
/// within its class's null-rejection threshold becomes the candidate; the candidate is reported once
/// no live path that overlaps it can still beat it, and overlapping paths are then dropped, so each
/// gesture is reported once, shortly after it ends.
///
/// The templates are compared as the classifier stored them, so the classifier must keep the stream's
/// time scale and units: no resampling, no z-normalisation, dependent variant, null rejection on.
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
    // Per-stream state, sized at init; push never allocates.
    var distances: [Float]
    var starts: [Int]
    var cost: [Float]
    var frame = 0
    var candidate: SpotterMatch?

    /// - Throws: ``GestureKitError`` when the classifier is untrained, resamples or z-normalises
    ///   (templates would not be in the stream's time scale and units), is independent, or has null
    ///   rejection off (every stretch of the stream would match something).
    public init(classifier: DTWClassifier) throws {
        guard let model = classifier.model else { throw GestureKitError("the DTW classifier is not trained", field: "classifier") }
        guard classifier.resample == nil else {
            throw GestureKitError("spotting needs templates at the stream's rate: train without resampling", field: "resample")
        }
        guard !classifier.zNormalize else {
            throw GestureKitError("spotting compares raw frames: train without z-normalisation", field: "zNormalize")
        }
        guard classifier.variant == .dependent else {
            throw GestureKitError("spotting uses one warping path for all channels: use the dependent variant", field: "variant")
        }
        guard classifier.nullRejection != nil else {
            throw GestureKitError("spotting needs null rejection thresholds: set nullRejection", field: "nullRejection")
        }
        channels = model.channels
        templates = model.templates
        lengths = model.lengths
        offsets = model.offsets
        labels = model.labels
        thresholds = model.rejection.thresholds
        var so: [Int] = []
        var total = 0
        for m in lengths { so.append(total); total += m }
        stateOffsets = so
        distances = [Float](repeating: .infinity, count: total)
        starts = [Int](repeating: 0, count: total)
        cost = [Float](repeating: 0, count: lengths.max() ?? 0)
    }

    /// Forgets the stream: frame numbers restart at 0 and no partial match is kept.
    public mutating func reset() {
        for i in distances.indices { distances[i] = .infinity; starts[i] = 0 }
        frame = 0
        candidate = nil
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
                        for k in lengths.indices {
                            let m = lengths[k], y = tp.baseAddress! + offsets[k]
                            let d = dp.baseAddress! + stateOffsets[k], s = sp.baseAddress! + stateOffsets[k]
                            let cost = cp.baseAddress!
                            let x0 = x[0]
                            for i in 0..<m { let e = x0 - y[i]; cost[i] = e * e }
                            for ch in 1..<max(c, 1) {
                                let xc = x[ch], yc = y + ch * m
                                for i in 0..<m { let e = xc - yc[i]; cost[i] += e * e }
                            }
                            // Column t from column t - 1, in place. Row -1 is free (distance 0, starting
                            // now), which is what lets a match begin at any frame.
                            var left: Float = 0, leftStart = t
                            var diag: Float = 0, diagStart = t
                            for i in 0..<m {
                                let up = d[i], upStart = s[i]
                                var best = left, bestStart = leftStart
                                if diag < best { best = diag; bestStart = diagStart }
                                if up < best { best = up; bestStart = upStart }
                                let v = cost[i] + best
                                d[i] = v
                                s[i] = bestStart
                                diag = up
                                diagStart = upStart
                                left = v
                                leftStart = bestStart
                            }
                            let whole = d[m - 1], cls = labels[k]
                            if whole <= thresholds[cls], whole < (cand?.distance ?? .infinity) {
                                cand = SpotterMatch(classIndex: cls, distance: whole, start: s[m - 1], end: t)
                            }
                        }
                    }
                    // Report the candidate once no overlapping live path can beat it, then drop those paths.
                    guard let best = cand else { return }
                    for i in 0..<dp.count where dp[i] < best.distance && sp[i] <= best.end { return }
                    for i in 0..<dp.count where sp[i] <= best.end { dp[i] = .infinity }
                    reported = true
                }
            }
        }
        candidate = reported ? nil : cand
        return reported ? cand : nil
    }
}
