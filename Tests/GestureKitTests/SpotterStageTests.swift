import Foundation
import Testing
@testable import GestureKit

/// The pipeline's DTW spotter stage: the subsequence spotter proposes a stretch, the whole-example
/// classifier labels it.
@Suite struct SpotterStageTests {
    static let filler = [Float](repeating: 20, count: 12)

    /// A bump of height `h` at `at` in 10 frames of 0.
    static func bump(_ at: Int, _ h: Float) -> [Float] {
        var v = [Float](repeating: 0, count: 10)
        v[at] = h
        return v
    }

    static func run(_ spotter: inout some Spotter, _ stream: [Float]) -> [(match: SpotMatch, at: Int)] {
        var out: [(SpotMatch, Int)] = []
        for (t, x) in stream.enumerated() {
            if let m = [x].withUnsafeBufferPointer({ spotter.push($0) }) { out.append((m, t)) }
        }
        return out
    }

    /// Class "late" bumps at frame 7, class "early" at frame 2. Unconstrained subsequence DTW warps
    /// any bump onto any other, so an early bump of height 4 matches a "late" template (height 4, 4.1)
    /// at distance 0 and the "early" ones (4.5, 3.5) at 0.25: the subsequence rule says "late". The
    /// classifier, trained with a one-sample band, compares the stretch with every template almost
    /// frame by frame and says "early".
    @Test func theWholeExampleClassifierLabelsTheStretchTheSpotterProposed() throws {
        var dtw = DTWClassifier(variant: .dependent, band: .samples(1))
        let series = [Self.bump(7, 4), Self.bump(7, 4.1), Self.bump(2, 4.5), Self.bump(2, 3.5)].map { TimeSeries(channels: [$0]) }
        try dtw.train(series, labels: [0, 0, 1, 1], classes: ["late", "early"])
        let stream = Self.filler + Self.bump(2, 4) + Self.filler

        var inner = try DTWSpotter(classifier: dtw)
        var old: [SpotterMatch] = []
        for x in stream { if let m = [x].withUnsafeBufferPointer({ inner.push($0) }) { old.append(m) } }
        #expect(old.map(\.classIndex) == [0], "the subsequence rule alone: \(old)")

        var stage = try #require(dtw.makeSpotter())
        let found = Self.run(&stage, stream)
        #expect(found.map(\.match.prediction.classIndex) == [1], "\(found.map(\.match))")
        #expect(found.map(\.match.start) == old.map(\.start) && found.map(\.match.end) == old.map(\.end))
    }

    /// The stage reports what the spotter reports, at the same frames (labelling adds no latency),
    /// two gestures back to back included, and replaying the stream after `reset()` gives the same
    /// matches at the same frames.
    @Test func labellingKeepsTheSpottersFramesAndReplaysAfterReset() throws {
        var dtw = DTWClassifier(variant: .dependent)
        let series = [Self.bump(4, 4), Self.bump(4, 4.2), Self.bump(4, -4), Self.bump(4, -4.2)].map { TimeSeries(channels: [$0]) }
        try dtw.train(series, labels: [0, 0, 1, 1], classes: ["up", "down"])
        let stream = Self.filler + Self.bump(4, 4.1) + Self.bump(4, -4.1) + Self.filler + Self.bump(4, 4.1) + Self.filler

        var inner = try DTWSpotter(classifier: dtw)
        var old: [(SpotterMatch, Int)] = []
        for (t, x) in stream.enumerated() { if let m = [x].withUnsafeBufferPointer({ inner.push($0) }) { old.append((m, t)) } }
        var stage = try #require(dtw.makeSpotter())
        let found = Self.run(&stage, stream)
        #expect(found.map(\.match.prediction.classIndex) == [0, 1, 0], "\(found.map(\.match))")
        #expect(found.map(\.at) == old.map(\.1))
        #expect(found.map(\.match.start) == old.map(\.0.start) && found.map(\.match.end) == old.map(\.0.end))
        stage.reset()
        let again = Self.run(&stage, stream)
        #expect(again.map(\.match) == found.map(\.match) && again.map(\.at) == found.map(\.at))
    }
}
