import Foundation
import Testing
@testable import GestureKit

/// Known responses of each filter to a step, impulse, ramp, polynomial or sine.
@Suite struct PreprocessingTests {
    /// One channel through a fitted stage.
    func filtered<P: Preprocessor>(_ stage: P, _ x: [Float], rate: Double? = nil) throws -> [Float] {
        var s = stage
        let series = TimeSeries(values: x, channelCount: 1, sampleRate: rate)
        try s.fit([series], channels: 1, sampleRate: rate)
        return s.apply(to: series).values
    }

    /// Amplitude of the component at `f` cycles/sample in `y[from...]`, by projecting onto sin and cos
    /// over a whole number of periods (exact for a pure sinusoid of that frequency).
    func amplitude(_ y: [Float], cyclesPerSample f: Double, from start: Int, periods: Int) -> Double {
        let n = Int((Double(periods) / f).rounded())
        var a = 0.0, b = 0.0
        for i in 0..<n {
            let phase = 2 * Double.pi * f * Double(start + i)
            a += Double(y[start + i]) * sin(phase)
            b += Double(y[start + i]) * cos(phase)
        }
        return 2 * (a * a + b * b).squareRoot() / Double(n)
    }

    func sine(_ f: Double, rate: Double, count: Int) -> [Float] {
        (0..<count).map { Float(sin(2 * Double.pi * f * Double($0) / rate)) }
    }

    /// Digital Butterworth magnitude after the bilinear transform with pre-warping.
    func butterworth(_ f: Double, cutoff fc: Double, rate: Double, order: Int, highPass: Bool = false) -> Double {
        let r = tan(Double.pi * f / rate) / tan(Double.pi * fc / rate)
        return 1 / (1 + pow(highPass ? 1 / r : r, Double(2 * order))).squareRoot()
    }

    @Test func movingAverageOfAStepRampsLinearly() throws {
        // Window 4, step 0 -> 1 at frame 5: outputs 1/4, 2/4, 3/4 then 1 (exact in binary).
        let x: [Float] = [0, 0, 0, 0, 0] + [Float](repeating: 1, count: 8)
        let y = try filtered(MovingAverage(window: 4), x)
        #expect(y == [0, 0, 0, 0, 0, 0.25, 0.5, 0.75, 1, 1, 1, 1, 1])
    }

    @Test func movingAverageStartsAtTheFirstValueAndWorksPerChannel() throws {
        // Two channels: a constant 3 (no start-up ramp) and an impulse of 6 (spread as 6/3 over 3 frames).
        var s = MovingAverage(window: 3)
        let series = TimeSeries(frames: [[3, 0], [3, 6], [3, 0], [3, 0], [3, 0]])
        try s.fit([series], channels: 2, sampleRate: nil)
        #expect(s.apply(to: series).values == [3, 0, 3, 2, 3, 2, 3, 2, 3, 0])
    }

    @Test func lowPassFollowsTheButterworthResponse() throws {
        let rate = 100.0, fc = 2.0
        for order in [2, 4] {
            // At 10 fc: attenuated by the (pre-warped) Butterworth factor, about 1/133 for order 2.
            let high = try filtered(LowPass(cutoff: fc, order: order), sine(10 * fc, rate: rate, count: 1200), rate: rate)
            let gHigh = amplitude(high, cyclesPerSample: 10 * fc / rate, from: 600, periods: 100)
            let want = butterworth(10 * fc, cutoff: fc, rate: rate, order: order)
            #expect(abs(gHigh - want) < 0.02 * want, "order \(order): \(gHigh) vs \(want)")
            #expect(gHigh < 1 / pow(10, Double(order)))  // below the analogue bound 10^-order
            // At fc: -3 dB exactly.
            let mid = try filtered(LowPass(cutoff: fc, order: order), sine(fc, rate: rate, count: 2000), rate: rate)
            #expect(abs(amplitude(mid, cyclesPerSample: fc / rate, from: 1000, periods: 20) - 0.5.squareRoot()) < 1e-3)
            // At fc/10: passed (gain 1 - 5e-5 for order 2).
            let low = try filtered(LowPass(cutoff: fc, order: order), sine(fc / 10, rate: rate, count: 6000), rate: rate)
            let gLow = amplitude(low, cyclesPerSample: fc / 10 / rate, from: 1000, periods: 10)
            #expect(abs(gLow - butterworth(fc / 10, cutoff: fc, rate: rate, order: order)) < 2e-3)
        }
    }

    @Test func highPassIsTheMirror() throws {
        let rate = 100.0, fc = 2.0
        let high = try filtered(HighPass(cutoff: fc), sine(10 * fc, rate: rate, count: 1200), rate: rate)
        let gHigh = amplitude(high, cyclesPerSample: 10 * fc / rate, from: 600, periods: 100)
        #expect(abs(gHigh - butterworth(10 * fc, cutoff: fc, rate: rate, order: 2, highPass: true)) < 1e-3)
        #expect(gHigh > 0.999)
        let mid = try filtered(HighPass(cutoff: fc), sine(fc, rate: rate, count: 2000), rate: rate)
        #expect(abs(amplitude(mid, cyclesPerSample: fc / rate, from: 1000, periods: 20) - 0.5.squareRoot()) < 1e-3)
        let low = try filtered(HighPass(cutoff: fc), sine(fc / 10, rate: rate, count: 6000), rate: rate)
        let gLow = amplitude(low, cyclesPerSample: fc / 10 / rate, from: 1000, periods: 10)
        let want = butterworth(fc / 10, cutoff: fc, rate: rate, order: 2, highPass: true)  // ~0.01
        #expect(abs(gLow - want) < 0.02 * want, "\(gLow) vs \(want)")
    }

    @Test func normalizedCutoffNeedsNoSampleRate() throws {
        // normalizedCutoff 0.04 of Nyquist at 100 Hz is 2 Hz: same filter as cutoff 2.
        let x = sine(7, rate: 100, count: 300)
        let a = try filtered(LowPass(normalizedCutoff: 0.04), x, rate: nil)
        let b = try filtered(LowPass(cutoff: 2), x, rate: 100)
        for (u, v) in zip(a, b) { #expect(abs(u - v) < 1e-6) }
    }

    @Test func hzCutoffWithoutSampleRateIsAnError() {
        var s = LowPass(cutoff: 5)
        #expect(throws: GestureKitError.self) {
            try s.fit([TimeSeries(values: [1, 2, 3], channelCount: 1)], channels: 1, sampleRate: nil)
        }
        var h = HighPass(cutoff: 5, sampleRate: 100)  // a rate in the spec is enough
        #expect(throws: Never.self) { try h.fit([], channels: 1, sampleRate: nil) }
    }

    @Test func iirFiltersStartInSteadyState() throws {
        // Gravity held constant: the low-pass passes it from frame 0, the high-pass removes it.
        let g = [Float](repeating: 9.81, count: 50)
        for y in try filtered(LowPass(cutoff: 1, order: 3), g, rate: 50) { #expect(abs(y - 9.81) < 1e-5) }
        for y in try filtered(HighPass(cutoff: 1, order: 3), g, rate: 50) { #expect(abs(y) < 1e-5) }
    }

    @Test func medianRemovesAnImpulseAndDelaysAStep() throws {
        var x = [Float](repeating: 1, count: 20)
        x[10] = 100
        #expect(try filtered(MedianFilter(window: 5), x) == [Float](repeating: 1, count: 20))
        // Two-sample spike also vanishes with window 5 (needs 3 of 5).
        x[11] = -50
        #expect(try filtered(MedianFilter(window: 5), x) == [Float](repeating: 1, count: 20))
        // A step 0 -> 1 at frame 6 shows once 3 of the last 5 are 1: from frame 8.
        let step = [Float](repeating: 0, count: 6) + [Float](repeating: 1, count: 6)
        #expect(try filtered(MedianFilter(window: 5), step) == [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1])
        // Even window: mean of the two middle values. Window 2 on [0, 4, 8] -> [0, 2, 6].
        #expect(try filtered(MedianFilter(window: 2), [0, 4, 8]) == [0, 2, 6])
    }

    @Test func medianMatchesSortingOnNoise() throws {
        var g = SeededGenerator(seed: 11)
        let x = (0..<300).map { _ in Float(Int(g.nextUnit() * 10)) }  // many ties
        let y = try filtered(MedianFilter(window: 7), x)
        for n in 6..<x.count {
            let w = x[(n - 6)...n].sorted()
            #expect(y[n] == w[3])
        }
    }

    @Test func derivativeOfARampIsItsSlope() throws {
        // x(t) = 3 t sampled at 50 Hz: derivative 3 per second (first frame 0: no history yet).
        let rate = 50.0
        let ramp = (0..<40).map { Float(3 * Double($0) / rate) }
        let d = try filtered(Derivative(), ramp, rate: rate)
        #expect(d[0] == 0)
        for v in d.dropFirst() { #expect(abs(v - 3) < 1e-4) }
        // Without a sample rate, per frame: slope 3/50.
        for v in try filtered(Derivative(), ramp).dropFirst() { #expect(abs(v - 0.06) < 1e-6) }
        // Second derivative of t^2 is 2.
        let parabola = (0..<40).map { Float(pow(Double($0) / rate, 2)) }
        let d2 = try filtered(Derivative(order: 2), parabola, rate: rate)
        for v in d2.dropFirst(2) { #expect(abs(v - 2) < 0.02) }
    }

    @Test func deadZoneMatchesHandValues() throws {
        // lower -0.1, upper 0.1: inside -> 0, outside shifted by the crossed limit.
        let y = try filtered(DeadZone(lower: -0.1, upper: 0.1), [-0.5, -0.1, 0, 0.05, 0.1, 0.3])
        let want: [Float] = [-0.4, 0, 0, 0, 0, 0.2]
        for (a, b) in zip(y, want) { #expect(abs(a - b) < 1e-6) }
    }

    @Test func savitzkyGolayHasTheTabulatedWeights() {
        // Classic table: window 5, quadratic: (-3, 12, 17, 12, -3) / 35.
        let w = SavitzkyGolay(window: 5, polynomialOrder: 2).weights
        let want: [Float] = [-3, 12, 17, 12, -3].map { $0 / 35 }
        for (a, b) in zip(w, want) { #expect(abs(a - b) < 1e-6) }
        // End point of a straight line fitted to 3 points: (-1/6, 1/3, 5/6) (hand-derived).
        let e = SavitzkyGolay(window: 3, polynomialOrder: 1, mode: .endpoint).weights
        for (a, b) in zip(e, [-1.0 / 6, 1.0 / 3, 5.0 / 6] as [Float]) { #expect(abs(a - b) < 1e-6) }
        // Order 0 is a moving average.
        #expect(SavitzkyGolay(window: 3, polynomialOrder: 0).weights.allSatisfy { abs($0 - 1.0 / 3) < 1e-7 })
    }

    @Test func savitzkyGolayPreservesPolynomialsOfItsOrder() throws {
        // Centred, window 7, cubic: output at n is x[n - 3] once the window holds real data.
        let cubic = (0..<30).map { t -> Float in let u = Float(t) / 10; return 0.5 * u * u * u - u * u + 2 * u - 1 }
        let y = try filtered(SavitzkyGolay(window: 7, polynomialOrder: 3), cubic)
        #expect(SavitzkyGolay(window: 7, polynomialOrder: 3).delay == 3)
        for n in 6..<cubic.count { #expect(abs(y[n] - cubic[n - 3]) < 1e-4, "frame \(n)") }
        // End point, window 6, quadratic: no delay.
        let quad = (0..<30).map { t -> Float in let u = Float(t) / 10; return 3 * u * u - u + 0.25 }
        let e = try filtered(SavitzkyGolay(window: 6, polynomialOrder: 2, mode: .endpoint), quad)
        for n in 5..<quad.count { #expect(abs(e[n] - quad[n]) < 1e-4, "frame \(n)") }
        // A centred quadratic fit also keeps cubics (odd terms cancel by symmetry), but not a quartic:
        // for u^4 the error is sum h_i t_i^4 = -72/7 * step^4 (window 7 weights, hand-evaluated) -> -0.10 here.
        let quartic = (0..<30).map { t -> Float in let u = Float(t) / 10; return 100 * u * u * u * u }
        let q = try filtered(SavitzkyGolay(window: 7, polynomialOrder: 2), quartic)
        let c = try filtered(SavitzkyGolay(window: 7, polynomialOrder: 2), cubic)
        for n in 6..<cubic.count {
            #expect(abs(c[n] - cubic[n - 3]) < 1e-4)
            #expect(abs((q[n] - quartic[n - 3]) - (-72.0 / 7 * 100 / 10_000)) < 5e-3, "frame \(n)")
        }
    }

    @Test func normalizerFitsOnTrainingData() throws {
        // Channel 0: 1, 3, 5 -> mean 3, population std sqrt(8/3); channel 1 constant 10 -> scale 1.
        let train = TimeSeries(frames: [[1, 10], [3, 10], [5, 10]])
        var z = Normalizer()
        try z.fit([train], channels: 2, sampleRate: nil)
        let y = z.apply(to: TimeSeries(frames: [[5, 12]])).values
        #expect(abs(y[0] - 2 / Float(8.0 / 3).squareRoot()) < 1e-6)
        #expect(y[1] == 2)
        var m = Normalizer(method: .minmax)
        try m.fit([train], channels: 2, sampleRate: nil)
        #expect(m.apply(to: TimeSeries(frames: [[5, 12], [2, 10]])).values == [1, 2, 0.25, 0])
        var empty = Normalizer()
        #expect(throws: GestureKitError.self) { try empty.fit([], channels: 2, sampleRate: nil) }
    }
}
