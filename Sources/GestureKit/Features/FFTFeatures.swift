import Foundation

/// Spectral features per channel: the energy in `bands` equal-width frequency bands and the dominant
/// frequency, from a real FFT of the window (zero-padded to the next power of two).
///
/// Definitions, for a window of L frames padded to N = 2^k >= L:
/// - the window's mean is removed first (`removeMean`, default true) so gravity or an offset does not
///   leak into the low bands; then the window function is applied over the L frames;
/// - the one-sided energy of bin k is `|X[k]|^2 / N`, doubled for 0 < k < N/2, so by Parseval the
///   energies of all bins (DC included) sum to `sum x^2` of the windowed signal;
/// - band b (0-based) holds the bins 1 ... N/2 whose frequency lies in `(b/bands, (b+1)/bands]` of the
///   Nyquist frequency (DC is not in any band);
/// - the dominant frequency is that of the bin 1 ... N/2 with the most power: in Hz when the sample
///   rate is known, otherwise in cycles per frame (`k / N`, at most 0.5); 0 when all power is 0.
///
/// JSON: `{"kind": "fft", "bands": 4}`. Keys: `bands` (default 4), `windowFunction` (`"hann"`
/// default, `"hamming"`, `"none"`; periodic forms over the L frames), `removeMean` (default true);
/// learned by `fit`: `sampleRate` (optional), `channelNames`.
///
/// Output layout: per channel `bands` band energies then the dominant frequency, named
/// `band0(ch)`, ..., `dominantFrequency(ch)`.
/// - Complexity: O(channels * N log N) per window, with N + L sines and cosines per window (shared by the channels). Scratch
///   (about 4.5 N + L Doubles) comes from `withUnsafeTemporaryAllocation`: on the stack when small,
///   otherwise one heap allocation per window (measured: 1 malloc for a 128-frame window on Linux).
public struct FFTFeatures: FeatureExtractor {
    /// The taper applied to a window before its FFT: none, Hann or Hamming.
    public enum WindowFunction: String, Sendable, Codable, CaseIterable {
        /// No taper (a rectangular window).
        case none
        /// Periodic Hann window.
        case hann
        /// Periodic Hamming window.
        case hamming
    }

    public static let kind = "fft"
    /// Equal-width frequency bands whose energies are features.
    public var bands: Int
    /// The taper applied before the FFT.
    public var windowFunction: WindowFunction
    /// Subtract each channel's window mean before the FFT.
    public var removeMean: Bool
    /// Frames per second, for the dominant frequency in Hz (in cycles per frame without it).
    public private(set) var sampleRate: Double?
    /// Input channel names, for the feature names.
    public private(set) var channelNames: [String]?

    /// An FFT extractor; every parameter is the property of the same name.
    public init(bands: Int = 4, windowFunction: WindowFunction = .hann, removeMean: Bool = true,
                sampleRate: Double? = nil, channelNames: [String]? = nil) {
        self.bands = bands
        self.windowFunction = windowFunction
        self.removeMean = removeMean
        self.sampleRate = sampleRate
        self.channelNames = channelNames
    }

    enum CodingKeys: String, CodingKey { case bands, windowFunction, removeMean, sampleRate, channelNames }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        bands = try c.decodeIfPresent(Int.self, forKey: .bands) ?? 4
        let w = try c.decodeIfPresent(String.self, forKey: .windowFunction) ?? WindowFunction.hann.rawValue
        guard let wf = WindowFunction(rawValue: w) else {
            throw GestureKitError("unknown window function \"\(w)\" (known: none, hann, hamming)", field: "windowFunction")
        }
        windowFunction = wf
        removeMean = try c.decodeIfPresent(Bool.self, forKey: .removeMean) ?? true
        sampleRate = try c.decodeIfPresent(Double.self, forKey: .sampleRate)
        channelNames = try c.decodeIfPresent([String].self, forKey: .channelNames)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(bands, forKey: .bands)
        try c.encode(windowFunction.rawValue, forKey: .windowFunction)
        try c.encode(removeMean, forKey: .removeMean)
        try c.encodeIfPresent(sampleRate, forKey: .sampleRate)
        try c.encodeIfPresent(channelNames, forKey: .channelNames)
    }

    public func validate() throws {
        if bands < 1 { throw GestureKitError("must be at least 1, found \(bands)", field: "bands") }
        try FilterSupport.checkSampleRate(sampleRate)
        if let n = channelNames, n.isEmpty { throw GestureKitError("no channels", field: "channelNames") }
    }

    public mutating func fit(_ windows: [TimeSeries], channels: Int, sampleRate: Double?) throws {
        if let sampleRate { self.sampleRate = sampleRate }
        try validate()
        channelNames = FeatureSupport.names(windows, channels: channels)
    }

    public var featureCount: Int { (channelNames?.count ?? 0) * (bands + 1) }

    public var featureNames: [String] {
        (channelNames ?? []).flatMap { ch in (0..<bands).map { "band\($0)(\(ch))" } + ["dominantFrequency(\(ch))"] }
    }

    public func extract(_ window: UnsafeBufferPointer<Float>, frames l: Int, into out: UnsafeMutableBufferPointer<Float>) {
        let c = channelNames?.count ?? 0
        let per = bands + 1
        precondition(out.count >= c * per && window.count >= l * c, "fft: buffer sizes do not match")
        guard l > 0 else {
            for i in 0..<(c * per) { out[i] = 0 }
            return
        }
        let n = RealFFT.paddedLength(l)
        let m = n / 2
        let scratchCount = RealFFT.scratchCount(n)
        withUnsafeTemporaryAllocation(of: Double.self, capacity: n + scratchCount + (m + 1) + l) { buf in
            var at = 0
            func take(_ count: Int) -> UnsafeMutableBufferPointer<Double> {
                defer { at += count }
                return UnsafeMutableBufferPointer(rebasing: buf[at..<(at + count)])
            }
            let signal = take(n), scratch = take(scratchCount), power = take(m + 1), weights = take(l)
            for i in 0..<l { weights[i] = weight(i, of: l) }
            for j in 0..<c {
                var mean = 0.0
                if removeMean {
                    for i in 0..<l { mean += Double(window[i * c + j]) }
                    mean /= Double(l)
                }
                var finite = true
                for i in 0..<l {
                    let x = Double(window[i * c + j])
                    finite = finite && x.isFinite
                    signal[i] = (x - mean) * weights[i]
                }
                for i in l..<n { signal[i] = 0 }
                RealFFT.powerSpectrum(UnsafeBufferPointer(signal), count: n, scratch: scratch, power: power,
                                      twiddlesReady: j > 0)
                let o = j * per
                for b in 0..<bands { out[o + b] = 0 }
                var best = 0, bestPower = 0.0
                if m >= 1 {
                    for k in 1...m {
                        let e = power[k] * (k == m ? 1 : 2) / Double(n)
                        let band = (k * bands + m - 1) / m - 1  // ceil(k * bands / m) - 1
                        out[o + band] += Float(e)
                        if power[k] > bestPower { bestPower = power[k]; best = k }
                    }
                }
                let cycles = Double(best) / Double(n)
                // Non-finite input: say so rather than report bin 0.
                out[o + bands] = finite ? Float(sampleRate.map { cycles * $0 } ?? cycles) : .nan
            }
        }
    }

    /// Periodic window weight of sample i of l (the C export writes the same values).
    @inline(__always)
    func weight(_ i: Int, of l: Int) -> Double {
        switch windowFunction {
        case .none: return 1
        case .hann: return l > 1 ? 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(l)) : 1
        case .hamming: return l > 1 ? 0.54 - 0.46 * cos(2 * Double.pi * Double(i) / Double(l)) : 1
        }
    }
}
