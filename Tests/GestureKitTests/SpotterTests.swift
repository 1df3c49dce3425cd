import Foundation
import Testing
@testable import GestureKit

/// The segmental spotter as a classifier makes it, on synthetic gestures at rest at the origin.
@Suite struct SpotterTests {
    static func push(_ spotter: inout SegmentalSpotter, _ frames: [[Float]]) -> [SpotMatch] {
        var out: [SpotMatch] = []
        for f in frames { if let m = f.withUnsafeBufferPointer({ spotter.push($0) }) { out.append(m) } }
        return out
    }

    static func trained(_ dtw: DTWClassifier = DTWClassifier(), seed: UInt64 = 5) throws -> DTWClassifier {
        let data = SyntheticGestures.dataset(perClass: 8, seed: seed)
        var dtw = dtw
        try dtw.train(data.examples.map(\.series), labels: data.examples.map { data.classes.firstIndex(of: $0.label!)! },
                      classes: data.classes)
        return dtw
    }

    /// Spotting compares raw frames with templates at the stream's rate: a classifier that
    /// resamples or z-normalises learns no decoder and makes no spotter; any other does, whatever
    /// its variant or null rejection.
    @Test func refusesClassifiersWhoseTemplatesAreNotInStreamUnits() throws {
        for c in [DTWClassifier(zNormalize: true), DTWClassifier(resample: 10)] {
            let c = try Self.trained(c)
            #expect(c.model?.segmental == nil)
            #expect(c.makeSpotter() == nil)
        }
        for c in [DTWClassifier(variant: .independent), DTWClassifier(), DTWClassifier(nullRejection: 1)] {
            #expect(try Self.trained(c).makeSpotter() is SegmentalSpotter)
        }
        #expect(DTWClassifier().makeSpotter() == nil)
    }

}

/// The vector kernel that advances every template's subsequence-DTW column, against the scalar
/// column update written out here, template by template.
@Suite(.serialized) struct SpringKernelTests {
    /// One template's column (channel-major `y`, `m` frames) advanced by frame `x` at stream frame
    /// `t`: squared Euclidean cost plus the cheapest of up, diag and left (ties: left, diag, up);
    /// row -1 is free (0, starting at `t`).
    static func scalarStep(_ x: [Float], _ y: ArraySlice<Float>, m: Int, d: inout ArraySlice<Float>, s: inout ArraySlice<Int>, t: Int) {
        var left: Float = 0, diag: Float = 0, leftStart = t, diagStart = t
        let y0 = y.startIndex, d0 = d.startIndex, s0 = s.startIndex
        for i in 0..<m {
            var cost: Float = 0
            for c in x.indices {
                let e = x[c] - y[y0 + c * m + i]
                cost = c == 0 ? e * e : cost + e * e
            }
            let up = d[d0 + i], upStart = s[s0 + i]
            let takeUp = up < diag
            let du = takeUp ? up : diag, duStart = takeUp ? upStart : diagStart
            let takeDU = du < left
            let best = takeDU ? du : left, bestStart = takeDU ? duStart : leftStart
            let v = cost + best
            d[d0 + i] = v
            s[s0 + i] = bestStart
            (diag, diagStart, left, leftStart) = (up, upStart, v, bestStart)
        }
    }

    @Test(arguments: [4, 8]) func kernelCellsEqualTheScalarColumns(lanes: Int) throws {
        SpringColumns.limitLanes(lanes)
        defer { SpringColumns.limitLanes(8) }
        #expect(SpringColumns.lanes <= lanes)
        var rng = SeededGenerator(seed: 7)
        func uniform() -> Float { Float(rng.next() >> 40) / Float(1 << 24) * 4 - 2 }
        // 11 templates: two groups, the second with 3 lanes, lengths 1 to 30 (padding in both).
        let channels = 3
        let lengths = (0..<11).map { 1 + ($0 * 7) % 30 }
        var offsets: [Int] = [], templates: [Float] = []
        for m in lengths {
            offsets.append(templates.count)
            templates += (0..<(m * channels)).map { _ in uniform() }
        }
        var columns = SpringColumns(channels: channels, templates: templates, lengths: lengths, offsets: offsets)
        var d = [Float](repeating: .infinity, count: templates.count / channels), s = [Int](repeating: 0, count: d.count)
        var so: [Int] = [], total = 0
        for m in lengths { so.append(total); total += m }
        for t in 0..<200 {
            // Frames drawn afresh, or exactly zero, so ties between the three moves occur.
            let x: [Float] = t % 5 == 0 ? [0, 0, 0] : (0..<channels).map { _ in uniform() }
            x.withUnsafeBufferPointer { columns.step($0, frame: t) }
            for k in lengths.indices {
                let cells = so[k]..<(so[k] + lengths[k])
                Self.scalarStep(x, templates[offsets[k]..<(offsets[k] + lengths[k] * channels)], m: lengths[k],
                                d: &d[cells], s: &s[cells], t: t)
                for i in 0..<lengths[k] {
                    let at = columns.cell(k, i)
                    #expect(columns.distances[at].bitPattern == d[so[k] + i].bitPattern, "frame \(t), template \(k), cell \(i)")
                    #expect(columns.base + Int(columns.starts[at]) == s[so[k] + i], "frame \(t), template \(k), cell \(i)")
                }
                #expect(columns.whole(k) == (d[so[k] + lengths[k] - 1], s[so[k] + lengths[k] - 1]))
            }
        }
    }

    /// Starts are 32-bit offsets from a base moved forward when the stream grows long: a stream
    /// pushed from frame 2^30 - 40 on (across the move) gives the same reports, shifted.
    @Test func longStreamsKeepTheirMatches() throws {
        let dtw = try SpotterTests.trained()
        var rng = SeededGenerator(seed: 6)
        var frames: [[Float]] = Array(repeating: [0, 0], count: 60)
        for c in [0, 1, 2, 0] {
            frames += SpottingCalibrationTests.frames(SyntheticGestures.example(c, &rng))
            frames += Array(repeating: [0, 0], count: 100)
        }
        var fresh = try #require(dtw.makeSpotter() as? SegmentalSpotter)
        let expected = SpotterTests.push(&fresh, frames)
        #expect(expected.count >= 3)
        var late = try #require(dtw.makeSpotter() as? SegmentalSpotter)
        let shift = (1 << 30) - 40
        late.frame = shift
        let found = SpotterTests.push(&late, frames)
        #expect(late.columns.base >= 1 << 29)
        #expect(found.map { [$0.start - shift, $0.end - shift, $0.prediction.classIndex] }
                == expected.map { [$0.start, $0.end, $0.prediction.classIndex] })
        #expect(found.map(\.prediction.confidence) == expected.map(\.prediction.confidence))
    }
}
