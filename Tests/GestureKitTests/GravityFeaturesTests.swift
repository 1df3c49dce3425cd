import Foundation
import Testing
@testable import GestureKit

@Suite struct GravityFeaturesTests {
    typealias V3 = (Double, Double, Double)

    func value(_ f: GravityFeatures, _ v: [Float], _ name: GravityFeature) -> Double {
        Double(v[f.features.firstIndex(of: name)!])
    }

    func fitted(_ channels: Int, gyroscope: [Int] = [], features: [GravityFeature]? = nil) throws -> GravityFeatures {
        var f = GravityFeatures(gyroscope: gyroscope, features: features)
        try f.fit([], channels: channels, sampleRate: nil)
        return f
    }

    /// A random rotation matrix (rows), from a normalised random quaternion.
    func rotation(_ g: inout SeededGenerator) -> [[Double]] {
        var q = (0..<4).map { _ in Double(g.nextGaussian()) }
        let n = (q.map { $0 * $0 }.reduce(0, +)).squareRoot()
        q = q.map { $0 / n }
        let (w, x, y, z) = (q[0], q[1], q[2], q[3])
        return [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    }

    func apply(_ r: [[Double]], _ v: [Double]) -> [Double] {
        r.map { row in row[0] * v[0] + row[1] * v[1] + row[2] * v[2] }
    }

    @Test func constantGravityHasItsDirectionAndNoBodyMotion() throws {
        let f = try fitted(6, gyroscope: [3, 4, 5])
        let w = TimeSeries(frames: Array(repeating: [0, 0, 1, 0, 0, 0], count: 20))
        let v = f.features(of: w)
        #expect(v.count == GravityFeature.allCases.count)
        #expect(value(f, v, .directionX) == 0 && value(f, v, .directionY) == 0 && value(f, v, .directionZ) == 1)
        #expect(value(f, v, .pitch) == 0 && value(f, v, .roll) == 0 && value(f, v, .gravityMagnitude) == 1)
        for body: GravityFeature in [.bodyMean, .bodyStd, .bodyMax, .verticalStd, .horizontalMean, .horizontalStd, .gyroMean, .gyroStd, .gyroMax] {
            #expect(value(f, v, body) == 0, "\(body)")
        }
    }

    @Test func bodyMotionAndGyroByHand() throws {
        // acc = (0,0,1) + (s,0,0), s = +1,-1,...: gravity (0,0,1), |b| = 1 every frame, all of it across
        // gravity. gyro alternates (3,4,0) and 0: magnitudes 5, 0 -> mean 2.5, std 2.5, max 5.
        let frames: [[Float]] = (0..<10).map { i in i % 2 == 0 ? [1, 0, 1, 3, 4, 0] : [-1, 0, 1, 0, 0, 0] }
        let f = try fitted(6, gyroscope: [3, 4, 5])
        let v = f.features(of: TimeSeries(frames: frames))
        let want: [GravityFeature: Double] = [
            .directionZ: 1, .bodyMean: 1, .bodyStd: 0, .bodyMax: 1, .verticalStd: 0,
            .horizontalMean: 1, .horizontalStd: 0, .gyroMean: 2.5, .gyroStd: 2.5, .gyroMax: 5,
        ]
        for (k, x) in want { #expect(abs(value(f, v, k) - x) < 1e-6, "\(k)") }
        // Moving along gravity instead: (0,0,1 +- 0.5) -> vertical std 0.5, nothing across.
        let up = f.features(of: TimeSeries(frames: (0..<10).map { i in [0, 0, i % 2 == 0 ? 1.5 : 0.5, 0, 0, 0] }))
        #expect(abs(value(f, up, .verticalStd) - 0.5) < 1e-6 && value(f, up, .horizontalMean) == 0)
    }

    @Test func anglesFollowTheTilt() throws {
        let f = try fitted(3)
        for t in stride(from: -3.0, through: 3.0, by: 0.5) {
            // Gravity tilted by t about x: roll t, pitch 0. Tilted about y: pitch -t (|t| < pi/2).
            let about_x = f.features(of: TimeSeries(frames: [[0, Float(sin(t)), Float(cos(t))]]))
            #expect(abs(value(f, about_x, .roll) - t) < 1e-5 && abs(value(f, about_x, .pitch)) < 1e-6)
            if abs(t) < 1.5 {
                let about_y = f.features(of: TimeSeries(frames: [[Float(sin(t)), 0, Float(cos(t))]]))
                #expect(abs(value(f, about_y, .pitch) + t) < 1e-5, "t = \(t)")
            }
        }
    }

    @Test func rotatingTheDeviceRotatesGravityAndKeepsMagnitudes() throws {
        var g = SeededGenerator(seed: 11)
        let f = try fitted(6, gyroscope: [3, 4, 5])
        for _ in 0..<20 {
            // A window: 0.98 g along a random direction plus body motion and rotation noise.
            let d = apply(rotation(&g), [0, 0, 0.98])
            let frames: [[Double]] = (0..<64).map { _ in
                (0..<3).map { d[$0] + 0.2 * Double(g.nextGaussian()) } + (0..<3).map { _ in Double(g.nextGaussian()) }
            }
            let r = rotation(&g)
            let rotated = frames.map { apply(r, Array($0[0..<3])) + apply(r, Array($0[3..<6])) }
            let a = f.features(of: TimeSeries(frames: frames.map { $0.map(Float.init) }))
            let b = f.features(of: TimeSeries(frames: rotated.map { $0.map(Float.init) }))
            let da = [value(f, a, .directionX), value(f, a, .directionY), value(f, a, .directionZ)]
            let db = [value(f, b, .directionX), value(f, b, .directionY), value(f, b, .directionZ)]
            let want = apply(r, da)
            for i in 0..<3 { #expect(abs(db[i] - want[i]) < 1e-4) }
            for m: GravityFeature in [.gravityMagnitude, .bodyMean, .bodyStd, .bodyMax, .verticalStd, .horizontalMean, .horizontalStd, .gyroMean, .gyroStd, .gyroMax] {
                #expect(abs(value(f, a, m) - value(f, b, m)) < 1e-4 * max(1, abs(value(f, a, m))), "\(m)")
            }
        }
    }

    @Test func channelIndicesAreHonoured() throws {
        // The same motion with the accelerometer in channels 3-5 and junk elsewhere.
        var f = GravityFeatures(accelerometer: [3, 4, 5], gyroscope: [0, 1, 2])
        try f.fit([], channels: 7, sampleRate: nil)
        let plain = try fitted(6, gyroscope: [3, 4, 5])
        let frames: [[Float]] = (0..<10).map { i in [Float(i) * 0.1, 0.2, -0.3, 0.5, -0.2, Float(i % 3), 99] }
        let swapped = frames.map { Array($0[3..<6]) + Array($0[0..<3]) }
        #expect(f.features(of: TimeSeries(frames: frames)) == plain.features(of: TimeSeries(frames: swapped)))
    }

    @Test func edgeCasesGiveZerosNotNaN() throws {
        let f = try fitted(3)
        #expect(f.features(of: TimeSeries(values: [], channelCount: 3)).allSatisfy { $0 == 0 })
        let zero = f.features(of: TimeSeries(frames: [[0, 0, 0], [0, 0, 0]]))
        #expect(zero.allSatisfy { $0 == 0 })
        #expect(f.featureNames.first == "gravity.directionX" && f.featureCount == f.featureNames.count)
        #expect(!f.features.contains { $0.needsGyroscope })
    }

    @Test func errorsNameTheField() throws {
        func field(_ body: () throws -> Void) -> String? {
            do { try body(); return nil } catch let e as GestureKitError { return e.field } catch { return "?" }
        }
        #expect(field { try GravityFeatures(accelerometer: [0, 1]).validate() } == "accelerometer")
        #expect(field { try GravityFeatures(accelerometer: [0, 1, 1]).validate() } == "accelerometer")
        #expect(field { try GravityFeatures(gyroscope: [3, 4]).validate() } == "gyroscope")
        #expect(field { try GravityFeatures(features: [.gyroMean]).validate() } == "gyroscope")
        #expect(field { try GravityFeatures(features: []).validate() } == "features")
        #expect(field { var f = GravityFeatures(gyroscope: [3, 4, 5]); try f.fit([], channels: 3, sampleRate: nil) } == "gyroscope")
        #expect(field { var f = GravityFeatures(); try f.fit([], channels: 6, sampleRate: nil) } == nil)
        let bad = #"{"kind": "gravity", "features": ["tilt"]}"#
        #expect(field { _ = try StageTesting.decode(bad, StageKinds.featureExtractors, role: "feature extractor") } == "features")
    }

    @Test func decodesByKindAndRoundTrips() throws {
        let spec = #"{"kind": "gravity", "gyroscope": [3, 4, 5], "features": ["directionZ", "gyroMax"]}"#
        var f = try #require(StageTesting.decode(spec, StageKinds.featureExtractors, role: "feature extractor") as? GravityFeatures)
        #expect(f.accelerometer == [0, 1, 2] && f.features == [.directionZ, .gyroMax])
        try f.fit([], channels: 6, sampleRate: nil)
        let back = try StageTesting.roundTrip(f)
        let w = TimeSeries(frames: (0..<8).map { i in [0.1, 0.2, 0.9, Float(i), 0, 1] })
        #expect(back.features(of: w) == f.features(of: w) && back.featureNames == ["gravity.directionZ", "gravity.gyroMax"])
    }

    @Test func haptLiveSpecNamesTheHAPTChannelsAndARestClass() throws {
        // HAPT frames are accX..accZ then gyroX..gyroZ; the spec must say so and keep the rest class.
        let spec = try PipelineSpec.load(TestData.repo.appendingPathComponent("pipelines/hapt-live.json").path)
        let g = try #require(spec.extractors.compactMap { $0 as? GravityFeatures }.first)
        #expect(g.accelerometer == [0, 1, 2] && g.gyroscope == [3, 4, 5])
        #expect(spec.rest == "rest" && spec.window == .init(size: 128, hop: 32, labelling: .at(0.75)))
    }
}
