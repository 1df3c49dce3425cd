import CGestureKernels
import Foundation

/// MiniRocket (Dempster, Schmidt and Webb 2021), multivariate form, as a feature extractor
/// (kind `miniRocket`).
///
/// 84 fixed kernels of length 9 (weight -1 at six taps, 2 at three), each applied at dilations spread
/// exponentially up to about (length - 1) / 8, on a random combination of channels per kernel and
/// dilation. Each feature is the proportion of convolution outputs above a bias (PPV); the biases are
/// quantiles (low-discrepancy positions, frac(i * golden ratio)) of the convolution output of a random
/// training example. Every other kernel/dilation pair counts only outputs whose taps lie inside the
/// series (the reference's alternating padding). Deterministic for a seed.
///
/// With `difference` (MultiRocket's second representation, Tan, Dempster, Bergmeir and Webb 2022),
/// half the features come from the series and half from its first difference (x[t+1] - x[t], one
/// frame shorter; a one-frame series differences to one zero frame), each half fitted as above
/// (the difference half with its own dilations over the differenced length, and seed + 1).
///
/// With `concatenate`, the channels are laid end to end first (channel after channel): one channel
/// of channels x frames, which the kernels, dilations and biases are fitted on and run over.
///
/// JSON: `{"kind": "miniRocket", "features": 10000, "maxDilations": 32, "seed": 0, "difference": false,
/// "multiPooling": false, "concatenate": false}` (all optional; files without the last three load as
/// before). Learned by `fit`, under `trained`:
/// `channelNames`, `length` (the training length the dilations were spread over), `dilations`,
/// `featuresPerDilation`, `channelCounts` and `channelIndices` (per kernel and dilation,
/// dilation-major), `padded` (per kernel and dilation), `biases` (PackedFloats); with `difference`,
/// the same for the difference half under `trained.difference`.
///
/// Works on whole examples and on windows; a series of another length than the training one keeps
/// the fitted dilations (an unpadded pair on a series too short for its taps counts every output).
///
/// - Complexity: `extract` is O(dilations * (9 * channels + 84 * c * 4) * frames + features * frames),
///   c the mean channels per combination (about 2 to 3): for 6 channels, 100 frames and 10,000
///   features about 1.5 M operations, vectorised. `fit` adds one convolution and a selection of the
///   quantiles' order statistics per bias block.
public struct MiniRocket: FeatureExtractor {
    public static let kind = "miniRocket"
    /// MiniRocket's fixed kernels per dilation.
    public static let kernelCount = 84

    /// Requested number of features; the result is the nearest multiple of 84 below it.
    public var requestedFeatures: Int
    /// At most this many dilations per kernel (the reference's `max_dilations_per_kernel`).
    public var maxDilations: Int
    /// Seeds the channel combinations and bias quantiles: the same seed gives the same features.
    public var seed: UInt64
    /// Half the features from the first difference of the series (MultiRocket's representations).
    public var difference: Bool
    /// Four features per bias (MultiRocket's pooling): PPV, the mean of the outputs above the bias
    /// (minus it; 0 when none), the mean index of those outputs (-1 when none) and the longest run
    /// of them, over the counted outputs; a quarter as many biases for the same `features`.
    public var multiPooling: Bool
    /// Lays the channels end to end as one series (channel after channel, each in time order) before
    /// the transform, so every kernel and pool sees one channel at a time, boundary aside.
    public var concatenate: Bool
    package internal(set) var model: Model?
    /// The fitted difference half, when `difference`.
    package internal(set) var differenceModel: Model?

    /// The fitted transform.
    package struct Model: Sendable, Hashable {
        public var channelNames: [String]
        public var length: Int
        public var dilations: [Int32]
        public var featuresPerDilation: [Int32]
        public var channelCounts: [Int32]
        public var channelIndices: [Int32]
        public var padded: [UInt8]
        public var biases: [Float]
        /// Fitted on the channels laid end to end: the transform sees one channel.
        public var concatenated = false

        var maxDilation: Int { Int(dilations.max() ?? 1) }
        /// Channels of the series the kernels run on.
        var inputChannels: Int { concatenated ? 1 : channelNames.count }
    }

    /// An unfitted MiniRocket of about `features` features.
    public init(features: Int = 10_000, maxDilations: Int = 32, seed: UInt64 = 0, difference: Bool = false,
                multiPooling: Bool = false, concatenate: Bool = false) {
        requestedFeatures = features
        self.multiPooling = multiPooling
        self.concatenate = concatenate
        self.maxDilations = maxDilations
        self.seed = seed
        self.difference = difference
    }

    public var featureCount: Int { ((model?.biases.count ?? 0) + (differenceModel?.biases.count ?? 0)) * pools }
    /// Features per bias.
    var pools: Int { multiPooling ? 4 : 1 }
    static let poolNames = ["ppv", "mpv", "mipv", "lspv"]

    public var featureNames: [String] {
        guard let m = model else { return [] }
        var names: [String] = []
        names.reserveCapacity(featureCount)
        for (prefix, mm) in [("", m), ("diff:", differenceModel)] {
            guard let mm else { continue }
            for (di, d) in mm.dilations.enumerated() {
                for k in 0..<Self.kernelCount {
                    for q in 0..<Int(mm.featuresPerDilation[di]) {
                        for pool in Self.poolNames.prefix(pools) { names.append("\(prefix)\(pool)(k\(k),d\(d),b\(q))") }
                    }
                }
            }
        }
        return names
    }

    /// The first difference of a row-major series of `frames` frames and `channels` channels:
    /// max(frames - 1, 1) frames (one zero frame for a single frame).
    static func firstDifference(_ x: UnsafeBufferPointer<Float>, frames: Int, channels: Int,
                                into out: UnsafeMutableBufferPointer<Float>) {
        if frames < 2 {
            for i in 0..<channels { out[i] = 0 }
            return
        }
        for i in 0..<((frames - 1) * channels) { out[i] = x[i + channels] - x[i] }
    }

    /// A row-major series of `frames` frames and `channels` channels laid end to end: channel c's
    /// frames at c * frames.
    static func endToEnd(_ x: UnsafeBufferPointer<Float>, frames: Int, channels: Int,
                         into out: UnsafeMutableBufferPointer<Float>) {
        for c in 0..<channels {
            for t in 0..<frames { out[c * frames + t] = x[t * channels + c] }
        }
    }

    /// `endToEnd` of a whole series: one channel of frames * channels frames.
    static func endToEnd(_ s: TimeSeries) -> TimeSeries {
        var v = [Float](repeating: 0, count: s.values.count)
        s.values.withUnsafeBufferPointer { x in
            v.withUnsafeMutableBufferPointer { o in endToEnd(x, frames: s.frameCount, channels: s.channelCount, into: o) }
        }
        return TimeSeries(values: v, channelCount: 1, channelNames: ["all"], sampleRate: s.sampleRate)
    }

    /// `firstDifference` of a whole series.
    static func firstDifference(_ s: TimeSeries) -> TimeSeries {
        let frames = max(s.frameCount - 1, 1)
        var v = [Float](repeating: 0, count: frames * s.channelCount)
        s.values.withUnsafeBufferPointer { x in
            v.withUnsafeMutableBufferPointer { o in firstDifference(x, frames: s.frameCount, channels: s.channelCount, into: o) }
        }
        return TimeSeries(values: v, channelCount: s.channelCount, channelNames: s.channelNames, sampleRate: s.sampleRate)
    }

    // MARK: fitting

    /// Dilations and features per dilation for a series of `length` frames, as the reference's
    /// `_fit_dilations`: 2^x for x spread evenly over [0, log2((length - 1) / 8)], truncated and
    /// deduplicated, each repeat adding features to its dilation.
    static func dilations(length: Int, features: Int, maxDilations: Int) -> (dilations: [Int32], perDilation: [Int32]) {
        let perKernel = max(features / kernelCount, 1)
        let trueMax = max(min(perKernel, maxDilations), 1)
        let multiplier = Double(perKernel) / Double(trueMax)
        let maxExponent = max(log2(Double(max(length - 1, 1)) / 8), 0)
        var values: [Int32] = []
        var counts: [Int] = []
        for i in 0..<trueMax {
            let x = trueMax == 1 ? 0 : maxExponent * Double(i) / Double(trueMax - 1)
            let d = max(Int32(pow(2, x)), 1)
            if values.last == d { counts[counts.count - 1] += 1 } else { values.append(d); counts.append(1) }
        }
        var per = counts.map { Int32(Double($0) * multiplier) }
        var remainder = perKernel - Int(per.reduce(0, +))
        var i = 0
        while remainder > 0 {
            per[i] += 1
            remainder -= 1
            i = (i + 1) % per.count
        }
        return (values, per)
    }

    /// frac(i * golden ratio) for i = 1...count: evenly spread quantile positions.
    static func quantilePositions(_ count: Int) -> [Double] {
        let phi = (5.0.squareRoot() + 1) / 2
        return (1...max(count, 1)).prefix(count).map { (Double($0) * phi).truncatingRemainder(dividingBy: 1) }
    }

    /// The q-quantile of sorted values with linear interpolation between order statistics
    /// (position q * (count - 1)), as numpy's default.
    static func quantile(sorted s: [Float], _ q: Double) -> Float {
        let pos = q * Double(s.count - 1)
        let lo = Int(pos.rounded(.down)), hi = min(lo + 1, s.count - 1)
        let frac = pos - Double(lo)
        return Float(Double(s[lo]) + frac * (Double(s[hi]) - Double(s[lo])))
    }

    public mutating func fit(_ windows: [TimeSeries], channels: Int, sampleRate: Double?) throws {
        try validate()
        guard channels > 0 else { throw GestureKitError("no channels", field: "channelNames") }
        let usable = windows.filter { $0.channelCount == channels && $0.frameCount > 0 }
        guard !usable.isEmpty else { throw GestureKitError("no training series to fit MiniRocket on", field: "miniRocket") }
        let names = FeatureSupport.names(windows, channels: channels)
        let budget = max(requestedFeatures / pools, Self.kernelCount)
        let concatenate = concatenate
        let laid = { (s: [TimeSeries]) in concatenate ? s.map(Self.endToEnd) : s }
        if difference {
            let half = budget / 2
            model = Self.fitModel(laid(usable), names: names, concatenated: concatenate, features: half,
                                  maxDilations: maxDilations, seed: seed)
            differenceModel = Self.fitModel(laid(usable.map(Self.firstDifference)), names: names, concatenated: concatenate,
                                            features: budget - half, maxDilations: maxDilations, seed: seed &+ 1)
        } else {
            model = Self.fitModel(laid(usable), names: names, concatenated: concatenate, features: budget,
                                  maxDilations: maxDilations, seed: seed)
            differenceModel = nil
        }
    }

    /// One fitted transform of about `features` features on `usable` (non-empty): series of the
    /// channels `names`, or of one channel when they were laid end to end (`concatenated`).
    static func fitModel(_ usable: [TimeSeries], names: [String], concatenated: Bool, features: Int, maxDilations: Int,
                         seed: UInt64) -> Model {
        let channels = concatenated ? 1 : names.count
        let length = usable.map(\.frameCount).min()!
        let (dilations, per) = Self.dilations(length: length, features: features, maxDilations: maxDilations)
        var rng = SeededGenerator(seed: seed)
        let combinations = Self.kernelCount * dilations.count
        let maxChannels = min(channels, 9)
        let maxExponent = log2(Double(maxChannels + 1))
        var counts: [Int32] = []
        var indices: [Int32] = []
        var pool = Array(0..<Int32(channels))
        for _ in 0..<combinations {
            let u = Double(rng.next() >> 11) * 0x1p-53
            let count = min(max(Int(pow(2, u * maxExponent)), 1), maxChannels)
            // Partial Fisher-Yates: `count` distinct channels.
            for i in 0..<count {
                let j = i + Int(rng.next() % UInt64(channels - i))
                pool.swapAt(i, j)
            }
            counts.append(Int32(count))
            indices.append(contentsOf: pool[0..<count])
        }
        var padded: [UInt8] = []
        for di in dilations.indices {
            for k in 0..<Self.kernelCount { padded.append((di % 2 + k) % 2 == 0 ? 1 : 0) }
        }
        let total = Self.kernelCount * Int(per.reduce(0, +))
        let positions = Self.quantilePositions(total)
        // One random training example per kernel and dilation, drawn in the same order as ever.
        let draws = (0..<combinations).map { _ in Int(rng.next() % UInt64(usable.count)) }
        let biases = Self.fitBiases(usable, draws: draws, dilations: dilations, perDilation: per, channelCounts: counts,
                                    channelIndices: indices, positions: positions)
        return Model(channelNames: names, length: length, dilations: dilations, featuresPerDilation: per,
                     channelCounts: counts, channelIndices: indices, padded: padded, biases: biases,
                     concatenated: concatenated)
    }

    /// The biases: for each kernel and dilation, quantiles at `positions` of the convolution output of
    /// example `draws[c]`. The C kernel selects the order statistics without sorting (the sort took
    /// most of the fit); combinations it leaves (outputs with NaN or -0) and `plain` take the sort.
    static func fitBiases(_ examples: [TimeSeries], draws: [Int], dilations: [Int32], perDilation per: [Int32],
                          channelCounts counts: [Int32], channelIndices indices: [Int32], positions: [Double],
                          plain: Bool = false) -> [Float] {
        let combinations = kernelCount * dilations.count
        var biases = [Float](repeating: 0, count: positions.count)
        var unhandled = [UInt8](repeating: 1, count: combinations)
        if !plain, let channels = examples.first?.channelCount {
            // Only the drawn examples, laid end to end.
            var compact = [Int](repeating: -1, count: examples.count)
            var used: [Int] = []
            var draw32 = [Int32](repeating: 0, count: combinations)
            for (c, e) in draws.enumerated() {
                if compact[e] < 0 { compact[e] = used.count; used.append(e) }
                draw32[c] = Int32(compact[e])
            }
            var x: [Float] = []
            x.reserveCapacity(used.reduce(0) { $0 + examples[$1].values.count })
            var offsets = [Int](repeating: 0, count: used.count + 1)
            for (i, e) in used.enumerated() {
                x.append(contentsOf: examples[e].values)
                offsets[i + 1] = offsets[i] + examples[e].frameCount
            }
            let done = gk_minirocket_fit_biases(x, offsets, used.count, channels, dilations.count, dilations, per,
                                                counts, indices, draw32, positions, &biases, &unhandled)
            if done < 0 { unhandled = [UInt8](repeating: 1, count: combinations) }
        }
        var f = 0, c = 0, start = 0
        for (di, d) in dilations.enumerated() {
            for k in 0..<kernelCount {
                if unhandled[c] != 0 {
                    let chans = Array(indices[start..<(start + Int(counts[c]))])
                    var out = convolve(examples[draws[c]], dilation: Int(d), kernel: k, channels: chans)
                    out.sort()
                    for q in 0..<Int(per[di]) { biases[f + q] = quantile(sorted: out, positions[f + q]) }
                }
                f += Int(per[di])
                start += Int(counts[c])
                c += 1
            }
        }
        return biases
    }

    /// The values of `ranks` (ascending) in `values` ordered by IEEE totalOrder, from the C selection
    /// kernel; nil on a NaN. For tests.
    static func selectRanks(_ values: [Float], _ ranks: [Int]) -> [Float]? {
        var v = values
        var out = [Float](repeating: 0, count: ranks.count)
        var scratch = [UInt8](repeating: 0, count: gk_select_scratch_bytes(values.count))
        let ok = scratch.withUnsafeMutableBytes { s in
            gk_select_ranks(&v, values.count, ranks, ranks.count, s.baseAddress, &out)
        }
        return ok == 0 ? out : nil
    }

    /// The zero-padded output (one value per frame) of kernel `kernel` at `dilation` on the sum of
    /// `channels` of `series` (the same as the outputs on each channel, summed).
    /// - Complexity: O(frames * (9 + 4) * series channels).
    public static func convolve(_ series: TimeSeries, dilation: Int, kernel: Int, channels chans: [Int32]) -> [Float] {
        let n = series.frameCount, ch = series.channelCount
        guard n > 0 else { return [] }
        var out = [Float](repeating: 0, count: n)
        var scratch = [Float](repeating: 0, count: gk_minirocket_scratch_count(n, ch, dilation))
        let x = series.values
        x.withUnsafeBufferPointer { (xp: UnsafeBufferPointer<Float>) in
            chans.withUnsafeBufferPointer { (cs: UnsafeBufferPointer<Int32>) in
                scratch.withUnsafeMutableBufferPointer { (sp: inout UnsafeMutableBufferPointer<Float>) in
                    out.withUnsafeMutableBufferPointer { (o: inout UnsafeMutableBufferPointer<Float>) in
                        gk_minirocket_convolve(xp.baseAddress, n, ch, dilation, kernel, cs.baseAddress, cs.count,
                                               sp.baseAddress, o.baseAddress)
                    }
                }
            }
        }
        return out
    }

    // MARK: extraction

    public func extract(_ window: UnsafeBufferPointer<Float>, frames: Int, into out: UnsafeMutableBufferPointer<Float>) {
        guard let m = model else { return }
        let ch = m.channelNames.count
        precondition(out.count >= featureCount && window.count >= frames * ch, "miniRocket: buffer sizes do not match")
        Self.laidOut(m, window, frames) { x, n in Self.transform(m, x, n, out, pools: multiPooling) }
        guard let dm = differenceModel else { return }
        let dFrames = max(frames - 1, 1)
        withUnsafeTemporaryAllocation(of: Float.self, capacity: dFrames * ch) { dx in
            Self.firstDifference(window, frames: frames, channels: ch, into: dx)
            Self.laidOut(dm, UnsafeBufferPointer(dx), dFrames) { x, n in
                Self.transform(dm, x, n, UnsafeMutableBufferPointer(rebasing: out[(m.biases.count * pools)...]), pools: multiPooling)
            }
        }
    }

    /// Calls `body` with the window as `m` runs on it (laid end to end when it was fitted so) and its frames.
    static func laidOut(_ m: Model, _ window: UnsafeBufferPointer<Float>, _ frames: Int,
                        _ body: (UnsafeBufferPointer<Float>, Int) -> Void) {
        guard m.concatenated else { return body(window, frames) }
        let ch = m.channelNames.count
        withUnsafeTemporaryAllocation(of: Float.self, capacity: max(frames * ch, 1)) { laid in
            endToEnd(window, frames: frames, channels: ch, into: laid)
            body(UnsafeBufferPointer(laid), frames * ch)
        }
    }

    /// The features of one fitted transform: PPV per bias, or with `pools` MultiRocket's four.
    static func transform(_ m: Model, _ window: UnsafeBufferPointer<Float>, _ frames: Int,
                          _ out: UnsafeMutableBufferPointer<Float>, pools: Bool) {
        let kernel = pools ? gk_minirocket_transform_multi : gk_minirocket_transform
        let ch = m.inputChannels
        let scratchCount = (pools ? gk_minirocket_multi_scratch_count : gk_minirocket_scratch_count)(frames, ch, m.maxDilation)
        withUnsafeTemporaryAllocation(of: Float.self, capacity: max(scratchCount, 1)) { scratch in
            m.dilations.withUnsafeBufferPointer { d in
                m.featuresPerDilation.withUnsafeBufferPointer { per in
                    m.channelCounts.withUnsafeBufferPointer { counts in
                        m.channelIndices.withUnsafeBufferPointer { idx in
                            m.padded.withUnsafeBufferPointer { pad in
                                m.biases.withUnsafeBufferPointer { b in
                                    kernel(window.baseAddress, frames, ch, d.count, d.baseAddress,
                                                            per.baseAddress, counts.baseAddress, idx.baseAddress,
                                                            pad.baseAddress, b.baseAddress, scratch.baseAddress,
                                                            out.baseAddress)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Lanes of the vector kernel in use, and a cap on them for tests that compare widths.
    static var lanes: Int { gk_minirocket_lanes() }
    static func limitLanes(_ lanes: Int) { gk_minirocket_limit_lanes(lanes) }
}
