import Foundation
import Testing
@testable import GestureKit

@Suite struct FeaturesTests {
    func close(_ a: Float, _ b: Double, _ tol: Double = 1e-5) -> Bool { abs(Double(a) - b) <= tol }

    @Test func timeDomainMatchesHandComputedValues() throws {
        // ch0 = [0, 0, 0, 4]: mean 1, deviations (-1, -1, -1, 3): m2 = 12/4 = 3, m3 = 24/4 = 6,
        //   m4 = 84/4 = 21 -> std sqrt3, skew 6 / 3^1.5 = 1.154701, kurt 21/9 - 3 = -0.666667;
        //   sum x^2 = 16 -> rms 2, energy 16; no sign change; |diffs| 0, 0, 4 -> 4/3.
        // ch1 = [1, -2, 3, 0]: mean 0.5, deviations (0.5, -2.5, 2.5, -0.5): m2 = 13/4 = 3.25, m3 = 0,
        //   m4 = 78.25/4 = 19.5625 -> kurt 19.5625/3.25^2 - 3 = -1.147929; sum x^2 = 14 -> rms
        //   sqrt 3.5; sign changes 1->-2, -2->3 (0 counts as non-negative) -> 2/3; |diffs| 3, 5, 3 -> 11/3.
        let w = TimeSeries(channels: [[0, 0, 0, 4], [1, -2, 3, 0]], channelNames: ["a", "b"])
        var f = TimeDomainFeatures(features: TimeDomainFeature.allCases)
        try f.fit([w], channels: 2, sampleRate: nil)
        #expect(f.featureCount == 22)
        #expect(f.featureNames[0] == "mean(a)" && f.featureNames[11] == "mean(b)" && f.featureNames[21] == "meanAbsoluteDifference(b)")
        let v = f.features(of: w)
        let want: [Double] = [
            1, 3.0.squareRoot(), 0, 4, 4, 2, 16, 1.154701, -0.666667, 0, 4.0 / 3,
            0.5, 3.25.squareRoot(), -2, 3, 5, 3.5.squareRoot(), 14, 0, -1.147929, 2.0 / 3, 11.0 / 3,
        ]
        for (i, (a, b)) in zip(v, want).enumerated() { #expect(close(a, b), "\(f.featureNames[i]): \(a) vs \(b)") }
    }

    @Test func timeDomainEdgeCases() throws {
        var f = TimeDomainFeatures(features: [.std, .skewness, .kurtosis, .zeroCrossingRate])
        try f.fit([], channels: 1, sampleRate: nil)
        #expect(f.featureNames == ["std(ch0)", "skewness(ch0)", "kurtosis(ch0)", "zeroCrossingRate(ch0)"])
        // Constant window: no spread, shape statistics defined as 0; one frame: rates 0.
        #expect(f.features(of: TimeSeries(values: [2, 2, 2], channelCount: 1)) == [0, 0, 0, 0])
        #expect(f.features(of: TimeSeries(values: [5], channelCount: 1)) == [0, 0, 0, 0])
        #expect(f.features(of: TimeSeries(values: [], channelCount: 1)) == [0, 0, 0, 0])
        #expect(f.features(of: TimeSeries(values: [1, .nan, 2], channelCount: 1))[0].isNaN)
    }

    @Test func movementIndexIsGRTsRmsDeviation() throws {
        // [1, -2, 3, 0]: sqrt(13 / 4); [5, 5, 5, 5]: 0 (held still, whatever the offset).
        var m = MovementIndex()
        try m.fit([], channels: 2, sampleRate: nil)
        let v = m.features(of: TimeSeries(channels: [[1, -2, 3, 0], [5, 5, 5, 5]]))
        #expect(close(v[0], 3.25.squareRoot()) && v[1] == 0)
        #expect(m.featureNames == ["movementIndex(ch0)", "movementIndex(ch1)"])
    }

    static let shakeData = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../shared/datasets/grt/WiiAccShakeData.grt").standardizedFileURL

    @Test(.enabled(if: FileManager.default.fileExists(atPath: shakeData.path), TestData.needsShared))
    func movementIndexSeparatesStillFromShakenInGRTData() throws {
        // WiiAccShakeData: the remote is held still and shaken in turns; GRT's own example data.
        let text = try String(contentsOf: Self.shakeData, encoding: .utf8)
        let rows = text.split(separator: "\n").drop { !$0.hasPrefix("LabelledTrainingData") }.dropFirst()
        let frames = rows.map { $0.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().compactMap { Float($0) } }
            .filter { $0.count == 3 }
        #expect(frames.count == 1480)
        let series = TimeSeries(frames: frames)
        var m = MovementIndex()
        try m.fit([], channels: 3, sampleRate: nil)
        // Per-window index (sum over axes), window 10 like GRT's example.
        let index = stride(from: 0, to: series.frameCount - 10, by: 10).map { m.features(of: series.frames($0..<($0 + 10))).reduce(0, +) }
        let sorted = index.sorted()
        // Still windows exist (index near 0) and shaking windows are far above them.
        #expect(sorted[0] < 0.01)
        #expect(sorted[sorted.count - 1] > 20 * max(sorted[sorted.count / 10], 1e-3))
    }

    @Test func realFFTMatchesANaiveDFT() {
        var g = SeededGenerator(seed: 5)
        for n in [1, 2, 4, 8, 64] {
            let x = (0..<n).map { _ in Double(g.nextGaussian()) }
            var power = [Double](repeating: 0, count: n / 2 + 1)
            var scratch = [Double](repeating: 0, count: RealFFT.scratchCount(n))
            x.withUnsafeBufferPointer { xp in
                scratch.withUnsafeMutableBufferPointer { s in
                    power.withUnsafeMutableBufferPointer { RealFFT.powerSpectrum(xp, count: n, scratch: s, power: $0) }
                }
            }
            for k in 0...(n / 2) {
                var re = 0.0, im = 0.0
                for t in 0..<n {
                    re += x[t] * cos(2 * .pi * Double(k * t) / Double(n))
                    im -= x[t] * sin(2 * .pi * Double(k * t) / Double(n))
                }
                #expect(abs(power[k] - (re * re + im * im)) < 1e-9 * max(1, re * re + im * im), "n \(n) k \(k)")
            }
        }
    }

    @Test func fftBandsOfAHandComputedSignal() throws {
        // x = [1, 2, 3, 4], no window, mean kept: X1 = 1 - 2i - 3 + 4i = -2 + 2i (|X1|^2 = 8),
        // X2 = 1 - 2 + 3 - 4 = -2 (4). One-sided energies: 2 * 8 / 4 = 4 (band 0), 4 / 4 = 1 (band 1);
        // with DC (10^2 / 4 = 25) they sum to sum x^2 = 30 (Parseval). Dominant: bin 1 = 1/4 cycle per frame.
        var f = FFTFeatures(bands: 2, windowFunction: .none, removeMean: false)
        try f.fit([], channels: 1, sampleRate: nil)
        #expect(f.featureNames == ["band0(ch0)", "band1(ch0)", "dominantFrequency(ch0)"])
        let v = f.features(of: TimeSeries(values: [1, 2, 3, 4], channelCount: 1))
        #expect(close(v[0], 4) && close(v[1], 1) && v[2] == 0.25)
    }

    @Test func fftFindsTheFrequencyOfASine() throws {
        // 4 Hz at 64 Hz over 64 frames sits exactly on bin 4; with the Hann window its power spreads to
        // bins 3 and 5 only, all inside band 0 = (0, 8] Hz of 4 bands of 8 Hz.
        let rate = 64.0
        func sine(_ f: Double, _ n: Int, _ rate: Double, offset: Float = 0) -> TimeSeries {
            TimeSeries(values: (0..<n).map { offset + Float(sin(2 * .pi * f * Double($0) / rate)) }, channelCount: 1)
        }
        var f = FFTFeatures(bands: 4)
        try f.fit([], channels: 1, sampleRate: rate)
        var v = f.features(of: sine(4, 64, rate, offset: 9.81))  // the offset is removed first
        #expect(v[4] == 4)
        #expect(v[0] > 0.99 * (v[0] + v[1] + v[2] + v[3]))
        // 20 Hz (bins 19-21) lands in band 2, (16, 24] Hz.
        v = f.features(of: sine(20, 64, rate))
        #expect(v[4] == 20 && v[2] > 0.99 * (v[0] + v[1] + v[2] + v[3]))
        // 5 Hz in 50 frames at 50 Hz (padded to 64): the nearest bin, within one bin of 50/64 Hz.
        var g = FFTFeatures(bands: 4, windowFunction: .hamming)
        try g.fit([], channels: 1, sampleRate: 50)
        #expect(abs(g.features(of: sine(5, 50, 50))[4] - 5) <= 50.0 / 64)
        // Without a sample rate: cycles per frame.
        var h = FFTFeatures()
        try h.fit([], channels: 1, sampleRate: nil)
        #expect(h.features(of: sine(8, 64, rate))[4] == 0.125)
        // Degenerate windows do not trap.
        #expect(h.features(of: TimeSeries(values: [], channelCount: 1)) == [0, 0, 0, 0, 0])
        #expect(h.features(of: TimeSeries(values: [3], channelCount: 1)) == [0, 0, 0, 0, 0])
        #expect(h.features(of: TimeSeries(values: [1, .nan, 2, 3], channelCount: 1))[4].isNaN)
    }

    /// 2-D points t (0.6, 0.8) + e (-0.8, 0.6) with t = -2...2 and e = (0.1, -0.1, 0, -0.1, 0.1):
    /// sum t e = 0, so the covariance has eigenvalues var(t) = 10/4 = 2.5 and var(e) = 0.04/4 = 0.01
    /// with axes (0.6, 0.8) and (-0.8, 0.6).
    static let axisData: [[Float]] = zip([-2, -1, 0, 1, 2] as [Float], [0.1, -0.1, 0, -0.1, 0.1] as [Float]).map { t, e in
        [0.6 * t - 0.8 * e, 0.8 * t + 0.6 * e]
    }

    @Test func pcaFindsTheKnownPrincipalAxis() throws {
        var p = PCA()  // default: 95% of the variance -> 1 component (2.5 / 2.51)
        try p.fit(Self.axisData)
        #expect(p.inputCount == 2 && p.outputCount == 1)
        let b = p.basis!
        #expect(abs(b[0] - 0.6) < 1e-5 && abs(b[1] - 0.8) < 1e-5)
        #expect(abs(p.explainedVariance![0] - 2.5) < 1e-5)
        // (3, 4) is 5 along the axis (the mean is 0).
        #expect(abs(p.transform([3, 4])[0] - 5) < 1e-5)
        var q = PCA(components: 2)
        try q.fit(Self.axisData)
        #expect(abs(q.explainedVariance![1] - 0.01) < 1e-5)
        let y = q.transform([-0.8, 0.6])
        #expect(abs(y[0]) < 1e-5 && abs(abs(y[1]) - 1) < 1e-5)
        // Refitting with another configuration replaces the earlier fit.
        q.components = 1
        try q.fit(Self.axisData)
        #expect(q.outputCount == 1)
        var r = PCA(varianceFraction: 0.999)
        try r.fit(Self.axisData)
        #expect(r.outputCount == 2)
        var bad = PCA(components: 3)
        #expect(throws: GestureKitError.self) { try bad.fit(Self.axisData) }
    }

    @Test func scalerMatchesHandValues() throws {
        // Feature 0: 2, 4, 6 -> mean 4, std sqrt(8/3); feature 1: -1, -1, -1 -> scale 1.
        var z = FeatureScaler()
        try z.fit([[2, -1], [4, -1], [6, -1]])
        let y = z.transform([6, 0])
        #expect(abs(y[0] - 2 / Float(8.0 / 3).squareRoot()) < 1e-6 && y[1] == 1)
        var m = FeatureScaler(method: .minmax)
        try m.fit([[2, -1], [4, -1], [6, -1]])
        #expect(m.transform([3, 0]) == [0.25, 1])
    }

    // MARK: conformance

    func checkExtractor<F: FeatureExtractor>(_ unfitted: F) throws {
        var f = unfitted
        let windows = [StageTesting.signal(frames: 40, seed: 1), StageTesting.signal(frames: 33, seed: 2)]
        try f.fit(windows, channels: 3, sampleRate: 50)
        try f.validate()
        #expect(f.featureNames.count == f.featureCount && f.featureCount > 0)
        let input = StageTesting.signal(frames: 37, seed: 3)
        let reference = f.features(of: input)
        #expect(reference.allSatisfy { $0.isFinite })
        let decoded = try StageTesting.roundTrip(f)
        try decoded.validate()
        #expect(decoded.featureNames == f.featureNames)
        #expect(StageTesting.bits(decoded.features(of: input)) == StageTesting.bits(reference), "\(F.kind)")
        var bad = input
        bad[3, 0] = .nan; bad[4, 1] = .infinity
        _ = f.features(of: bad)
        _ = f.features(of: TimeSeries(values: [], channelCount: 3))
    }

    func checkTransform<T: FeatureTransform>(_ unfitted: T) throws {
        var g = SeededGenerator(seed: 8)
        let train = (0..<50).map { _ in (0..<6).map { j in Float(j) + g.nextGaussian() * Float(j + 1) } }
        var t = unfitted
        try t.fit(train)
        try t.validate()
        #expect(t.inputCount == 6 && t.outputCount > 0)
        let x = train[7].map { $0 + 0.5 }
        let decoded = try StageTesting.roundTrip(t)
        try decoded.validate()
        #expect(StageTesting.bits(decoded.transform(x)) == StageTesting.bits(t.transform(x)), "\(T.kind)")
        _ = t.transform([.nan, .infinity, 0, 0, 0, 0])
    }

    @Test func everyFeatureStageConforms() throws {
        try checkExtractor(TimeDomainFeatures(features: TimeDomainFeature.allCases))
        try checkExtractor(FFTFeatures(bands: 5))
        try checkExtractor(MovementIndex())
        try checkTransform(PCA(components: 3))
        try checkTransform(PCA())
        try checkTransform(FeatureScaler())
        try checkTransform(FeatureScaler(method: .minmax))
    }

    @Test(arguments: [
        #"{"kind": "timeDomain"}"#,
        #"{"kind": "timeDomain", "features": ["rms", "kurtosis"]}"#,
        #"{"kind": "fft", "bands": 3, "windowFunction": "none"}"#,
        #"{"kind": "movementIndex"}"#,
    ])
    func handWrittenExtractorSpecs(spec: String) throws {
        guard var f = try StageTesting.decode(spec, StageKinds.featureExtractors, role: "feature") as? any FeatureExtractor else {
            Issue.record("not a feature extractor"); return
        }
        try f.fit([StageTesting.signal()], channels: 3, sampleRate: 50)
        #expect(f.featureCount > 0 && f.features(of: StageTesting.signal(seed: 5)).count == f.featureCount)
    }

    @Test(arguments: [#"{"kind": "pca", "components": 2}"#, #"{"kind": "pca"}"#, #"{"kind": "scale", "method": "minmax"}"#])
    func handWrittenTransformSpecs(spec: String) throws {
        guard var t = try StageTesting.decode(spec, StageKinds.featureTransforms, role: "transform") as? any FeatureTransform else {
            Issue.record("not a transform"); return
        }
        try t.fit(Self.axisData + [[1, 0]])
        #expect(t.outputCount >= 1)
    }

    @Test func badFeatureSpecsNameTheField() {
        func field<T>(_ spec: String, _ types: [T]) -> String? {
            do { _ = try StageTesting.decode(spec, types, role: "stage"); return nil }
            catch let e as GestureKitError { return e.field } catch { return "\(error)" }
        }
        #expect(field(#"{"kind": "timeDomain", "features": ["mean", "median"]}"#, StageKinds.featureExtractors) == "features")
        #expect(field(#"{"kind": "fft", "bands": 0}"#, StageKinds.featureExtractors) == "bands")
        #expect(field(#"{"kind": "fft", "windowFunction": "kaiser"}"#, StageKinds.featureExtractors) == "windowFunction")
        #expect(field(#"{"kind": "pca", "components": 2, "varianceFraction": 0.9}"#, StageKinds.featureTransforms) == "varianceFraction")
        #expect(field(#"{"kind": "pca", "varianceFraction": 1.5}"#, StageKinds.featureTransforms) == "varianceFraction")
        // A basis of the wrong size for the stated inputs.
        #expect(field(#"{"kind": "pca", "inputCount": 2, "mean": "AAAAAAAAAAA=", "basis": "AAAAAA==", "explainedVariance": "AACAPw=="}"#, StageKinds.featureTransforms) == "basis")
    }
}
