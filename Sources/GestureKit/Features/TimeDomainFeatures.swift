/// One per-channel statistic of a window (see ``TimeDomainFeatures``).
public enum TimeDomainFeature: String, Sendable, Codable, CaseIterable {
    /// Arithmetic mean.
    case mean
    /// Population standard deviation, `sqrt(sum (x - mean)^2 / N)`.
    case std
    /// Smallest and largest value.
    case min, max
    /// `max - min`.
    case range
    /// Root mean square, `sqrt(sum x^2 / N)`.
    case rms
    /// Sum of squares, `sum x^2` (grows with the window length).
    case energy
    /// Fisher-Pearson skewness `m3 / m2^1.5` with population central moments; 0 for a constant window.
    case skewness
    /// Excess kurtosis `m4 / m2^2 - 3` (0 for a normal distribution); 0 for a constant window.
    case kurtosis
    /// Sign changes between consecutive frames divided by `N - 1` (a sample counts as negative when
    /// `< 0`); 0 for a single frame. Crossings of zero, not of the mean.
    case zeroCrossingRate
    /// `sum |x[i] - x[i-1]| / (N - 1)`; 0 for a single frame.
    case meanAbsoluteDifference
}

/// Per-channel time-domain statistics of a window.
///
/// JSON: `{"kind": "timeDomain", "features": ["mean", "std", "rms"]}`. Keys: `features` (default
/// `["mean", "std", "min", "max", "rms"]`; any of ``TimeDomainFeature``'s names); `channelNames`
/// (learned by `fit`: it fixes the channel count).
///
/// Output layout: channel by channel, and within a channel in the order of `features`; named
/// `feature(channel)`, e.g. `rms(accelX)`. An empty window gives zeros; a non-finite input value
/// makes that channel's statistics non-finite (nothing traps).
/// - Complexity: O(frames * channels), two passes, Double accumulation, no allocation.
public struct TimeDomainFeatures: FeatureExtractor {
    public static let kind = "timeDomain"
    /// mean, std, min, max, rms.
    public static let defaultFeatures: [TimeDomainFeature] = [.mean, .std, .min, .max, .rms]

    /// The statistics computed per channel, in output order.
    public var features: [TimeDomainFeature]
    /// Input channel names, for the feature names.
    public private(set) var channelNames: [String]?

    /// A time-domain extractor.
    public init(features: [TimeDomainFeature] = TimeDomainFeatures.defaultFeatures, channelNames: [String]? = nil) {
        self.features = features
        self.channelNames = channelNames
    }

    enum CodingKeys: String, CodingKey { case features, channelNames }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let names = try c.decodeIfPresent([String].self, forKey: .features) {
            features = try names.map { name in
                guard let f = TimeDomainFeature(rawValue: name) else {
                    let known = TimeDomainFeature.allCases.map(\.rawValue).joined(separator: ", ")
                    throw GestureKitError("unknown feature \"\(name)\" (known: \(known))", field: "features")
                }
                return f
            }
        } else {
            features = Self.defaultFeatures
        }
        channelNames = try c.decodeIfPresent([String].self, forKey: .channelNames)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(features.map(\.rawValue), forKey: .features)
        try c.encodeIfPresent(channelNames, forKey: .channelNames)
    }

    public func validate() throws {
        if features.isEmpty { throw GestureKitError("choose at least one feature", field: "features") }
        if let n = channelNames, n.isEmpty { throw GestureKitError("no channels", field: "channelNames") }
    }

    public mutating func fit(_ windows: [TimeSeries], channels: Int, sampleRate: Double?) throws {
        try validate()
        channelNames = FeatureSupport.names(windows, channels: channels)
    }

    public var featureCount: Int { (channelNames?.count ?? 0) * features.count }

    public var featureNames: [String] {
        (channelNames ?? []).flatMap { ch in features.map { "\($0.rawValue)(\(ch))" } }
    }

    public func extract(_ window: UnsafeBufferPointer<Float>, frames: Int, into out: UnsafeMutableBufferPointer<Float>) {
        let c = channelNames?.count ?? 0
        let k = features.count
        precondition(out.count >= c * k && window.count >= frames * c, "timeDomain: buffer sizes do not match")
        features.withUnsafeBufferPointer { features in
            for j in 0..<c {
                let s = Self.statistics(window, frames: frames, channels: c, channel: j)
                for (i, f) in features.enumerated() { out[j * k + i] = s.value(f) }
            }
        }
    }

    struct Statistics {
        var n = 0, mean = 0.0, m2 = 0.0, m3 = 0.0, m4 = 0.0, sumSq = 0.0
        var lo: Float = 0, hi: Float = 0
        var crossings = 0, absDiff = 0.0

        func value(_ f: TimeDomainFeature) -> Float {
            guard n > 0 else { return 0 }
            let pairs = Double(max(n - 1, 1))
            switch f {
            case .mean: return Float(mean)
            case .std: return Float(m2.squareRoot())
            case .min: return lo
            case .max: return hi
            case .range: return hi - lo
            case .rms: return Float((sumSq / Double(n)).squareRoot())
            case .energy: return Float(sumSq)
            case .skewness: return m2 > 0 ? Float(m3 / (m2 * m2.squareRoot())) : (m2.isNaN ? .nan : 0)
            case .kurtosis: return m2 > 0 ? Float(m4 / (m2 * m2) - 3) : (m2.isNaN ? .nan : 0)
            case .zeroCrossingRate: return n > 1 ? Float(Double(crossings) / pairs) : 0
            case .meanAbsoluteDifference: return n > 1 ? Float(absDiff / pairs) : 0
            }
        }
    }

    /// Population moments (m2, m3, m4 are central moments divided by N).
    static func statistics(_ w: UnsafeBufferPointer<Float>, frames n: Int, channels c: Int, channel j: Int) -> Statistics {
        var s = Statistics()
        guard n > 0 else { return s }
        s.n = n
        var sum = 0.0
        s.lo = w[j]; s.hi = w[j]
        var prev = w[j]
        for i in 0..<n {
            let x = w[i * c + j]
            sum += Double(x)
            s.sumSq += Double(x) * Double(x)
            s.lo = Swift.min(s.lo, x)
            s.hi = Swift.max(s.hi, x)
            if i > 0 {
                if (prev < 0) != (x < 0) { s.crossings += 1 }
                s.absDiff += abs(Double(x) - Double(prev))
            }
            prev = x
        }
        if !sum.isFinite { s.lo = .nan; s.hi = .nan }
        s.mean = sum / Double(n)
        for i in 0..<n {
            let d = Double(w[i * c + j]) - s.mean
            let d2 = d * d
            s.m2 += d2; s.m3 += d2 * d; s.m4 += d2 * d2
        }
        s.m2 /= Double(n); s.m3 /= Double(n); s.m4 /= Double(n)
        return s
    }
}

enum FeatureSupport {
    /// Channel names from the first training window, or generated ones.
    static func names(_ windows: [TimeSeries], channels: Int) -> [String] {
        if let w = windows.first, w.channelCount == channels { return w.channelNames }
        return TimeSeries.defaultNames(channels)
    }
}
