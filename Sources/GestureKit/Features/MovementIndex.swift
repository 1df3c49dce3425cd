/// GRT's movement index: per channel, the RMS of the deviation from the window's mean,
/// `sqrt(sum (x[i] - mean)^2 / N)` (GRT `MovementIndex::update`, which divides by N, so this equals
/// the population standard deviation of the window). Near 0 when the sensor is held still, large
/// when it moves, whatever its orientation.
///
/// JSON: `{"kind": "movementIndex"}`. Keys: `channelNames` (learned by `fit`). Features are named
/// `movementIndex(channel)`. An empty window gives zeros; non-finite input gives a non-finite value.
/// - Complexity: O(frames * channels), two passes, no allocation.
public struct MovementIndex: FeatureExtractor {
    public static let kind = "movementIndex"
    /// Input channel names, for the feature names.
    public private(set) var channelNames: [String]?

    /// A movement-index extractor.
    public init(channelNames: [String]? = nil) { self.channelNames = channelNames }

    enum CodingKeys: String, CodingKey { case channelNames }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        channelNames = try c.decodeIfPresent([String].self, forKey: .channelNames)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(channelNames, forKey: .channelNames)
    }

    public func validate() throws {
        if let n = channelNames, n.isEmpty { throw GestureKitError("no channels", field: "channelNames") }
    }

    public mutating func fit(_ windows: [TimeSeries], channels: Int, sampleRate: Double?) throws {
        channelNames = FeatureSupport.names(windows, channels: channels)
    }

    public var featureCount: Int { channelNames?.count ?? 0 }
    public var featureNames: [String] { (channelNames ?? []).map { "movementIndex(\($0))" } }

    public func extract(_ window: UnsafeBufferPointer<Float>, frames n: Int, into out: UnsafeMutableBufferPointer<Float>) {
        let c = featureCount
        precondition(out.count >= c && window.count >= n * c, "movementIndex: buffer sizes do not match")
        for j in 0..<c {
            guard n > 0 else { out[j] = 0; continue }
            var sum = 0.0
            for i in 0..<n { sum += Double(window[i * c + j]) }
            let mean = sum / Double(n)
            var sq = 0.0
            for i in 0..<n { let d = Double(window[i * c + j]) - mean; sq += d * d }
            out[j] = Float((sq / Double(n)).squareRoot())
        }
    }
}
