import Foundation
import Testing
@testable import GestureKit

/// Live spotting through a whole pipeline: held-out G/R/T letters in a stream, separated by 2 s of
/// still samples (200 at GRT's ~100 Hz), each detected once with its label, nothing in the still parts.
@Suite(.enabled(if: TestData.hasShared)) struct SpottingPipelineTests {
    /// The first 10 recordings of each letter train and the last 5 are streamed.
    @Test func heldOutLettersAreEachDetectedOnceThroughTheLiveRecognizer() throws {
        try spot(reversed: false)
    }

    /// The other way round: the last 10 train, the first 5 are streamed. Spotting compares raw pixel
    /// coordinates, and two of these letters were drawn elsewhere on the screen than any template, so
    /// they go undetected; a known limitation until spotting gets a position-invariant form.
    @Test func reversedPartitionMissesLettersDrawnElsewhere() throws {
        withKnownIssue("raw-coordinate spotting is not translation-invariant") {
            try spot(reversed: true)
        }
    }

    func spot(reversed: Bool) throws {
        let data = try Dataset.load(TestData.sharedPath("grt/DTWTrainingData.grt"))
        var train: [Int] = [], held: [Int] = []
        for c in data.classes {
            var members = data.examples.indices.filter { data.examples[$0].label == c }
            if reversed { members.reverse() }
            train += members.prefix(10)
            held += members.dropFirst(10)
        }
        let spec = try PipelineSpec.load(TestData.repo.appendingPathComponent("pipelines/grt-letters.json").path)
        let pipeline = try Pipeline.train(spec, on: data.subset(train))
        #expect(pipeline.supportsSpotting)

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
        var live = pipeline.liveRecognizer()
        var detections: [Detection] = []
        for f in frames { if let d = try live.push(f) { detections.append(d) } }

        for d in detections {
            let hit = letters.filter { $0.range.overlaps(d.start..<(d.end + 1)) }
            #expect(hit.count == 1, "detection \(d) overlaps \(hit.count) letters (a still part or two letters)")
        }
        for l in letters {
            let hits = detections.filter { l.range.overlaps($0.start..<($0.end + 1)) }
            #expect(hits.count == 1, "letter \(l.label) at \(l.range): \(hits.count) detections")
            #expect(hits.first?.label == l.label)
        }
        #expect(detections.count == held.count)
    }
}
