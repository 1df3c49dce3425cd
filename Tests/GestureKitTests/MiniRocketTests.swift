import Foundation
import Testing
@testable import GestureKit

/// Plain reference of one MiniRocket convolution output, written from the definition: the kernel
/// on the sum of the channels, in the order given. The sum of the channels' alphas (each the sum of
/// -x over the nine taps in tap order, taps outside the series skipped), then at each of the
/// kernel's three taps the sum of the channels' 3x.
private func referenceConvolution(_ s: TimeSeries, dilation d: Int, kernel: Int, channels: [Int32]) -> [Float] {
    var taps: [[Int]] = []
    for a in 0..<9 { for b in (a + 1)..<9 { for c in (b + 1)..<9 { taps.append([a, b, c]) } } }
    let three = taps[kernel]
    let n = s.frameCount
    return (0..<n).map { t in
        func at(_ j: Int) -> Int? {
            let u = t + (j - 4) * d
            return u >= 0 && u < n ? u : nil
        }
        var total: Float = 0
        for (i, ch) in channels.enumerated() {
            var alpha: Float = 0
            for j in 0..<9 { if let u = at(j) { alpha = alpha + (-s[u, Int(ch)]) } }
            total = i == 0 ? alpha : total + alpha
        }
        for j in three {
            guard let u = at(j) else { continue }
            var g: Float = 0
            for (i, ch) in channels.enumerated() { g = i == 0 ? 3 * s[u, Int(ch)] : g + 3 * s[u, Int(ch)] }
            total = total + g
        }
        return total
    }
}

/// Walks the reference transform: for each kernel, dilation and bias in feature order, the plain
/// convolution output, the range of outputs counted (all when padded, else those whose taps lie
/// inside the series, all of them when none do) and the bias.
private func forEachReferenceBias(_ s: TimeSeries, _ m: MiniRocket.Model, _ body: ([Float], Range<Int>, Float) -> Void) {
    var c = 0, start = 0, f = 0
    let n = s.frameCount
    for (di, d32) in m.dilations.enumerated() {
        let d = Int(d32)
        for k in 0..<84 {
            let chans = Array(m.channelIndices[start..<(start + Int(m.channelCounts[c]))])
            let conv = referenceConvolution(s, dilation: d, kernel: k, channels: chans)
            let range = m.padded[c] == 1 || n - 8 * d <= 0 ? 0..<n : (4 * d)..<(n - 4 * d)
            for _ in 0..<Int(m.featuresPerDilation[di]) {
                body(conv, range, m.biases[f])
                f += 1
            }
            start += Int(m.channelCounts[c])
            c += 1
        }
    }
}

/// Reference features: PPV of each bias over the counted outputs.
private func referenceFeatures(_ s: TimeSeries, _ m: MiniRocket.Model) -> [Float] {
    var out: [Float] = []
    forEachReferenceBias(s, m) { conv, range, bias in
        let above = range.filter { conv[$0] > bias }.count
        out.append(Float(Double(above) / Double(range.count)))
    }
    return out
}

private func randomSeries(frames: Int, channels: Int, seed: UInt64) -> TimeSeries {
    var g = SeededGenerator(seed: seed)
    // Repeated values (zeros, quarters) make ties with the biases likely; the unrounded ones make
    // the order of the additions matter to the last bit.
    let values = (0..<(frames * channels)).map { i -> Float in
        i % 7 == 0 ? 0 : i % 2 == 0 ? (g.nextGaussian() * 4).rounded() / 4 : g.nextGaussian() * 3.7
    }
    return TimeSeries(values: values, channelCount: channels)
}

@Suite(.serialized) struct MiniRocketTests {
    /// A hand-built model covering every kernel at several dilations, both padding choices, one- to
    /// all-channel combinations, and biases taken from actual outputs so ties are exercised.
    static func model(channels: Int, dilations: [Int32], invertPadding: Bool, series: TimeSeries, seed: UInt64,
                      perDilation: [Int32]? = nil) -> MiniRocket.Model {
        var g = SeededGenerator(seed: seed)
        var counts: [Int32] = [], indices: [Int32] = [], padded: [UInt8] = [], biases: [Float] = []
        let per: [Int32] = perDilation ?? dilations.map { _ in 3 }
        for (di, d) in dilations.enumerated() {
            for k in 0..<84 {
                let count = 1 + Int(g.next() % UInt64(channels))
                let chans = Array((0..<Int32(channels)).shuffled(using: &g).prefix(count))
                counts.append(Int32(count))
                indices.append(contentsOf: chans)
                padded.append(((di + k) % 2 == 0) != invertPadding ? 1 : 0)
                let conv = referenceConvolution(series, dilation: Int(d), kernel: k, channels: chans)
                for q in 0..<Int(per[di]) {
                    switch q % 3 {
                    case 0: biases.append(conv[Int(g.next() % UInt64(conv.count))])
                    case 1: biases.append(conv[Int(g.next() % UInt64(conv.count))] + 0.125)
                    default: biases.append(g.nextGaussian())
                    }
                }
            }
        }
        return MiniRocket.Model(channelNames: TimeSeries.defaultNames(channels), length: series.frameCount,
                                dilations: dilations, featuresPerDilation: per, channelCounts: counts,
                                channelIndices: indices, padded: padded, biases: biases)
    }

    @Test(arguments: [(1, 40), (3, 30), (6, 100), (4, 9), (2, 5)], [false, true])
    func transformMatchesReferenceOnEveryWidth(shape: (Int, Int), invertPadding: Bool) throws {
        let (channels, frames) = shape
        let s = randomSeries(frames: frames, channels: channels, seed: UInt64(channels * 1000 + frames))
        // Dilations from 1 to beyond the series (where unpadded pairs fall back to all outputs).
        let m = Self.model(channels: channels, dilations: [1, 2, 3, 4, 7, 12], invertPadding: invertPadding, series: s,
                           seed: 7)
        try Self.expectReferenceOnEveryWidth(m, s)
    }

    /// The model's features of `s` on every vector width, bit for bit those of the plain reference.
    static func expectReferenceOnEveryWidth(_ m: MiniRocket.Model, _ s: TimeSeries) throws {
        var stage = MiniRocket()
        stage.model = m
        try stage.validate()
        let expected = referenceFeatures(s, m)
        let before = MiniRocket.lanes
        defer { MiniRocket.limitLanes(before) }
        for lanes in [16, 8, 4] {
            MiniRocket.limitLanes(lanes)
            let got = stage.features(of: s)
            #expect(got.count == expected.count)
            let bad = zip(got, expected).enumerated().filter { $0.element.0.bitPattern != $0.element.1.bitPattern }
            #expect(bad.isEmpty, "lanes \(MiniRocket.lanes): \(bad.count) features differ, first \(bad.first.map { "\($0)" } ?? "")")
        }
    }

    /// The transform's one-pass kernel handles 1 to 8 biases per copy and stores the outputs for more;
    /// a dilation's summed channel rows are kept for 16 tuples of at most 7 channels, and built per
    /// kernel past that (12 channels: both).
    @Test(arguments: [(12, 61), (3, 8), (2, 23)])
    func everyBiasCountMatchesReference(shape: (Int, Int)) throws {
        let (channels, frames) = shape
        let s = randomSeries(frames: frames, channels: channels, seed: UInt64(channels * 7 + frames))
        let dilations: [Int32] = [1, 2, 3, 4, 5, 6, 7, 8, 9]
        let m = Self.model(channels: channels, dilations: dilations, invertPadding: false, series: s, seed: 11,
                           perDilation: [1, 2, 3, 4, 5, 6, 7, 9, 23])
        try Self.expectReferenceOnEveryWidth(m, s)
    }

    /// The selection kernel against a plain sort in IEEE total order (-0 below +0): random values
    /// with many ties, zeros of both signs, infinities, all-equal runs and outliers, at sizes around
    /// its small-sort cut-off and its bucket cap.
    @Test func selectionMatchesAPlainSort() {
        var g = SeededGenerator(seed: 42)
        func key(_ v: Float) -> UInt32 { v.sign == .minus ? ~v.bitPattern : v.bitPattern | 0x8000_0000 }
        for trial in 0..<400 {
            let n = [1, 2, 5, 24, 25, 26, 100, 315, 513, 2000][trial % 10]
            let kind = (trial / 10) % 8
            let values: [Float] = (0..<n).map { _ in
                let u = g.next()
                switch kind {
                case 0: return g.nextGaussian()
                case 1: return Float(Int(u % 5)) - 2 == 0 && u & 8 == 0 ? -0.0 : Float(Int(u % 5)) - 2
                case 2: return u % 2 == 0 ? 0.0 : -0.0
                case 3: return 7.25
                case 4: return u % 50 == 0 ? (u & 64 == 0 ? 1e30 : -3e38) : g.nextGaussian()
                case 5: return u % 40 == 0 ? (u & 64 == 0 ? .infinity : -.infinity) : (g.nextGaussian() * 8).rounded()
                case 6: return Float(sign: u & 1 == 0 ? .plus : .minus, exponent: Int(u % 200) - 100, significand: 1)
                default: return u % 3 == 0 ? -0.0 : (g.nextGaussian() * 2).rounded() / 2
                }
            }
            let sorted = values.sorted { key($0) < key($1) }
            var ranks = (0..<(1 + Int(g.next() % 30))).map { _ in Int(g.next() % UInt64(n)) }
            if trial % 9 == 0 { ranks = Array(0..<n) }
            ranks.sort()
            guard let got = MiniRocket.selectRanks(values, ranks) else {
                Issue.record("kind \(kind) n \(n): refused")
                continue
            }
            let bad = zip(ranks, got).filter { sorted[$0.0].bitPattern != $0.1.bitPattern }
            #expect(bad.isEmpty, "kind \(kind) n \(n): \(bad.count) wrong, first \(bad.first.map { "\($0)" } ?? "")")
        }
        #expect(MiniRocket.selectRanks([1, .nan, 2], [0]) == nil, "NaN has no rank")
    }

    /// Fitting through the selection kernel gives the biases of the plain sort, bit for bit: data
    /// sets, series of several lengths, a constant one (all outputs equal) and one with a NaN (its
    /// combinations go the plain way).
    @Test func fitBiasesEqualThePlainSort() throws {
        var sets: [[TimeSeries]] = [Array(try Dataset.load(TestData.basicMotionsTrain).examples.map(\.series))]
        sets.append((0..<9).map { randomSeries(frames: 20 + 37 * $0, channels: 4, seed: UInt64($0)) })
        var odd = (0..<5).map { randomSeries(frames: 64, channels: 2, seed: 100 + UInt64($0)) }
        odd[1] = TimeSeries(values: [Float](repeating: 0, count: 128), channelCount: 2)
        odd[2].values[17] = .nan
        odd[3] = TimeSeries(values: (0..<128).map { Float($0 % 3) - 1 }, channelCount: 2)
        sets.append(odd)
        for (i, series) in sets.enumerated() {
            for features in [84, 1000, 10_000] {
                let length = series.map(\.frameCount).min()!
                let (dilations, per) = MiniRocket.dilations(length: length, features: features, maxDilations: 32)
                var g = SeededGenerator(seed: UInt64(i * 31 + features))
                let combos = 84 * dilations.count
                let channels = series[0].channelCount
                var counts: [Int32] = [], indices: [Int32] = []
                for _ in 0..<combos {
                    let count = 1 + Int(g.next() % UInt64(min(channels, 9)))
                    counts.append(Int32(count))
                    indices.append(contentsOf: (0..<Int32(channels)).shuffled(using: &g).prefix(count))
                }
                let draws = (0..<combos).map { _ in Int(g.next() % UInt64(series.count)) }
                let positions = MiniRocket.quantilePositions(84 * Int(per.reduce(0, +)))
                let fast = MiniRocket.fitBiases(series, draws: draws, dilations: dilations, perDilation: per,
                                                channelCounts: counts, channelIndices: indices, positions: positions)
                let plain = MiniRocket.fitBiases(series, draws: draws, dilations: dilations, perDilation: per,
                                                 channelCounts: counts, channelIndices: indices, positions: positions,
                                                 plain: true)
                let bad = zip(fast, plain).filter { $0.0.bitPattern != $0.1.bitPattern }
                #expect(fast.count == plain.count && bad.isEmpty, "set \(i), \(features) features: \(bad.count) differ")
            }
        }
    }

    @Test func convolutionMatchesReference() {
        let s = randomSeries(frames: 57, channels: 5, seed: 3)
        for d in [1, 2, 5, 9] {
            for k in [0, 1, 40, 83] {
                let chans: [Int32] = [4, 0, 2]
                let got = MiniRocket.convolve(s, dilation: d, kernel: k, channels: chans)
                let want = referenceConvolution(s, dilation: d, kernel: k, channels: chans)
                #expect(got == want, "d \(d) kernel \(k)")
            }
        }
    }

    @Test func dilationsFollowTheLength() {
        for length in [5, 9, 30, 100, 206, 315, 1000] {
            let (d, per) = MiniRocket.dilations(length: length, features: 10_000, maxDilations: 32)
            #expect(d.first == 1)
            #expect(zip(d, d.dropFirst()).allSatisfy { $0 < $1 }, "strictly increasing")
            #expect(d.count <= 32)
            // Largest dilation: the nine taps span at most the series.
            if length >= 9 { #expect(Int(d.last!) * 8 <= length - 1, "length \(length): \(d)") }
            #expect(84 * Int(per.reduce(0, +)) == 84 * (10_000 / 84))
        }
        // Long series reach about (L - 1) / 8.
        #expect(MiniRocket.dilations(length: 1000, features: 10_000, maxDilations: 32).dilations.last! >= 100)
    }

    @Test func fittedBiasesAreTheStatedQuantiles() throws {
        let data = try Dataset.load(TestData.basicMotionsTrain)
        let windows = data.examples.prefix(12).map(\.series)
        var stage = MiniRocket(features: 840, seed: 5)
        try stage.fit(Array(windows), channels: 6, sampleRate: nil)
        let m = try #require(stage.model)
        let phi = (5.0.squareRoot() + 1) / 2
        var f = 0, c = 0, start = 0
        for (di, d) in m.dilations.enumerated() {
            for k in 0..<84 {
                let chans = Array(m.channelIndices[start..<(start + Int(m.channelCounts[c]))])
                let block = Array(m.biases[f..<(f + Int(m.featuresPerDilation[di]))])
                // numpy's linear quantile of some training example's outputs.
                let matches = windows.contains { w in
                    let sorted = referenceConvolution(w, dilation: Int(d), kernel: k, channels: chans).sorted()
                    return block.enumerated().allSatisfy { i, b in
                        let q = (Double(f + i + 1) * phi).truncatingRemainder(dividingBy: 1)
                        let pos = q * Double(sorted.count - 1)
                        let lo = Int(pos), hi = min(lo + 1, sorted.count - 1)
                        let v = Double(sorted[lo]) + (pos - Double(lo)) * (Double(sorted[hi]) - Double(sorted[lo]))
                        return Float(v) == b
                    }
                }
                #expect(matches, "dilation \(d) kernel \(k)")
                f += block.count
                start += Int(m.channelCounts[c])
                c += 1
            }
        }
        #expect(f == stage.featureCount)
        // Channel combinations: 1 to min(channels, 9) distinct channels.
        var s = 0
        for cnt in m.channelCounts {
            let chans = m.channelIndices[s..<(s + Int(cnt))]
            #expect(Set(chans).count == chans.count && (1...6).contains(Int(cnt)))
            s += Int(cnt)
        }
    }

    @Test func fitIsDeterministicForASeed() throws {
        let data = try Dataset.load(TestData.basicMotionsTrain)
        let windows = Array(data.examples.prefix(8).map(\.series))
        var a = MiniRocket(features: 1000, seed: 1), b = MiniRocket(features: 1000, seed: 1), c = MiniRocket(features: 1000, seed: 2)
        try a.fit(windows, channels: 6, sampleRate: nil)
        try b.fit(windows, channels: 6, sampleRate: nil)
        try c.fit(windows, channels: 6, sampleRate: nil)
        #expect(a.model == b.model)
        #expect(a.model?.channelIndices != c.model?.channelIndices)
    }

    @Test func badSavedStateNamesTheField() throws {
        let data = try Dataset.load(TestData.basicMotionsTrain)
        var stage = MiniRocket(features: 168)
        try stage.fit(Array(data.examples.prefix(4).map(\.series)), channels: 6, sampleRate: nil)
        var m = stage.model!
        m.channelIndices[0] = 6
        stage.model = m
        do { try stage.validate(); Issue.record("out-of-range channel accepted") } catch let e as GestureKitError {
            #expect(e.field == "trained.channelIndices")
        }
        #expect(throws: GestureKitError.self) { try TestData.spec(#"{"features": {"extractors": [{"kind": "miniRocket", "features": 10}]}, "classifier": {"kind": "ridge"}}"#) }
    }

    /// The first difference computed by hand: x[t + 1] - x[t] per channel.
    static func handDifference(_ s: TimeSeries) -> TimeSeries {
        guard s.frameCount > 1 else { return TimeSeries(values: [Float](repeating: 0, count: s.channelCount), channelCount: s.channelCount) }
        let frames = (0..<(s.frameCount - 1)).map { t in (0..<s.channelCount).map { c in s[t + 1, c] - s[t, c] } }
        return TimeSeries(frames: frames)
    }

    /// With `difference`, the features are the series' half then the hand-differenced series' half,
    /// each bit for bit the plain reference of its fitted model, on every width, on whole examples and
    /// on windows shorter than the training length (down to one frame).
    @Test func differenceHalfIsTheReferenceOfTheDifferencedSeries() throws {
        let data = try Dataset.load(TestData.basicMotionsTrain)
        let windows = Array(data.examples.prefix(10).map(\.series))
        var stage = MiniRocket(features: 1000, seed: 3, difference: true)
        try stage.fit(windows, channels: 6, sampleRate: nil)
        let m = try #require(stage.model), dm = try #require(stage.differenceModel)
        #expect(m.biases.count == 84 * (500 / 84) && dm.biases.count == 84 * (500 / 84))
        #expect(stage.featureCount == m.biases.count + dm.biases.count && stage.featureNames.count == stage.featureCount)
        #expect(dm.length == m.length - 1 && m.channelIndices != dm.channelIndices)
        // The series' half is the plain MiniRocket of half the features.
        var plain = MiniRocket(features: 500, seed: 3)
        try plain.fit(windows, channels: 6, sampleRate: nil)
        #expect(plain.model == m)
        let before = MiniRocket.lanes
        defer { MiniRocket.limitLanes(before) }
        for s in [data.examples[20].series, windows[0].frames(0..<37), windows[1].frames(5..<7), windows[2].frames(3..<4)] {
            let expected = referenceFeatures(s, m) + referenceFeatures(Self.handDifference(s), dm)
            for lanes in [16, 8, 4] {
                MiniRocket.limitLanes(lanes)
                let got = stage.features(of: s)
                #expect(got.map(\.bitPattern) == expected.map(\.bitPattern), "lanes \(MiniRocket.lanes), \(s.frameCount) frames")
            }
        }
    }

    /// MultiRocket's four pools from the plain reference convolution: PPV, mean of the outputs above
    /// the bias minus it, mean index (from the counted range's start) of those, longest run of them.
    static func referencePools(_ s: TimeSeries, _ m: MiniRocket.Model) -> [Float] {
        var out: [Float] = []
        forEachReferenceBias(s, m) { conv, range, b in
            let positive = range.filter { conv[$0] > b }
            var sum: Float = 0
            for t in positive { sum += conv[t] - b }
            var longest = 0, run = 0
            for t in range { run = conv[t] > b ? run + 1 : 0; longest = max(longest, run) }
            out.append(Float(Double(positive.count) / Double(range.count)))
            out.append(positive.isEmpty ? 0 : sum / Float(positive.count))
            out.append(positive.isEmpty ? -1 : Float(Double(positive.map { $0 - range.lowerBound }.reduce(0, +)) / Double(positive.count)))
            out.append(Float(longest))
        }
        return out
    }

    /// With `multiPooling` (alone and with `difference`), four features per bias, bit for bit the plain
    /// reference on every width, whole examples and short windows; the biases are those of a plain
    /// MiniRocket of a quarter the features; the settings survive a save and load.
    @Test(arguments: [false, true]) func multiPoolingIsTheReference(difference: Bool) throws {
        let data = try Dataset.load(TestData.basicMotionsTrain)
        let windows = Array(data.examples.prefix(10).map(\.series))
        var stage = MiniRocket(features: 2000, seed: 4, difference: difference, multiPooling: true)
        try stage.fit(windows, channels: 6, sampleRate: nil)
        let m = try #require(stage.model)
        var plain = MiniRocket(features: difference ? 250 : 500, seed: 4)
        try plain.fit(windows, channels: 6, sampleRate: nil)
        #expect(plain.model == m)
        #expect(stage.featureCount == 4 * (m.biases.count + (stage.differenceModel?.biases.count ?? 0)))
        #expect(stage.featureNames.count == stage.featureCount && stage.featureNames[1].hasPrefix("mpv("))
        let back = try StageTesting.roundTrip(stage)
        #expect(back.multiPooling && back.difference == difference && back.model == m)
        let before = MiniRocket.lanes
        defer { MiniRocket.limitLanes(before) }
        for s in [data.examples[20].series, windows[0].frames(0..<37), windows[1].frames(5..<7), windows[2].frames(3..<4)] {
            var expected = Self.referencePools(s, m)
            if let dm = stage.differenceModel { expected += Self.referencePools(Self.handDifference(s), dm) }
            for lanes in [16, 8, 4] {
                MiniRocket.limitLanes(lanes)
                #expect(stage.features(of: s).map(\.bitPattern) == expected.map(\.bitPattern), "lanes \(MiniRocket.lanes), \(s.frameCount) frames")
                #expect(back.features(of: s).map(\.bitPattern) == expected.map(\.bitPattern))
            }
        }
    }

    /// The channels laid end to end by hand: channel c's frame t at c * frames + t, one channel.
    static func handEndToEnd(_ s: TimeSeries) -> TimeSeries {
        let n = s.frameCount
        return TimeSeries(values: (0..<(n * s.channelCount)).map { s[$0 % n, $0 / n] }, channelCount: 1)
    }

    /// With `concatenate` (alone, with `multiPooling`, with `difference`), the model is the one-channel
    /// MiniRocket of the series laid end to end by hand, and its features are that reference's bits on
    /// every width, on whole examples and short windows, before and after a save and load.
    @Test(arguments: [(false, false), (true, false), (true, true)])
    func concatenateIsTheReferenceOfTheChannelsLaidEndToEnd(pools: Bool, difference: Bool) throws {
        let data = try Dataset.load(TestData.basicMotionsTrain)
        let windows = Array(data.examples.prefix(10).map(\.series))
        var stage = MiniRocket(features: 2000, seed: 4, difference: difference, multiPooling: pools, concatenate: true)
        try stage.fit(windows, channels: 6, sampleRate: nil)
        let m = try #require(stage.model)
        #expect(m.concatenated && m.channelNames.count == 6 && m.length == 6 * windows.map(\.frameCount).min()!)
        #expect(m.channelIndices.allSatisfy { $0 == 0 } && m.dilations.max()! > 32)
        var laid = MiniRocket(features: 2000, seed: 4, difference: false, multiPooling: pools)
        try laid.fit(windows.map(Self.handEndToEnd), channels: 1, sampleRate: nil)
        if !difference {
            var expectedModel = try #require(laid.model)
            expectedModel.channelNames = m.channelNames
            expectedModel.concatenated = true
            #expect(expectedModel == m)
        }
        let back = try StageTesting.roundTrip(stage)
        #expect(back.concatenate && back.model == m && back.differenceModel == stage.differenceModel)
        let before = MiniRocket.lanes
        defer { MiniRocket.limitLanes(before) }
        let reference = { (s: TimeSeries, m: MiniRocket.Model) in
            pools ? Self.referencePools(Self.handEndToEnd(s), m) : referenceFeatures(Self.handEndToEnd(s), m)
        }
        for s in [data.examples[20].series, windows[0].frames(0..<37), windows[1].frames(5..<7), windows[2].frames(3..<4)] {
            var expected = reference(s, m)
            if let dm = stage.differenceModel { expected += reference(Self.handDifference(s), dm) }
            for lanes in [16, 8, 4] {
                MiniRocket.limitLanes(lanes)
                #expect(stage.features(of: s).map(\.bitPattern) == expected.map(\.bitPattern), "lanes \(MiniRocket.lanes), \(s.frameCount) frames")
                #expect(back.features(of: s).map(\.bitPattern) == expected.map(\.bitPattern))
            }
        }
        // One channel laid end to end is itself: the same features, and the flag survives a save.
        let single = windows.map(Self.handEndToEnd)
        var one = MiniRocket(features: 500, seed: 4, concatenate: true), plain = MiniRocket(features: 500, seed: 4)
        try one.fit(single, channels: 1, sampleRate: nil)
        try plain.fit(single, channels: 1, sampleRate: nil)
        #expect(try StageTesting.roundTrip(one).model == one.model && one.model?.concatenated == true)
        #expect(one.features(of: single[3]).map(\.bitPattern) == plain.features(of: single[3]).map(\.bitPattern))
        // The transform sees one channel: an index past it is refused.
        var bad = stage
        var bm = m
        bm.channelIndices[0] = 1
        bad.model = bm
        #expect(throws: GestureKitError.self) { try bad.validate() }
    }

    /// Long series (padding edges of 4 x 49 frames), lengths that end inside a vector, and many biases
    /// per dilation: the pooled transform still gives the reference's bits on every width.
    @Test func multiPoolingOfLongSeriesAndManyBiasesIsTheReference() throws {
        let data = try Dataset.load(TestData.basicMotionsTrain)
        let windows = (0..<4).map { i in
            TimeSeries(values: data.examples[4 * i..<4 * i + 4].flatMap(\.series.values), channelCount: 6)
        }
        let long = windows[0]
        // Two dilations for 400 frames (the larger pads 4 x 49 frames), each with about 12 biases per kernel.
        var stage = MiniRocket(features: 8000, maxDilations: 2, seed: 7, multiPooling: true)
        try stage.fit(windows, channels: 6, sampleRate: nil)
        let m = try #require(stage.model)
        #expect(m.featuresPerDilation.allSatisfy { $0 > 8 } && m.dilations.contains { $0 > 16 })
        let before = MiniRocket.lanes
        defer { MiniRocket.limitLanes(before) }
        for s in [long, long.frames(0..<129), long.frames(7..<71), long.frames(3..<68), long.frames(0..<9)] {
            let expected = Self.referencePools(s, m)
            for lanes in [16, 8, 4] {
                MiniRocket.limitLanes(lanes)
                #expect(stage.features(of: s).map(\.bitPattern) == expected.map(\.bitPattern), "lanes \(MiniRocket.lanes), \(s.frameCount) frames")
            }
        }
    }

    /// The difference half survives a save and load; a file without the key loads as plain MiniRocket,
    /// and a half without its flag (or the flag without its half) is refused.
    @Test func differenceRoundTripsAndOldFilesLoadAsBefore() throws {
        let data = try Dataset.load(TestData.basicMotionsTrain)
        let windows = Array(data.examples.prefix(6).map(\.series))
        var stage = MiniRocket(features: 336, seed: 2, difference: true)
        try stage.fit(windows, channels: 6, sampleRate: nil)
        let back = try StageTesting.roundTrip(stage)
        #expect(back.difference && back.model == stage.model && back.differenceModel == stage.differenceModel)
        #expect(back.features(of: windows[3]).map(\.bitPattern) == stage.features(of: windows[3]).map(\.bitPattern))

        var old = MiniRocket(features: 336, seed: 2)
        try old.fit(windows, channels: 6, sampleRate: nil)
        let json = String(decoding: try StageTesting.json(old), as: UTF8.self)
        #expect(!json.contains("difference") && !json.contains("concatenate"))
        let decoded = try #require(StageTesting.decode(json.replacingOccurrences(of: "{", with: #"{"kind":"miniRocket","#, options: [], range: json.startIndex..<json.index(after: json.startIndex)),
                                                       StageKinds.featureExtractors, role: "feature extractor") as? MiniRocket)
        #expect(!decoded.difference && !decoded.concatenate && decoded.differenceModel == nil && decoded.model == old.model)
        #expect(decoded.features(of: windows[1]) == old.features(of: windows[1]))

        var orphan = old
        orphan.differenceModel = stage.differenceModel
        #expect(throws: GestureKitError.self) { try orphan.validate() }
        var missing = stage
        missing.differenceModel = nil
        #expect(throws: GestureKitError.self) { try missing.validate() }
    }

    @Test func basicMotionsTrainToTestIsPerfect() throws {
        let spec = try DefaultSpecs.build(classifier: "minirocket", specFile: nil)
        let p = try Pipeline.train(spec, on: try Dataset.load(TestData.basicMotionsTrain))
        let report = try Evaluation.evaluate(p, on: try Dataset.load(TestData.basicMotionsTest)).report
        #expect(report.accuracy == 1.0)
    }
}

/// A live windowed MiniRocket pipeline decides every hop, and each decision is the features of that
/// window classified from scratch.
@Suite struct MiniRocketLiveTests {
    @Test func liveDecisionsEqualWholeWindowPredictions() throws {
        let spec = try DefaultSpecs.build(classifier: "minirocket", specFile: nil, overrides: .init(window: PipelineSpec.Window(size: 30, hop: 10)))
        let p = try Pipeline.train(spec, on: ClassifierConformanceTests.train)
        guard case .vector(let classifier) = p.spec.classifier else { Issue.record("expected a vector classifier"); return }
        let extractor = try #require(p.spec.extractors.first)
        for e in ClassifierConformanceTests.test.examples.prefix(4) {
            var r = p.recognizer()
            var decisions = 0
            for f in 0..<e.series.frameCount {
                _ = try r.push(Array(e.series.frame(f)))
                guard f + 1 >= 30, (f + 1 - 30) % 10 == 0 else { continue }
                let expected = classifier.predict(extractor.features(of: e.series.frames((f - 29)..<(f + 1))))
                #expect(r.lastRawDecision?.scores == expected.scores, "frame \(f)")
                decisions += 1
            }
            #expect(decisions == 8)
        }
    }
}

@Suite struct RidgeClassifierTests {
    /// Solves (A^T A + alpha I) beta = A^T y for centred A by Gaussian elimination with partial pivoting.
    static func ridgeFit(_ rows: [[Double]], _ y: [Double], alpha: Double) -> (beta: [Double], intercept: Double) {
        let n = rows.count, p = rows[0].count
        let mean = (0..<p).map { j in rows.reduce(0) { $0 + $1[j] } / Double(n) }
        let ym = y.reduce(0, +) / Double(n)
        var a = [[Double]](repeating: [Double](repeating: 0, count: p + 1), count: p)
        for i in 0..<p {
            for j in 0..<p { a[i][j] = (0..<n).reduce(0) { $0 + (rows[$1][i] - mean[i]) * (rows[$1][j] - mean[j]) } }
            a[i][i] += alpha
            a[i][p] = (0..<n).reduce(0) { $0 + (rows[$1][i] - mean[i]) * (y[$1] - ym) }
        }
        for col in 0..<p {
            let piv = (col..<p).max { abs(a[$0][col]) < abs(a[$1][col]) }!
            a.swapAt(col, piv)
            for r in 0..<p where r != col {
                let f = a[r][col] / a[col][col]
                for j in col...p { a[r][j] -= f * a[col][j] }
            }
        }
        let beta = (0..<p).map { a[$0][p] / a[$0][$0] }
        return (beta, ym - zip(mean, beta).reduce(0) { $0 + $1.0 * $1.1 })
    }

    @Test(arguments: [(14, 4), (9, 23)], [0.001, 0.1, 10.0])
    func leaveOneOutMatchesAnExplicitLoop(shape: (Int, Int), alpha: Double) throws {
        let (n, p) = shape
        let k = 3
        var g = SeededGenerator(seed: UInt64(n * p))
        let rows = (0..<n).map { _ in (0..<p).map { _ in Double(g.nextGaussian()) } }
        let y = (0..<(n * k)).map { _ in Double(g.nextGaussian()) }
        let solver = try RidgeSolver(design: rows.flatMap { $0 }, rows: n, columns: p, targets: y, outputs: k)
        let loo = solver.looDecisions(alpha: alpha)
        var error = 0.0
        for i in 0..<n {
            let others = (0..<n).filter { $0 != i }
            for c in 0..<k {
                let fit = Self.ridgeFit(others.map { rows[$0] }, others.map { y[$0 * k + c] }, alpha: alpha)
                let want = fit.intercept + zip(rows[i], fit.beta).reduce(0) { $0 + $1.0 * $1.1 }
                #expect(abs(loo[i * k + c] - want) <= 1e-6 * max(1, abs(want)), "row \(i) output \(c)")
                error += (y[i * k + c] - want) * (y[i * k + c] - want)
            }
        }
        #expect(abs(solver.looError(alpha: alpha) - error) <= 1e-6 * error)
        // The full fit equals the normal-equations solution.
        let (w, b) = solver.coefficients(alpha: alpha)
        for c in 0..<k {
            let fit = Self.ridgeFit(rows, (0..<n).map { y[$0 * k + c] }, alpha: alpha)
            for j in 0..<p { #expect(abs(w[c * p + j] - fit.beta[j]) <= 1e-6 * max(1, abs(fit.beta[j]))) }
            #expect(abs(b[c] - fit.intercept) <= 1e-6 * max(1, abs(fit.intercept)))
        }
    }

    @Test(arguments: [(14, 4), (9, 23)])
    func foldDecisionsMatchExplicitRefits(shape: (Int, Int)) throws {
        let (n, p) = shape
        let k = 2, folds = 3
        let alphas = [0.01, 1.0, 30.0]
        var g = SeededGenerator(seed: UInt64(7 * n + p))
        let rows = (0..<n).map { _ in (0..<p).map { _ in Double(g.nextGaussian()) } }
        let y = (0..<(n * k)).map { _ in Double(g.nextGaussian()) }
        let fold = (0..<n).map { ($0 * 5 + 1) % folds }
        let got = try RidgeSolver.foldDecisions(design: rows.flatMap { $0 }, rows: n, columns: p, targets: y, outputs: k,
                                                fold: fold, folds: folds, alphas: alphas)
        for (a, alpha) in alphas.enumerated() {
            for f in 0..<folds {
                let others = (0..<n).filter { fold[$0] != f }
                for c in 0..<k {
                    let fit = Self.ridgeFit(others.map { rows[$0] }, others.map { y[$0 * k + c] }, alpha: alpha)
                    for i in (0..<n) where fold[i] == f {
                        let want = fit.intercept + zip(rows[i], fit.beta).reduce(0) { $0 + $1.0 * $1.1 }
                        #expect(abs(got[a][i * k + c] - want) <= 1e-6 * max(1, abs(want)), "alpha \(alpha) row \(i) output \(c)")
                    }
                }
            }
        }
    }

    @Test func groupsAreDealtWholeIntoFolds() throws {
        let groups: [String?] = ["u1", "u1", "u2", "u3", "u2", "u4", "u3", "u1"]
        let auto = RidgeClassifier(folds: 3)
        let (fold, count) = try #require(try auto.heldOutGroups(groups, count: groups.count))
        #expect(count == 3)
        for g in Set(groups.compactMap { $0 }) {
            #expect(Set(groups.indices.filter { groups[$0] == g }.map { fold[$0] }).count == 1, "group \(g) split")
        }
        #expect(Set(fold) == [0, 1, 2])
        // Fewer folds than groups asked: one fold per group.
        #expect(try RidgeClassifier(folds: 9).heldOutGroups(groups, count: groups.count)?.count == 4)
        // auto needs three groups; groups needs two; leave-one-out ignores them.
        #expect(try auto.heldOutGroups(["a", "b", "a"], count: 3) == nil)
        #expect(try auto.heldOutGroups([], count: 3) == nil)
        #expect(try RidgeClassifier(selection: .groups).heldOutGroups(["a", "b", "a"], count: 3)?.count == 2)
        #expect(throws: GestureKitError.self) { try RidgeClassifier(selection: .groups).heldOutGroups(["a", "a"], count: 2) }
        #expect(throws: GestureKitError.self) { try RidgeClassifier(selection: .groups).heldOutGroups([], count: 2) }
        #expect(try RidgeClassifier(selection: .leaveOneOut).heldOutGroups(groups, count: groups.count) == nil)
    }

    @Test func groupFoldsRegulariseMoreWhenGroupsHaveTheirOwnLook() throws {
        // Each group (a user) adds its own offset to every vector and mostly does one class, so
        // leave-one-out rewards memorising the offsets; held-out groups do not.
        var g = SeededGenerator(seed: 5)
        let p = 40, groupCount = 12, perGroup = 30
        var vectors: [[Float]] = [], labels: [Int] = [], groups: [String?] = []
        for u in 0..<groupCount {
            let offset = (0..<p).map { _ in 2 * g.nextGaussian() }
            for i in 0..<perGroup {
                let label = i < perGroup * 4 / 5 ? u % 2 : 1 - u % 2
                vectors.append((0..<p).map { j in offset[j] + 0.1 * g.nextGaussian() + (j == 0 ? Float(label) - 0.5 : 0) })
                labels.append(label)
                groups.append("user\(u)")
            }
        }
        var loo = RidgeClassifier(selection: .leaveOneOut), grouped = RidgeClassifier()
        try loo.train(vectors, labels: labels, classes: ["a", "b"])
        try grouped.train(vectors, labels: labels, classes: ["a", "b"], context: TrainingContext(groups: groups))
        let a = try #require(loo.model), b = try #require(grouped.model)
        #expect(a.chosenBy == "leave-one-out" && b.chosenBy == "5 folds of groups")
        #expect(b.alpha > a.alpha, "grouped alpha \(b.alpha) vs leave-one-out \(a.alpha)")
        // Without groups in the context, auto is leave-one-out.
        var plain = RidgeClassifier()
        try plain.train(vectors, labels: labels, classes: ["a", "b"])
        #expect(plain.model?.alpha == a.alpha && plain.model?.chosenBy == "leave-one-out")
    }

    @Test func selectionAndFoldsRoundTripAndOldFilesLoad() throws {
        var ridge = RidgeClassifier(alphas: [1, 10], selection: .groups, folds: 3)
        try ridge.train([[0, 1], [1, 0], [0, 2], [2, 0]], labels: [0, 1, 0, 1], classes: ["a", "b"],
                        context: TrainingContext(groups: ["u", "v", "w", "v"]))
        let data = try JSONEncoder().encode(ridge)
        let back = try JSONDecoder().decode(RidgeClassifier.self, from: data)
        #expect(back.selection == .groups && back.folds == 3 && back.model == ridge.model)
        #expect(ridge.model?.chosenBy == "3 folds of groups")
        // A file written before `selection` and `chosenBy` existed.
        var old = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        old["selection"] = nil; old["folds"] = nil
        var trained = old["trained"] as! [String: Any]
        trained["chosenBy"] = nil
        old["trained"] = trained
        let legacy = try JSONDecoder().decode(RidgeClassifier.self, from: JSONSerialization.data(withJSONObject: old))
        #expect(legacy.selection == .auto && legacy.folds == 5 && legacy.model?.chosenBy == "leave-one-out")
        #expect(throws: GestureKitError.self) { try TestData.spec(#"{"features": {"extractors": [{"kind": "timeDomain"}]}, "classifier": {"kind": "ridge", "folds": 1}}"#) }
        #expect(throws: (any Error).self) { try TestData.spec(#"{"features": {"extractors": [{"kind": "timeDomain"}]}, "classifier": {"kind": "ridge", "selection": "often"}}"#) }
    }

    @Test func probabilitiesAreCalibratedAndSumToOne() throws {
        // Two overlapping Gaussian classes: held-out confidence should track held-out accuracy.
        var g = SeededGenerator(seed: 11)
        func sample(_ label: Int) -> [Float] { (0..<5).map { j in g.nextGaussian() + (j == 0 ? Float(label) * 1.5 : 0) } }
        let labels = (0..<200).map { $0 % 2 }
        var ridge = RidgeClassifier()
        try ridge.train(labels.map(sample), labels: labels, classes: ["a", "b"])
        let testLabels = (0..<2000).map { $0 % 2 }
        let predictions = testLabels.map { ridge.predict(sample($0)) }
        let accuracy = Double(zip(predictions, testLabels).filter { $0.classIndex == $1 }.count) / 2000
        let meanConfidence = predictions.reduce(0.0) { $0 + Double($1.confidence) } / 2000
        for p in predictions.prefix(20) { #expect(abs(p.scores.reduce(0, +) - 1) < 1e-5) }
        #expect(abs(meanConfidence - accuracy) < 0.05, "confidence \(meanConfidence) vs accuracy \(accuracy)")
    }

    @Test func badInputIsAnError() throws {
        var ridge = RidgeClassifier()
        #expect(throws: GestureKitError.self) { try ridge.train([[1, .nan]], labels: [0], classes: ["a"]) }
        #expect(throws: GestureKitError.self) { try ridge.train([[1, 2], [1]], labels: [0, 0], classes: ["a"]) }
        #expect(throws: GestureKitError.self) { try TestData.spec(#"{"features": {"extractors": [{"kind": "timeDomain"}]}, "classifier": {"kind": "ridge", "alphas": [-1]}}"#) }
    }
}
