import Foundation

/// A cascade of second-order sections (plus one first-order section for odd orders) forming a
/// digital Butterworth filter designed by the bilinear transform with pre-warping, so the -3 dB point
/// sits exactly at the cutoff and the magnitude response is
/// `|H(f)|^2 = 1 / (1 + (tan(pi f / fs) / tan(pi fc / fs))^(2 order))` for the low-pass (the
/// reciprocal ratio for the high-pass).
///
/// Runs in Direct Form II transposed with Double coefficients and state, which keeps low cutoffs
/// (e.g. 0.3 Hz at 100 Hz) stable and accurate.
struct ButterworthCascade: Sendable {
    enum Response: Sendable { case lowPass, highPass }

    /// Five numbers per section: b0, b1, b2, a1, a2 (a0 = 1).
    private(set) var coefficients: [Double] = []
    var sectionCount: Int { coefficients.count / 5 }
    /// Two numbers per section per channel.
    private var state: [Double] = []
    private var last: [Float] = []
    private var primed = false
    private(set) var channels = 0

    /// - Parameter warped: `tan(pi * fc / fs)`, the pre-warped cutoff.
    init(response: Response, order: Int, warped k: Double) {
        var co: [Double] = []
        for s in 0..<(order / 2) {
            // Pole pair s of an analogue Butterworth filter of this order.
            let q = 1 / (2 * cos(Double(2 * s + 1) * Double.pi / Double(2 * order)))
            let norm = 1 / (1 + k / q + k * k)
            let a1 = 2 * (k * k - 1) * norm
            let a2 = (1 - k / q + k * k) * norm
            switch response {
            case .lowPass: co += [k * k * norm, 2 * k * k * norm, k * k * norm, a1, a2]
            case .highPass: co += [norm, -2 * norm, norm, a1, a2]
            }
        }
        if order % 2 == 1 {
            let a1 = (k - 1) / (k + 1)
            switch response {
            case .lowPass: co += [k / (1 + k), k / (1 + k), 0, a1, 0]
            case .highPass: co += [1 / (1 + k), -1 / (1 + k), 0, a1, 0]
            }
        }
        coefficients = co
    }

    mutating func reset(channels: Int) {
        self.channels = channels
        state = [Double](repeating: 0, count: 2 * sectionCount * channels)
        last = [Float](repeating: 0, count: channels)
        primed = false
    }

    /// - Complexity: O(channels * order).
    mutating func process(_ frame: UnsafeMutableBufferPointer<Float>) {
        let c = frame.count
        if c != channels { reset(channels: c) }
        let sections = sectionCount
        let wasPrimed = primed
        coefficients.withUnsafeBufferPointer { co in
            state.withUnsafeMutableBufferPointer { st in
                last.withUnsafeMutableBufferPointer { last in
                    for j in 0..<c {
                        let x = FilterSupport.held(frame[j], previous: last[j])
                        last[j] = x
                        var u = Double(x)
                        for s in 0..<sections {
                            let b0 = co[5 * s], b1 = co[5 * s + 1], b2 = co[5 * s + 2]
                            let a1 = co[5 * s + 3], a2 = co[5 * s + 4]
                            let i = 2 * (j * sections + s)
                            if !wasPrimed {
                                // Steady state for an input held at u forever.
                                let y = u * (b0 + b1 + b2) / (1 + a1 + a2)
                                st[i + 1] = b2 * u - a2 * y
                                st[i] = b1 * u - a1 * y + st[i + 1]
                            }
                            let y = b0 * u + st[i]
                            st[i] = b1 * u - a1 * y + st[i + 1]
                            st[i + 1] = b2 * u - a2 * y
                            u = y
                        }
                        frame[j] = Float(u)
                    }
                }
            }
        }
        primed = true
    }
}

/// Shared configuration and Codable form of ``LowPass`` and ``HighPass``.
struct ButterworthConfig: Sendable, Equatable {
    var cutoff: Double?
    var normalizedCutoff: Double?
    var order: Int
    var sampleRate: Double?
    var channels: Int?

    enum CodingKeys: String, CodingKey { case cutoff, normalizedCutoff, order, sampleRate, channels }

    init(cutoff: Double?, normalizedCutoff: Double?, order: Int, sampleRate: Double?) {
        self.cutoff = cutoff
        self.normalizedCutoff = normalizedCutoff
        self.order = order
        self.sampleRate = sampleRate
    }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        cutoff = try c.decodeIfPresent(Double.self, forKey: .cutoff)
        normalizedCutoff = try c.decodeIfPresent(Double.self, forKey: .normalizedCutoff)
        order = try c.decodeIfPresent(Int.self, forKey: .order) ?? 2
        sampleRate = try c.decodeIfPresent(Double.self, forKey: .sampleRate)
        channels = try c.decodeIfPresent(Int.self, forKey: .channels)
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(cutoff, forKey: .cutoff)
        try c.encodeIfPresent(normalizedCutoff, forKey: .normalizedCutoff)
        try c.encode(order, forKey: .order)
        try c.encodeIfPresent(sampleRate, forKey: .sampleRate)
        try c.encodeIfPresent(channels, forKey: .channels)
    }

    /// Checks what is present; a Hz cutoff without a sample rate is allowed here (the rate may come
    /// from `fit`).
    func validate() throws {
        if !(1...8).contains(order) { throw GestureKitError("must be 1 to 8, found \(order)", field: "order") }
        try FilterSupport.checkSampleRate(sampleRate)
        try FilterSupport.checkChannels(channels)
        switch (cutoff, normalizedCutoff) {
        case (nil, nil):
            throw GestureKitError("give a cutoff in Hz (\"cutoff\") or as a fraction of Nyquist (\"normalizedCutoff\")", field: "cutoff")
        case (.some, .some):
            throw GestureKitError("give either \"cutoff\" or \"normalizedCutoff\", not both", field: "normalizedCutoff")
        case (let f?, nil):
            guard f.isFinite, f > 0 else { throw GestureKitError("must be positive, found \(f)", field: "cutoff") }
            if let rate = sampleRate, f >= rate / 2 {
                throw GestureKitError("\(f) Hz is not below the Nyquist frequency \(rate / 2) Hz", field: "cutoff")
            }
        case (nil, let w?):
            guard w.isFinite, w > 0, w < 1 else {
                throw GestureKitError("must be between 0 and 1 (exclusive; 1 = Nyquist), found \(w)", field: "normalizedCutoff")
            }
        }
    }

    /// `tan(pi * fc / fs)`, or nil while a Hz cutoff waits for a sample rate.
    var warpedCutoff: Double? {
        if let w = normalizedCutoff { return tan(Double.pi * w / 2) }
        if let f = cutoff, let rate = sampleRate { return tan(Double.pi * f / rate) }
        return nil
    }

    /// Validates and designs, throwing when a Hz cutoff has no sample rate.
    func design(_ response: ButterworthCascade.Response) throws -> ButterworthCascade {
        try validate()
        guard let k = warpedCutoff else {
            throw GestureKitError("a cutoff in Hz needs the sample rate; the training data has none (give \"sampleRate\" or use \"normalizedCutoff\")", field: "cutoff")
        }
        return ButterworthCascade(response: response, order: order, warped: k)
    }
}

/// What ``LowPass`` and ``HighPass`` share: the configuration, the designed cascade, and every
/// stage method but the response they design.
protocol ButterworthStage: Preprocessor {
    static var response: ButterworthCascade.Response { get }
    var config: ButterworthConfig { get set }
    var filter: ButterworthCascade? { get set }
    init(config: ButterworthConfig)
}

extension ButterworthStage {
    public init(from decoder: Decoder) throws {
        let config = try ButterworthConfig(from: decoder)
        // Before the design sizes its state by order and channels (as the windowed filters do).
        if !(1...8).contains(config.order) { throw GestureKitError("must be 1 to 8, found \(config.order)", field: "order") }
        try FilterSupport.checkChannels(config.channels)
        self.init(config: config)
    }

    public func encode(to encoder: Encoder) throws { try config.encode(to: encoder) }
    public mutating func reset() {
        let channels = config.channels ?? 0
        filter?.reset(channels: channels)
    }

    public mutating func process(_ frame: UnsafeMutableBufferPointer<Float>) { filter?.process(frame) }

    public var cutoff: Double? { config.cutoff }
    public var normalizedCutoff: Double? { config.normalizedCutoff }
    public var order: Int { config.order }
    public var sampleRate: Double? { config.sampleRate }

    static func designed(_ config: ButterworthConfig) -> ButterworthCascade? {
        var filter = try? config.design(response)
        if let c = config.channels { filter?.reset(channels: c) }
        return filter
    }

    public func validate() throws { try config.validate() }

    public mutating func fit(_ training: [TimeSeries], channels: Int, sampleRate: Double?) throws {
        if let sampleRate { config.sampleRate = sampleRate }
        config.channels = channels
        filter = try config.design(Self.response)
        reset()
    }
}

/// Butterworth low-pass filter per channel (bilinear transform, pre-warped; see `ButterworthCascade`).
///
/// JSON: `{"kind": "lowPass", "cutoff": 5}`. Keys: `cutoff` (Hz; needs the sample rate, taken from
/// the training data in `fit` or from `sampleRate`) or `normalizedCutoff` (fraction of the Nyquist
/// frequency, in (0, 1), no sample rate needed) — exactly one is required; `order` (default 2, 1...8);
/// `sampleRate` (Hz, optional; set by `fit` when the data has one); `channels` (learned).
///
/// Until a Hz cutoff can be designed (no sample rate known) the stage passes frames unchanged;
/// `fit` throws in that case, so a trained pipeline never does this.
/// - Complexity: O(channels * order) per frame, no allocation.
public struct LowPass: ButterworthStage {
    public static let kind = "lowPass"
    static let response = ButterworthCascade.Response.lowPass
    var config: ButterworthConfig
    var filter: ButterworthCascade?

    /// - Parameters:
    ///   - cutoff: in Hz (needs `sampleRate` here or in `fit`).
    ///   - normalizedCutoff: as a fraction of the Nyquist frequency.
    ///   - order: the filter order, 1...8.
    ///   - sampleRate: in Hz; `fit` sets it from the training data when it has one.
    public init(cutoff: Double? = nil, normalizedCutoff: Double? = nil, order: Int = 2, sampleRate: Double? = nil) {
        self.init(config: ButterworthConfig(cutoff: cutoff, normalizedCutoff: normalizedCutoff, order: order,
                                            sampleRate: sampleRate))
    }

    init(config: ButterworthConfig) {
        self.config = config
        filter = Self.designed(config)
    }
}

/// Butterworth high-pass filter per channel (removes gravity and drift); the mirror of ``LowPass``.
///
/// JSON: `{"kind": "highPass", "cutoff": 0.3}`. Keys as ``LowPass``: `cutoff` (Hz) or
/// `normalizedCutoff` (fraction of Nyquist), `order` (default 2), `sampleRate`, `channels`.
/// - Complexity: O(channels * order) per frame, no allocation.
public struct HighPass: ButterworthStage {
    public static let kind = "highPass"
    static let response = ButterworthCascade.Response.highPass
    var config: ButterworthConfig
    var filter: ButterworthCascade?

    /// - Parameters:
    ///   - cutoff: in Hz (needs `sampleRate` here or in `fit`).
    ///   - normalizedCutoff: as a fraction of the Nyquist frequency.
    ///   - order: the filter order, 1...8.
    ///   - sampleRate: in Hz; `fit` sets it from the training data when it has one.
    public init(cutoff: Double? = nil, normalizedCutoff: Double? = nil, order: Int = 2, sampleRate: Double? = nil) {
        self.init(config: ButterworthConfig(cutoff: cutoff, normalizedCutoff: normalizedCutoff, order: order,
                                            sampleRate: sampleRate))
    }

    init(config: ButterworthConfig) {
        self.config = config
        filter = Self.designed(config)
    }
}
