import Foundation

/// Evidence that a spotted segment is a gesture of a learned class rather than of none: the
/// distance from its MiniRocket features to the nearest training example, turned into a
/// log-likelihood ratio fitted at training by leaving each class out.
///
/// DTW distances alone cannot tell a stroke never learned from a learned one on RacketSports (the
/// best threshold at true boundaries rejects 71 of 151 while keeping 90 %); MiniRocket's features
/// can (92). Every series is resampled to the examples' median length first, so that a cut shorter
/// than every example does not change what the dilations reach, and the features are the raw
/// proportions of positive values (all in 0...1): standardising them blows up features that are
/// constant over near-identical examples.
struct UnlearnedCheck: Sendable, Hashable {
    /// Features of the transform: 2,000 gave the same spotting suite totals as 10,000 (when the
    /// ratio was fitted at the examples' true boundaries).
    static let featureBudget = 2_000
    /// How much the ratio counts against the decoder's gain (log-odds). Both are log-likelihood
    /// ratios, fitted on what the spotter sees (the ratio on the windows around the decoder's cuts
    /// of the training examples), so they add with weight 1. Measured on the spotting suite's
    /// tuning split at the default penalty 0.5: 0.75 / 1 / 1.5 found 261 / 259 / 254 of 300
    /// gestures amid motion, 1148 / 1144 / 1124 of 1260 held still, and rejected 205 / 233 / 259 of
    /// RacketSports' 453 unlearned strokes between held frames (at most half reported from 1 up).
    static let weight: Float = 1

    var rocket: MiniRocket.Model
    /// Frames every series is resampled to.
    var length: Int
    /// The training examples' features, one row each.
    var library: [Float]
    /// Log-likelihood ratio of a learned class against none: `intercept + slope * log d`.
    var intercept: Float
    var slope: Float

    var featureCount: Int { rocket.biases.count }
    var channels: Int { rocket.channelNames.count }

    /// `nil` when there are fewer than two classes with two examples each (nothing to fit on).
    /// - Parameter cuts: where the decoder cuts each example (``SegmentalModel/learnWithCuts``) in
    ///   its stream of `context` copies of its first frame, the example and as many of its last;
    ///   the ratio is fitted on the windows the spotter would check around those cuts (the largest
    ///   ratio of ``SegmentalSpotter/checkWindows(around:typical:shortest:frames:)``, with the
    ///   class's `typical` and `shortest` lengths), so it is calibrated on what it will be asked.
    ///   An example without a cut is taken whole.
    static func learn(_ examples: [TimeSeries], labels: [Int], cuts: [Int: ClosedRange<Int>] = [:], context: Int = 0,
                      typical: [Int] = [], shortest: [Int] = []) -> UnlearnedCheck? {
        guard let channels = examples.first?.channelCount else { return nil }
        var perClass: [Int: Int] = [:]
        for l in labels { perClass[l, default: 0] += 1 }
        guard perClass.values.filter({ $0 >= 2 }).count >= 2 else { return nil }
        let sorted = examples.map(\.frameCount).sorted()
        let length = max(sorted[sorted.count / 2], 2)
        let resampled = examples.map { e in
            var out = [Float](repeating: 0, count: length * channels)
            e.values.withUnsafeBufferPointer { w in
                out.withUnsafeMutableBufferPointer { o in resample(w, frames: e.frameCount, channels: channels, into: o, length: length) }
            }
            return TimeSeries(values: out, channelCount: channels)
        }
        let rocket = MiniRocket.fitModel(resampled, names: (0..<channels).map { "\($0)" }, concatenated: false,
                                         features: featureBudget, maxDilations: 32, seed: 0)
        let f = rocket.biases.count, n = examples.count
        var x = [Float](repeating: 0, count: n * f)
        x.withUnsafeMutableBufferPointer { o in
            for (i, e) in resampled.enumerated() {
                e.values.withUnsafeBufferPointer { w in
                    MiniRocket.transform(rocket, w, length, UnsafeMutableBufferPointer(rebasing: o[(i * f)..<((i + 1) * f)]), pools: false)
                }
            }
        }
        // Known: each example's distance to its nearest other example of its class. Unknown: to
        // its nearest example of another class, what it would score were its class left out.
        // Each is the least over the windows the spotter would check around the example's cut.
        var known: [Double] = [], unknown: [Double] = []
        var query = [Float](repeating: 0, count: length * channels), features = [Float](repeating: 0, count: f)
        for i in 0..<n {
            let e = examples[i], frames = e.frameCount, c = labels[i]
            // An example without a cut is taken whole: its features are its library row.
            var stream: [Float] = [], ranges: [ClosedRange<Int>?] = [nil]
            if let cut = cuts[i], c < typical.count, c < shortest.count, frames > 0 {
                stream = e.values[0..<channels].repeated(context) + e.values
                    + e.values[((frames - 1) * channels)..<(frames * channels)].repeated(context)
                ranges = SegmentalSpotter.checkWindows(around: cut, typical: typical[c], shortest: shortest[c],
                                                       frames: 0...(frames + 2 * context - 1))
            }
            var same = Float.infinity, other = Float.infinity
            for range in ranges {
                if let r = range {
                    stream.withUnsafeBufferPointer { w in
                        query.withUnsafeMutableBufferPointer { q in
                            features.withUnsafeMutableBufferPointer { o in
                                let part = UnsafeBufferPointer(rebasing: w[(r.lowerBound * channels)..<((r.upperBound + 1) * channels)])
                                resample(part, frames: r.count, channels: channels, into: q, length: length)
                                MiniRocket.transform(rocket, UnsafeBufferPointer(q), length, o, pools: false)
                            }
                        }
                    }
                } else {
                    features.replaceSubrange(0..<f, with: x[(i * f)..<((i + 1) * f)])
                }
                features.withUnsafeBufferPointer { q in
                    x.withUnsafeBufferPointer { p in
                        for k in 0..<n where k != i {
                            let d = squaredDistance(q, row: 0, p, row: k, width: f)
                            if labels[k] == c { same = min(same, d) } else { other = min(other, d) }
                        }
                    }
                }
            }
            if same.isFinite { known.append(Double(logDistance(same))) }
            if other.isFinite { unknown.append(Double(logDistance(other))) }
        }
        let (a, b) = fitRatio(known: known, unknown: unknown)
        return UnlearnedCheck(rocket: rocket, length: length, library: x, intercept: Float(a), slope: Float(b))
    }

    /// A balanced logistic regression of known (1) against unknown (0) on the log distance,
    /// each group weighted to one, with a small ridge on the slope so that classes far apart
    /// (separable groups) still give a finite ratio.
    static func fitRatio(known: [Double], unknown: [Double]) -> (intercept: Double, slope: Double) {
        guard !known.isEmpty, !unknown.isEmpty else { return (0, 0) }
        let all = known.map { ($0, 1.0, 1 / Double(known.count)) } + unknown.map { ($0, 0.0, 1 / Double(unknown.count)) }
        let mean = all.reduce(0) { $0 + $1.0 } / Double(all.count)
        let ridge = 1e-2
        var a = 0.0, b = 0.0
        for _ in 0..<100 {
            var ga = 0.0, gb = ridge * b, haa = 1e-9, hab = 0.0, hbb = ridge
            for (v, y, w) in all {
                let t = v - mean, p = 1 / (1 + exp(-(a + b * t)))
                ga += w * (p - y); gb += w * (p - y) * t
                let h = w * p * (1 - p)
                haa += h; hab += h * t; hbb += h * t * t
            }
            let det = haa * hbb - hab * hab
            guard det > 0 else { break }
            let da = (hbb * ga - hab * gb) / det, db = (haa * gb - hab * ga) / det
            a -= da; b -= db
            if abs(da) + abs(db) < 1e-10 { break }
        }
        return (a - b * mean, b)
    }

    /// The log-likelihood ratio of `frames` frames (`window`), using `resampled` (`length * channels`)
    /// and `features` (`featureCount`) as scratch.
    func ratio(_ window: UnsafeBufferPointer<Float>, frames: Int, resampled: UnsafeMutableBufferPointer<Float>,
               features: UnsafeMutableBufferPointer<Float>) -> Float {
        Self.resample(window, frames: frames, channels: channels, into: resampled, length: length)
        MiniRocket.transform(rocket, UnsafeBufferPointer(resampled), length, features, pools: false)
        let f = featureCount
        var best = Float.infinity
        let query = UnsafeBufferPointer(features)
        library.withUnsafeBufferPointer { x in
            for i in 0..<(x.count / f) { best = min(best, Self.squaredDistance(query, row: 0, x, row: i, width: f)) }
        }
        return intercept + slope * Self.logDistance(best)
    }

    static func logDistance(_ d: Float) -> Float { log(max(d, 1e-12)) }

    /// Squared Euclidean distance between row `i` of `x` and row `k` of `y`, rows of `width` values.
    static func squaredDistance(_ x: UnsafeBufferPointer<Float>, row i: Int, _ y: UnsafeBufferPointer<Float>, row k: Int,
                                width f: Int) -> Float {
        var d: Float = 0
        for j in 0..<f { let e = x[i * f + j] - y[k * f + j]; d += e * e }
        return d
    }

    /// Linear interpolation of `frames` frames onto `length`.
    static func resample(_ w: UnsafeBufferPointer<Float>, frames: Int, channels: Int,
                         into out: UnsafeMutableBufferPointer<Float>, length: Int) {
        guard frames > 1 else {
            for y in 0..<length { for k in 0..<channels { out[y * channels + k] = frames == 1 ? w[k] : 0 } }
            return
        }
        for y in 0..<length {
            let p = Float(y) * Float(frames - 1) / Float(max(length - 1, 1))
            let a = min(Int(p), frames - 2), t = p - Float(a)
            for k in 0..<channels { out[y * channels + k] = w[a * channels + k] * (1 - t) + w[(a + 1) * channels + k] * t }
        }
    }
}

private extension ArraySlice {
    func repeated(_ times: Int) -> [Element] {
        var out: [Element] = []
        out.reserveCapacity(count * times)
        for _ in 0..<times { out += self }
        return out
    }
}

extension UnlearnedCheck: Codable {
    enum CodingKeys: String, CodingKey { case rocket, length, library, intercept, slope }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let r = try c.nestedContainer(keyedBy: MiniRocket.TrainedKeys.self, forKey: .rocket)
        rocket = try MiniRocket.decodeModel(r)
        length = try c.decode(Int.self, forKey: .length)
        library = try c.decode(PackedFloats.self, forKey: .library).values
        intercept = try c.decode(Float.self, forKey: .intercept)
        slope = try c.decode(Float.self, forKey: .slope)
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        var r = c.nestedContainer(keyedBy: MiniRocket.TrainedKeys.self, forKey: .rocket)
        try MiniRocket.encodeModel(rocket, &r, names: true)
        try c.encode(length, forKey: .length)
        try c.encode(PackedFloats(library), forKey: .library)
        try c.encode(intercept, forKey: .intercept)
        try c.encode(slope, forKey: .slope)
    }

    /// Shapes and values a spotter can run on, for `channels` channels.
    func validate(channels: Int) throws {
        try MiniRocket.validate(rocket, field: "trained.unlearned.rocket")
        if rocket.channelNames.count != channels {
            throw GestureKitError("expected \(channels) channels, got \(rocket.channelNames.count)", field: "trained.unlearned.rocket.channelNames")
        }
        if length < 2 || length > 1 << 20 { throw GestureKitError("must be between 2 and 2^20, got \(length)", field: "trained.unlearned.length") }
        if library.isEmpty || library.count % featureCount != 0 || !library.allSatisfy(\.isFinite) {
            throw GestureKitError("expected finite rows of \(featureCount) features", field: "trained.unlearned.library")
        }
        if !intercept.isFinite { throw GestureKitError("must be finite", field: "trained.unlearned.intercept") }
        if !slope.isFinite { throw GestureKitError("must be finite", field: "trained.unlearned.slope") }
    }
}
