/// Refractory period: after a class is reported at frame f, everything is reported as null up to and
/// including frame `f + T`; the first non-null prediction after that is reported again (and starts a
/// new period). Time is counted in frame numbers, never by the clock, so replaying a file gives the
/// same events.
///
/// JSON: `{"kind": "timeout", "frames": 50}` or `{"kind": "timeout", "seconds": 0.5}`. Keys: `frames`
/// (T in frames) or `seconds` (converted to `round(seconds * sampleRate)` frames by
/// ``prepare(sampleRate:)``, which throws without a sample rate); default `frames` = 25 when neither
/// is given; `sampleRate` (recorded by `prepare` so a loaded pipeline knows T without it).
/// - Complexity: O(1) per prediction.
public struct TimeoutFilter: Postprocessor {
    public static let kind = "timeout"
    public var reportsOnce: Bool { true }
    /// Quiet time after a report, in frames.
    public var frames: Int?
    /// Quiet time after a report, in seconds (converted with the sample rate).
    public var seconds: Double?
    /// The stream's sample rate, recorded by `prepare(sampleRate:)`.
    public private(set) var sampleRate: Double?

    private var lastReport: Int?

    /// Quiet for `frames` frames after each report.
    public init(frames: Int) { self.frames = frames }
    /// Quiet for `seconds` after each report.
    public init(seconds: Double, sampleRate: Double? = nil) {
        self.seconds = seconds
        self.sampleRate = sampleRate
    }

    enum CodingKeys: String, CodingKey { case frames, seconds, sampleRate }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        frames = try c.decodeIfPresent(Int.self, forKey: .frames)
        seconds = try c.decodeIfPresent(Double.self, forKey: .seconds)
        sampleRate = try c.decodeIfPresent(Double.self, forKey: .sampleRate)
        if frames == nil && seconds == nil { frames = 25 }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(frames, forKey: .frames)
        try c.encodeIfPresent(seconds, forKey: .seconds)
        try c.encodeIfPresent(sampleRate, forKey: .sampleRate)
    }

    public func validate() throws {
        if frames != nil && seconds != nil {
            throw GestureKitError("give either \"frames\" or \"seconds\", not both", field: "seconds")
        }
        if let f = frames, f < 0 { throw GestureKitError("must not be negative, found \(f)", field: "frames") }
        if let s = seconds, !(s.isFinite && s >= 0) { throw GestureKitError("must be a non-negative number, found \(s)", field: "seconds") }
        try FilterSupport.checkSampleRate(sampleRate)
    }

    /// The refractory period in frames, or nil while `seconds` waits for a sample rate.
    public var timeoutFrames: Int? {
        if let frames { return frames }
        if let seconds, let sampleRate { return Int((seconds * sampleRate).rounded()) }
        return nil
    }

    public mutating func prepare(sampleRate: Double?) throws {
        if let sampleRate { self.sampleRate = sampleRate }
        try validate()
        if timeoutFrames == nil {
            throw GestureKitError("a timeout in seconds needs the sample rate; the data has none (give \"frames\" instead)", field: "seconds")
        }
    }

    public mutating func reset() { lastReport = nil }

    /// Without a resolved period (seconds and no sample rate: `prepare` throws) nothing is blocked.
    public mutating func process(_ prediction: Prediction, frame: Int) -> Prediction {
        if let last = lastReport, frame - last <= (timeoutFrames ?? 0) { return prediction.suppressed }
        guard prediction.classIndex != nil else { return prediction }
        lastReport = frame
        return prediction
    }
}
