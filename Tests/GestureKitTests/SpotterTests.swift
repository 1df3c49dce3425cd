import Foundation
import Testing
@testable import GestureKit

@Suite struct SpotterTests {
    static func push(_ spotter: inout DTWSpotter, _ frames: [[Float]]) -> [(SpotterMatch, reportedAt: Int)] {
        var out: [(SpotterMatch, Int)] = []
        for (t, f) in frames.enumerated() {
            if let m = f.withUnsafeBufferPointer({ spotter.push($0) }) { out.append((m, t)) }
        }
        return out
    }

    /// Two classes (rising and falling ramps), two templates each so that leave-one-out thresholds
    /// exist (both leave-one-out distances 0.25: the templates differ by 0.5 in one frame; two
    /// distances are few, so the spread is widened toward the mean: sqrt(4 x 0.25^2 / 6)). An exact
    /// copy of a template in the stream matches at distance 0 on exactly its frames; the far-away
    /// filler never matches.
    @Test func exactCopiesAreFoundWithTheirFrames() throws {
        let up: [[Float]] = [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4.5]]
        let down: [[Float]] = [[4, 3, 2, 1, 0], [4.5, 3, 2, 1, 0]]
        var dtw = DTWClassifier(variant: .dependent, nullRejection: 1)
        try dtw.train((up + down).map { TimeSeries(channels: [$0]) }, labels: [0, 0, 1, 1], classes: ["up", "down"])
        let widened = Float(0.25) + (4 * 0.25 * 0.25 / Float(6)).squareRoot()
        #expect(dtw.model!.rejection.thresholds.allSatisfy { abs($0 - widened) < 1e-6 })
        #expect(dtw.model!.rejection.means.values == [0.25, 0.25])
        let filler = [Float](repeating: 20, count: 10)
        let stream = (filler + up[0] + filler + down[0] + filler.prefix(5)).map { [$0] }
        var spotter = try DTWSpotter(classifier: dtw)
        let found = Self.push(&spotter, stream)
        #expect(found.map(\.0) == [SpotterMatch(classIndex: 0, distance: 0, start: 10, end: 14),
                                   SpotterMatch(classIndex: 1, distance: 0, start: 25, end: 29)])
        // Final as soon as nothing overlapping can beat distance 0.
        #expect(found.map(\.reportedAt) == [14, 29])
        spotter.reset()
        #expect(Self.push(&spotter, stream).map(\.0) == found.map(\.0))
    }

    /// The rest of a reported gesture is not reported again: a match starting within a quarter of a
    /// typical performance (the class's median template length) after the last report, lasting with
    /// it at most 1.25 performances. A whole next gesture, or one after a pause, is reported.
    @Test func continuationOfTheLastReportIsNotAGesture() {
        let spotter = DTWSpotter(channels: 1, templates: [Float](repeating: 0, count: 20 + 20 + 40), lengths: [20, 20, 40],
                                 offsets: [0, 20, 40], labels: [0, 0, 1], thresholds: [1, 1])
        #expect(spotter.typicalLengths == [20, 40])
        let last = SpotterMatch(classIndex: 0, distance: 0, start: 10, end: 24)
        func match(_ c: Int, _ start: Int, _ end: Int) -> SpotterMatch { SpotterMatch(classIndex: c, distance: 0, start: start, end: end) }
        #expect(spotter.isContinuation(match(0, 25, 34), of: last))       // 25 frames together: 1.25 x 20
        #expect(!spotter.isContinuation(match(0, 25, 35), of: last))      // 26 frames: the next gesture
        #expect(!spotter.isContinuation(match(0, 21, 44), of: last))      // a whole performance back to back
        #expect(spotter.isContinuation(match(0, 29, 30), of: last))       // 5 frames later: a quarter of 20
        #expect(!spotter.isContinuation(match(0, 30, 31), of: last))      // 6 frames later: after a pause
        #expect(spotter.isContinuation(match(1, 25, 59), of: last))       // the longer class sets the scale
    }

    @Test func refusesClassifiersWhoseTemplatesAreNotInStreamUnits() throws {
        let s = [TimeSeries(channels: [[0, 1, 2]]), TimeSeries(channels: [[0, 1, 3]])]
        for c in [DTWClassifier(zNormalize: true, nullRejection: 1), DTWClassifier(resample: 10, nullRejection: 1)] {
            var c = c
            try c.train(s, labels: [0, 0], classes: ["a"])
            #expect(throws: GestureKitError.self) { try DTWSpotter(classifier: c) }
        }
        // Training calibrates spotting thresholds, so neither the variant nor nullRejection is needed.
        for c in [DTWClassifier(variant: .independent), DTWClassifier()] {
            var c = c
            try c.train(s, labels: [0, 0], classes: ["a"])
            #expect(c.model?.spotting != nil)
            _ = try DTWSpotter(classifier: c)
        }
        #expect(throws: GestureKitError.self) { try DTWSpotter(classifier: DTWClassifier(nullRejection: 1)) }
    }

    /// GRT letters: train on 10 of each letter, stream the 5 held-out examples of each letter in a
    /// shuffled order with 2 s of stillness (200 frames at the ~100 Hz of a mouse, the last sample
    /// repeated) before, between and after them. Each letter must be reported exactly once, with its
    /// label, by a match that overlaps it; nothing may be reported inside the still parts.
    @Test(.enabled(if: DTWTestData.available)) func spotsHeldOutLettersInAStream() throws {
        let d = try DTWTestData.load("grt/DTWTrainingData.grt")
        let labels = DTWTestData.labels(d)
        var train: [Int] = [], held: [Int] = []
        for c in d.classes.indices {
            let members = labels.indices.filter { labels[$0] == c }
            train += members.prefix(10)
            held += members.dropFirst(10)
        }
        var dtw = DTWClassifier(variant: .dependent, nullRejection: 10)
        try DTWClassifierTests.train(&dtw, d, train)
        var rng = SeededGenerator(seed: 42)
        held.shuffle(using: &rng)
        let still = 200
        var frames: [[Float]] = []
        var spans: [(range: Range<Int>, label: Int)] = []
        for (n, i) in held.enumerated() {
            let s = d.examples[i].series
            if n == 0 { frames += Array(repeating: Array(s.frame(0)), count: still) }
            let begin = frames.count
            for f in 0..<s.frameCount { frames.append(Array(s.frame(f))) }
            spans.append((begin..<frames.count, labels[i]))
            frames += Array(repeating: Array(s.frame(s.frameCount - 1)), count: still)
        }
        var spotter = try DTWSpotter(classifier: dtw)
        let found = Self.push(&spotter, frames).map(\.0)
        for m in found {
            let overlapping = spans.filter { $0.range.overlaps(m.start..<(m.end + 1)) }
            #expect(overlapping.count == 1, "match \(m) overlaps \(overlapping.count) letters")
        }
        for (range, label) in spans {
            let hits = found.filter { range.overlaps($0.start..<($0.end + 1)) }
            #expect(hits.count == 1, "letter at \(range): \(hits.count) matches")
            #expect(hits.first?.classIndex == label, "letter at \(range) labelled \(String(describing: hits.first?.classIndex)), is \(label)")
        }
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
    /// pushed from frame 2^30 - 40 on (across the move) gives the same matches, shifted.
    @Test func longStreamsKeepTheirMatches() throws {
        let up: [[Float]] = [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4.5]]
        let down: [[Float]] = [[4, 3, 2, 1, 0], [4.5, 3, 2, 1, 0]]
        var dtw = DTWClassifier(variant: .dependent, nullRejection: 1)
        try dtw.train((up + down).map { TimeSeries(channels: [$0]) }, labels: [0, 0, 1, 1], classes: ["up", "down"])
        let filler = [Float](repeating: 20, count: 20)
        let stream = (filler + up[0] + filler + down[0] + filler + up[1] + filler).map { [$0] }
        var fresh = try DTWSpotter(classifier: dtw)
        let expected = SpotterTests.push(&fresh, stream).map(\.0)
        #expect(expected.count == 3)
        var late = try DTWSpotter(classifier: dtw)
        let shift = (1 << 30) - 40
        late.frame = shift
        let found = SpotterTests.push(&late, stream).map(\.0)
        #expect(late.columns.base == 1 << 29)
        #expect(found == expected.map { SpotterMatch(classIndex: $0.classIndex, distance: $0.distance, start: $0.start + shift, end: $0.end + shift) })
    }
}
