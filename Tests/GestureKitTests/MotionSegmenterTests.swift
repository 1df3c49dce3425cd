import Testing
@testable import GestureKit

/// The moving stretches the DTW spotter's second chance labels.
@Suite struct MotionSegmenterTests {
    /// Pushes one channel; returns each stretch with the frame it closed on.
    static func run(_ values: [Float], floor: Float = 0.5, smoothing: Int = 2, hang: Int = 5) -> [(ClosedRange<Int>, Int)] {
        var s = MotionSegmenter(channels: 1, floor: floor, smoothing: smoothing, hang: hang)
        var out: [(ClosedRange<Int>, Int)] = []
        for (t, v) in values.enumerated() {
            if let r = [v].withUnsafeBufferPointer({ s.push($0) }) { out.append((r, t)) }
        }
        return out
    }

    /// `count` frames alternating between `a` and `b`.
    static func burst(_ count: Int, _ a: Float = 5, _ b: Float = 1) -> [Float] { (0..<count).map { $0 % 2 == 0 ? a : b } }

    /// Held at 3 for frames 0-49, alternating 5, 1 for 50-69, then held. Frame 50's change (2)
    /// averages 1 over two frames: moving, so the stretch opens a smoothing (2) - 1 frame earlier,
    /// at 49. Frame 70 still averages in frame 69's change: the last moving frame. It closes 5
    /// (hang) frames later, at 75.
    @Test func aBurstBetweenStillStretchesIsOneStretch() {
        var v = [Float](repeating: 3, count: 50) + Self.burst(20)
        v += [Float](repeating: v.last!, count: 50)
        let found = Self.run(v)
        #expect(found.count == 1)
        #expect(found.first?.0 == 49...70)
        #expect(found.first?.1 == 75)
    }

    /// A pause shorter than the hang stays inside the stretch; a longer one ends it.
    @Test func aPauseLongerThanTheHangSplitsTheStretch() {
        func stream(pause: Int) -> [Float] {
            var v = [Float](repeating: 1, count: 20) + Self.burst(10) + [Float](repeating: 1, count: pause) + Self.burst(10)
            v += [Float](repeating: 1, count: 30)
            return v
        }
        #expect(Self.run(stream(pause: 3)).count == 1)
        let two = Self.run(stream(pause: 20))
        #expect(two.count == 2)
        if two.count == 2 { #expect(two[0].0.upperBound < two[1].0.lowerBound) }
    }

    /// Noise below the floor never opens a stretch, nor does a constant offset.
    @Test func noiseAndOffsetsAreStill() {
        #expect(Self.run(Self.burst(200, 0.1, -0.1)).isEmpty)
        #expect(Self.run([Float](repeating: 7, count: 100)).isEmpty)
    }

    /// A sample that is not a number moves nothing and does not stop the segmenter: the burst after
    /// it is found as without it.
    @Test func aNotANumberSampleDoesNotStopTheSegmenter() {
        var v = [Float](repeating: 3, count: 50) + Self.burst(20)
        v += [Float](repeating: v.last!, count: 50)
        var broken = v
        broken[10] = .nan
        #expect(Self.run(broken).map(\.0) == Self.run(v).map(\.0))
        #expect(Self.run(v).count == 1)
    }

    /// Mean movement of a channel-major series: the root mean square over channels of each frame's
    /// change, averaged over the changes.
    @Test func meanMotionOfChannelMajorValues() {
        // Two channels, three frames: changes (3, 4) then (0, 0): movements 5/sqrt(2) and 0.
        let values: [Float] = [0, 3, 3, 0, 4, 4]
        let m = values.withUnsafeBufferPointer { MotionSegmenter.meanMotion($0, frames: 3, channels: 2) }
        #expect(abs(m - Float(5 / 2.0.squareRoot() / 2)) < 1e-6)
    }
}

/// The floor follows the stream's own noise at rest.
@Suite struct MotionSegmenterNoiseTests {
    static func noise(_ count: Int, _ level: Float, seed: UInt64 = 1) -> [Float] {
        var rng = SeededGenerator(seed: seed)
        return (0..<count).map { _ in level * rng.nextGaussian() }
    }

    static func run(_ values: [Float], factor: Float, cap: Float = .infinity) -> (stretches: [ClosedRange<Int>], floor: Float) {
        var s = MotionSegmenter(channels: 1, floor: 0.05, smoothing: 32, hang: 20, noiseFactor: factor, noiseWindow: 200, noiseCap: cap)
        var out: [ClosedRange<Int>] = []
        for v in values { if let r = [v].withUnsafeBufferPointer({ s.push($0) }) { out.append(r) } }
        if let r = s.flush() { out.append(r) }
        return (out, s.currentFloor)
    }

    /// Noise well above the learned floor: without the tracker the whole noisy stream is one
    /// stretch; with it, the floor rises above the noise (but stays far below the burst's
    /// movement), so only the burst (frames 400-429) is found.
    @Test func noiseAboveTheLearnedFloorRaisesIt() {
        let v = Self.noise(400, 0.2) + MotionSegmenterTests.burst(30, 4, -4) + Self.noise(300, 0.2, seed: 2)
        let fixed = Self.run(v, factor: 0), tracked = Self.run(v, factor: 3)
        #expect(fixed.floor == 0.05)
        #expect(fixed.stretches.count == 1 && (fixed.stretches.first?.count ?? 0) > 600, "\(fixed.stretches)")
        // The mean absolute change of Gaussian noise of sd 0.2 is 0.2 * 2 / sqrt(pi), about 0.23; its
        // least 32-frame average over 200 frames lies below that, three times it well above.
        #expect(tracked.floor > 0.3 && tracked.floor < 0.9, "\(tracked.floor)")
        // Until a smoothing's worth of frames has been averaged the learned floor alone applies: the
        // noise at the very start may open a stretch, closed once the estimate exists.
        let later = tracked.stretches.filter { $0.upperBound > 32 + 20 }
        #expect(later.count == 1, "\(tracked.stretches)")
        // Opened up to a smoothing (32) before the burst's first frame, and its changes stay in the
        // average for a smoothing after its last.
        if let r = later.first { #expect(r.lowerBound >= 368 && r.lowerBound <= 400 && r.upperBound >= 429 && r.upperBound <= 461, "\(r)") }
    }

    /// An exactly still stream leaves the learned floor in force, and the cap bounds the rise.
    @Test func stillnessKeepsTheLearnedFloorAndTheCapBoundsIt() {
        let still = [Float](repeating: 3, count: 500)
        #expect(Self.run(still, factor: 2).floor == 0.05)
        #expect(Self.run(Self.noise(500, 0.2), factor: 2, cap: 0.1).floor == 0.1)
    }

    /// The estimate is the least movement over the window: a long burst the window no longer sees
    /// still-frames aside, the floor falls back to the noise once the burst has left the window.
    @Test func theFloorFollowsTheQuietestRecentFrames() {
        let v = Self.noise(300, 0.2) + MotionSegmenterTests.burst(400, 4, -4) + Self.noise(300, 0.2, seed: 2)
        let r = Self.run(v, factor: 2)
        #expect(r.floor < 0.6, "\(r.floor)")
    }
}
