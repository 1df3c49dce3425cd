import Foundation
import Testing
@testable import GestureKit

/// Known-distance and property tests of the DTW kernel and lower bounds (synthetic data).
@Suite struct DTWDistanceTests {
    static func random(_ n: Int, _ c: Int, _ rng: inout SeededGenerator) -> TimeSeries {
        TimeSeries(values: (0..<(n * c)).map { _ in rng.nextGaussian() }, channelCount: c)
    }

    /// Plain O(n*m) matrix DTW, written independently of the kernel, as the reference.
    static func reference(_ a: TimeSeries, _ b: TimeSeries, window: Int? = nil) -> Double {
        let n = a.frameCount, m = b.frameCount
        let w = max(window ?? max(n, m), abs(n - m))
        var D = [[Double]](repeating: [Double](repeating: .infinity, count: m + 1), count: n + 1)
        D[0][0] = 0
        for i in 1...n {
            for j in 1...m where abs(i - j) <= w {
                var cost = 0.0
                for c in 0..<a.channelCount { let d = Double(a[i - 1, c]) - Double(b[j - 1, c]); cost += d * d }
                D[i][j] = cost + min(D[i - 1][j - 1], D[i - 1][j], D[i][j - 1])
            }
        }
        return D[n][m]
    }

    @Test func distanceToItselfIsZero() {
        var rng = SeededGenerator(seed: 1)
        let a = Self.random(50, 3, &rng)
        #expect(DTWDistance.distance(a, a) == 0)
        #expect(DTWDistance.distance(a, a, variant: .independent, band: .fraction(0.1)) == 0)
    }

    /// Step 0,0,0,1,1,1 against the same step one sample later, 0,0,0,0,1,1. Warping absorbs the shift
    /// completely (DTW = 0), while the lock-step squared Euclidean distance is 1. With a band of 0
    /// samples DTW must follow the diagonal and equals the Euclidean distance, 1.
    @Test func shiftedStepHandComputed() {
        let a = TimeSeries(channels: [[0, 0, 0, 1, 1, 1]])
        let b = TimeSeries(channels: [[0, 0, 0, 0, 1, 1]])
        #expect(DTWDistance.distance(a, b) == 0)
        #expect(DTWDistance.distance(a, b, band: .samples(0)) == 1)
        // A step of height 2 against a ramp 0,1,2: hand computation of the cost matrix gives 1
        // (frame 1 of the ramp must match either 0 or 2: cost 1 either way).
        let step = TimeSeries(channels: [[0, 0, 2, 2]])
        let ramp = TimeSeries(channels: [[0, 1, 2, 2]])
        #expect(DTWDistance.distance(step, ramp) == 1)
    }

    @Test func matchesReferenceOnRandomSeries() {
        var rng = SeededGenerator(seed: 7)
        var dtw = DTWDistance()
        for trial in 0..<30 {
            let n = 5 + Int(rng.next() % 40), m = 5 + Int(rng.next() % 40), c = 1 + Int(rng.next() % 4)
            let a = Self.random(n, c, &rng), b = Self.random(m, c, &rng)
            let w: Int? = trial % 2 == 0 ? nil : Int(rng.next() % 8)
            dtw.band = w.map { .samples($0) } ?? .full
            let got = Double(dtw.distance(a, b))
            let want = Self.reference(a, b, window: w)
            #expect(abs(got - want) <= 1e-4 * max(1, want), "trial \(trial): \(got) vs \(want)")
        }
    }

    @Test func independentIsSumOfPerChannelDistances() {
        var rng = SeededGenerator(seed: 3)
        let a = Self.random(30, 3, &rng), b = Self.random(25, 3, &rng)
        var sum = 0.0
        for c in 0..<3 {
            sum += Self.reference(TimeSeries(channels: [a.channel(c)]), TimeSeries(channels: [b.channel(c)]))
        }
        let got = Double(DTWDistance.distance(a, b, variant: .independent))
        #expect(abs(got - sum) <= 1e-4 * sum)
    }

    @Test func dtwIsAtMostSquaredEuclidean() {
        var rng = SeededGenerator(seed: 11)
        for _ in 0..<20 {
            let a = Self.random(40, 2, &rng), b = Self.random(40, 2, &rng)
            let euclid = zip(a.values, b.values).reduce(Float(0)) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }
            for v in DTWVariant.allCases {
                for band in [DTWBand.full, .fraction(0.1), .samples(0)] {
                    #expect(DTWDistance.distance(a, b, variant: v, band: band) <= euclid * (1 + 1e-5))
                }
            }
        }
    }

    /// LB_Kim and LB_Keogh never exceed the true distance (property over random series, both
    /// variants, several bands).
    @Test func lowerBoundsNeverExceedDTW() {
        var rng = SeededGenerator(seed: 5)
        for trial in 0..<200 {
            let n = 8 + Int(rng.next() % 40), c = 1 + Int(rng.next() % 3)
            // Random walks, so that series have shape and the bounds are not trivially small.
            func walk() -> TimeSeries {
                var v = [Float](repeating: 0, count: n * c)
                for i in 1..<n { for ch in 0..<c { v[i * c + ch] = v[(i - 1) * c + ch] + rng.nextGaussian() } }
                return TimeSeries(values: v, channelCount: c)
            }
            let a = walk(), b = walk()
            let w = Int(rng.next() % UInt64(n))
            let variant: DTWVariant = trial % 2 == 0 ? .dependent : .independent
            let prep = SeriesPreparation()
            let (pa, _) = prep.prepare(a), (pb, _) = prep.prepare(b)
            var upper = [Float](repeating: 0, count: n * c), lower = upper
            pb.withUnsafeBufferPointer { p in
                upper.withUnsafeMutableBufferPointer { u in
                    lower.withUnsafeMutableBufferPointer { l in
                        DTWKernel.envelope(p.baseAddress!, n: n, channels: c, window: w, upper: u.baseAddress!, lower: l.baseAddress!)
                    }
                }
            }
            let kim = pa.withUnsafeBufferPointer { x in pb.withUnsafeBufferPointer { y in
                DTWKernel.lbKim(a: x.baseAddress!, n: n, b: y.baseAddress!, m: n, channels: c) } }
            let keogh = pa.withUnsafeBufferPointer { x in upper.withUnsafeBufferPointer { u in lower.withUnsafeBufferPointer { l in
                DTWKernel.lbKeogh(a: x.baseAddress!, n: n, upper: u.baseAddress!, lower: l.baseAddress!, channels: c, cutoff: .infinity) } } }
            let d = DTWDistance.distance(a, b, variant: variant, band: .samples(w))
            #expect(kim <= d * (1 + 1e-5) + 1e-6, "LB_Kim \(kim) > DTW \(d)")
            #expect(keogh <= d * (1 + 1e-5) + 1e-6, "LB_Keogh \(keogh) > DTW \(d)")
        }
    }

    @Test func earlyAbandonReturnsInfinityOnlyAboveCutoff() {
        var rng = SeededGenerator(seed: 9)
        var dtw = DTWDistance()
        for _ in 0..<50 {
            let a = Self.random(30, 2, &rng), b = Self.random(30, 2, &rng)
            let d = dtw.distance(a, b)
            #expect(dtw.distance(a, b, cutoff: d) == d)
            #expect(dtw.distance(a, b, cutoff: d * 0.5) == .infinity || d == 0)
        }
    }

    @Test func preparationTrimsResamplesAndNormalises() {
        // 5 still frames, a ramp of 4, 5 still frames.
        let v: [Float] = [0, 0, 0, 0, 0, 1, 2, 3, 4, 4, 4, 4, 4, 4]
        let s = TimeSeries(channels: [v])
        #expect(SeriesPreparation.stillTrimmed(s, threshold: 0.1) == 4..<9)
        let p = SeriesPreparation(trim: 0.1, resample: 9, zNormalize: false).prepare(s)
        #expect(p.frames == 9)
        #expect(p.values == [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4])
        let z = SeriesPreparation(zNormalize: true).prepare(TimeSeries(channels: [[1, 3], [5, 5]]))
        #expect(z.values == [-1, 1, 0, 0])  // second channel is constant: zeros
    }

    /// Each vector width the processor has (16, 8 and 4 lanes) gives the reference's distance, and
    /// the same bits as the others: shapes around the lane counts, 1 to 10 channels (past the 8 held
    /// in registers), bands from 0 to full, and cutoffs just below and at the distance.
    @Test func vectorWidthsAgreeBitForBit() {
        let widths = [16, 8, 4].filter { $0 <= DTWKernel.lanes }
        defer { DTWKernel.limitLanes(16) }
        var rng = SeededGenerator(seed: 21)
        for trial in 0..<300 {
            let n = 1 + Int(rng.next() % 70), m = 1 + Int(rng.next() % 70), c = 1 + Int(rng.next() % 10)
            let a = Self.random(n, c, &rng), b = Self.random(m, c, &rng)
            let w: Int? = trial % 3 == 0 ? nil : Int(rng.next() % 20)
            let band: DTWBand = w.map { .samples($0) } ?? .full
            var dependent = DTWDistance(variant: .dependent, band: band)
            var independent = DTWDistance(variant: .independent, band: band)
            var seen: [[UInt32]] = []
            for lanes in widths {
                DTWKernel.limitLanes(lanes)
                let d = dependent.distance(a, b), i = independent.distance(a, b)
                #expect(dependent.distance(a, b, cutoff: d) == d)
                #expect(dependent.distance(a, b, cutoff: d.nextDown) == .infinity || d == 0)
                #expect(independent.distance(a, b, cutoff: i.nextDown) == .infinity || i == 0)
                seen.append([d.bitPattern, i.bitPattern])
            }
            #expect(Set(seen).count == 1, "trial \(trial) n \(n) m \(m) c \(c) w \(String(describing: w)): \(seen)")
            let want = Self.reference(a, b, window: w)
            let got = Double(Float(bitPattern: seen[0][0]))
            #expect(abs(got - want) <= 1e-4 * max(1, want), "trial \(trial): \(got) vs \(want)")
        }
    }
}
