import Foundation
import Testing
@testable import GestureKit

/// Live spotting through a whole pipeline: held-out G/R/T letters in a stream, separated by 2 s of
/// still samples (200 at GRT's ~100 Hz), each detected once with its label, nothing in the still parts.
@Suite(.enabled(if: TestData.hasShared)) struct SpottingPipelineTests {
    /// Which recordings of each letter train (10) and which are streamed (5): the first 10, the last
    /// 10, or a seeded shuffle.
    enum Partition: String, CaseIterable, CustomTestStringConvertible {
        case first, last, shuffled1, shuffled2
        var testDescription: String { rawValue }
    }

    /// Nothing is reported in the still parts or named wrongly, and at most 3 of the 15 letters are
    /// missed. All 15 are not found yet: raw mouse coordinates keep where on the screen a letter was
    /// drawn, and from 10 recordings a letter the segmental decoder finds 53 of the 60 (a high-pass
    /// would remove the place, but also turns the jump from a held frame to the next letter into
    /// motion training never saw: 53 of 135 in the letters replay).
    @Test(arguments: Partition.allCases)
    func heldOutLettersAreEachDetectedOnceThroughTheLiveRecognizer(partition: Partition) throws {
        let found = try spot(partition)
        #expect(found >= 12)
        withKnownIssue("raw-coordinate spotting misses letters drawn elsewhere on the screen", isIntermittent: true) {
            #expect(found == 15)
        }
    }

    /// Streams the partition's held-out letters; returns how many were detected once with their label.
    func spot(_ partition: Partition) throws -> Int {
        let data = try Dataset.load(TestData.sharedPath("grt/DTWTrainingData.grt"))
        var train: [Int] = [], held: [Int] = []
        for c in data.classes {
            var members = data.examples.indices.filter { data.examples[$0].label == c }
            switch partition {
            case .first: break
            case .last: members.reverse()
            case .shuffled1: var g = SeededGenerator(seed: 101); members.shuffle(using: &g)
            case .shuffled2: var g = SeededGenerator(seed: 202); members.shuffle(using: &g)
            }
            train += members.prefix(10)
            held += members.dropFirst(10)
        }
        let spec = try PipelineSpec.load(TestData.repo.appendingPathComponent("pipelines/grt-letters.json").path)
        let pipeline = try Pipeline.train(spec, on: data.subset(train))
        #expect(pipeline.decidesLive)

        var rng = SeededGenerator(seed: 7)
        held.shuffle(using: &rng)
        var frames: [[Float]] = []
        var letters: [(range: Range<Int>, label: String)] = []
        for i in held {
            let s = data.examples[i].series
            frames += Array(repeating: Array(s.frame(0)), count: 200)
            let begin = frames.count
            for f in 0..<s.frameCount { frames.append(Array(s.frame(f))) }
            letters.append((begin..<frames.count, data.examples[i].label!))
            frames += Array(repeating: Array(s.frame(s.frameCount - 1)), count: 200)
        }
        var live = pipeline.recognizer()
        var detections: [Detection] = []
        for f in frames { if let d = try live.push(f) { detections.append(d) } }

        for d in detections {
            let hit = letters.filter { $0.range.overlaps(d.start..<(d.end + 1)) }
            #expect(hit.count == 1, "detection \(d) overlaps \(hit.count) letters (a still part or two letters)")
        }
        var found = 0
        for l in letters {
            let hits = detections.filter { l.range.overlaps($0.start..<($0.end + 1)) }
            #expect(hits.count <= 1, "letter \(l.label) at \(l.range): \(hits.count) detections")
            #expect(hits.allSatisfy { $0.label == l.label }, "letter \(l.label) at \(l.range): \(hits.map(\.label))")
            if hits.count == 1, hits[0].label == l.label { found += 1 }
        }
        return found
    }
}
