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
    /// Features of the transform: 2,000 gave the same spotting suite totals as 10,000.
    static let featureBudget = 2_000
    /// How much the ratio counts against the decoder's gain (log-odds). Chosen on the spotting
    /// suite's tuning split: 0.25 / 0.5 / 1 gave 234 / 232 / 229 of 300 gestures found amid motion,
    /// 300 / 328 / 353 of 448 unlearned ones rejected, 1097 / 1087 / 1063 of 1260 held still.
    static let weight: Float = 0.5

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
    static func learn(_ examples: [TimeSeries], labels: [Int]) -> UnlearnedCheck? {
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
        var known: [Double] = [], unknown: [Double] = []
        x.withUnsafeBufferPointer { p in
            for i in 0..<n {
                var same = Float.infinity, other = Float.infinity
                for k in 0..<n where k != i {
                    let d = squaredDistance(p, row: i, p, row: k, width: f)
                    if labels[k] == labels[i] { same = min(same, d) } else { other = min(other, d) }
                }
                if same.isFinite { known.append(Double(logDistance(same))) }
                if other.isFinite { unknown.append(Double(logDistance(other))) }
            }
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
