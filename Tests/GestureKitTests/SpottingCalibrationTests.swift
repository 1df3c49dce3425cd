import Foundation
import Testing
@testable import GestureKit

/// Synthetic 2-D gestures that start and end at rest at the origin, performed at random speed
/// (0.8x to 1.25x) and size (+-10 %), with sensor noise: the shape of recorded gestures, always here.
enum SyntheticGestures {
    static let classes = ["loop", "zigzag", "hook"]

    static func example(_ cls: Int, _ rng: inout SeededGenerator, rest: Int = 10) -> TimeSeries {
        let n = Int(60 * (0.8 + 0.45 * rng.nextUnit()))
        let a = 1 + 0.2 * (rng.nextUnit() - 0.5)
        var frames: [[Float]] = []
        for _ in 0..<rest { frames.append([0.01 * rng.nextGaussian(), 0.01 * rng.nextGaussian()]) }
        for i in 0..<n {
            let u = Float(i) / Float(n - 1)
            let p: [Float]
            switch cls {
            case 0: p = [sinf(2 * .pi * u), 1 - cosf(2 * .pi * u)]
            case 1: p = [sinf(4 * .pi * u), 0.5 * sinf(.pi * u)]
            default: p = [-sinf(.pi * u), -sinf(2 * .pi * u)]
            }
            frames.append([a * p[0] + 0.02 * rng.nextGaussian(), a * p[1] + 0.02 * rng.nextGaussian()])
        }
        for _ in 0..<rest { frames.append([0.01 * rng.nextGaussian(), 0.01 * rng.nextGaussian()]) }
        return TimeSeries(frames: frames)
    }

    static func dataset(perClass: Int, seed: UInt64) -> Dataset {
        var rng = SeededGenerator(seed: seed)
        var examples: [Example] = []
        for _ in 0..<perClass {
            for c in classes.indices { examples.append(Example(series: example(c, &rng), label: classes[c])) }
        }
        return Dataset(examples: examples, classes: classes)
    }
}

@Suite struct SpottingCalibrationTests {
    static func defaultPipeline(_ data: Dataset, nullRejection: Double? = nil) throws -> Pipeline {
        let spec = try DefaultSpecs.build(classifier: "dtw", specFile: nil,
                                          overrides: .init(classifier: ClassifierSettings(nullRejection: nullRejection.map { Float($0) })))
        return try Pipeline.train(spec, on: data)
    }

    /// Pushes `frames`; returns each detection with the frame it was reported at.
    static func stream(_ p: Pipeline, _ frames: [[Float]]) throws -> [(Detection, at: Int)] {
        var live = p.recognizer()
        var out: [(Detection, Int)] = []
        for (t, f) in frames.enumerated() { if let d = try live.push(f) { out.append((d, t)) } }
        return out
    }

    static func frames(_ s: TimeSeries) -> [[Float]] { (0..<s.frameCount).map { Array(s.frame($0)) } }

    @Test func defaultDTWPipelineSpotsHeldOutGesturesAndIsSilentAtRest() throws {
        let p = try Self.defaultPipeline(SyntheticGestures.dataset(perClass: 12, seed: 1))
        #expect(p.decidesLive)
        var rng = SeededGenerator(seed: 2)
        var frames: [[Float]] = Array(repeating: [0, 0], count: 100)
        var spans: [(range: ClosedRange<Int>, label: String)] = []
        for k in 0..<12 {
            let c = k % 3
            let s = SyntheticGestures.example(c, &rng)
            spans.append((frames.count...(frames.count + s.frameCount - 1), SyntheticGestures.classes[c]))
            frames += Self.frames(s)
            frames += Array(repeating: frames.last!, count: 100)
        }
        let found = try Self.stream(p, frames).map(\.0)
        for d in found {
            #expect(spans.contains { $0.range.overlaps(d.start...d.end) }, "detection \(d) in a still stretch")
        }
        for s in spans {
            let hits = found.filter { s.range.overlaps($0.start...$0.end) }
            #expect(hits.count == 1 && hits.first?.label == s.label, "\(s.label) at \(s.range): \(hits.map(\.label))")
        }
        // Long rest: at the origin, at a held offset, and noisy.
        var rest: [[Float]] = Array(repeating: [0, 0], count: 1000) + Array(repeating: [0.3, -0.2], count: 1000)
        for _ in 0..<1000 { rest.append([0.02 * rng.nextGaussian(), 0.02 * rng.nextGaussian()]) }
        #expect(try Self.stream(p, rest).isEmpty)
    }

    /// The segmental decoder reports the first and loses the second: each SPRING cell keeps one
    /// path, and the first gesture's path through its still tail, reported, shadows the second's
    /// start.
    @Test func backToBackGesturesAreBothReportedBySegments() throws {
        withKnownIssue("one path per SPRING cell: the reported gesture's tail shadows the next one's start") {
            try Self.backToBack()
        }
    }

    static func backToBack() throws {
        let p = try Self.defaultPipeline(SyntheticGestures.dataset(perClass: 12, seed: 1))
        var rng = SeededGenerator(seed: 3)
        for (a, b) in [(0, 1), (1, 2), (2, 0), (0, 0)] {
            let first = SyntheticGestures.example(a, &rng, rest: 0), second = SyntheticGestures.example(b, &rng, rest: 0)
            var frames: [[Float]] = Array(repeating: [0, 0], count: 50)
            let r1 = frames.count...(frames.count + first.frameCount - 1)
            frames += Self.frames(first)
            let r2 = frames.count...(frames.count + second.frameCount - 1)
            frames += Self.frames(second) + Array(repeating: [0, 0], count: 200)
            let found = try Self.stream(p, frames)
            #expect(found.map(\.0.label) == [SyntheticGestures.classes[a], SyntheticGestures.classes[b]], "\(a) then \(b)")
            guard found.count == 2 else { continue }
            #expect(r1.contains((found[0].0.start + found[0].0.end) / 2))
            #expect(r2.contains((found[1].0.start + found[1].0.end) / 2))
            // Latency bound: a conflicting path stops holding a report back once it could only end
            // at an implausible length (maxWarp times the longest template).
            let longest = 2 * 10 + Int(60 * 1.25)
            #expect(found[0].at <= found[0].0.start + SpringColumns.maxWarp * longest)
            #expect(found[1].at <= found[1].0.start + SpringColumns.maxWarp * longest)
        }
    }

    /// The issue's check: the plain default DTW, 3 held-out letters per class streamed shuffled
    /// with 200 still frames between them, each reported once with its label and nothing else.
    @Test(.enabled(if: TestData.hasShared)) func replayOfHeldOutGRTLetters() throws {
        let data = try Dataset.load(TestData.sharedPath("grt/DTWTrainingData.grt"))
        let spec = try DefaultSpecs.build(classifier: "dtw", specFile: nil)
        let r = try Evaluation.spottingReplay(spec, on: data, holdout: 3, partitions: 5, gap: 200, seed: 100, still: [.last])
        #expect(r.gestures == 45)
        #expect(r.wrongLabel == 0 && r.repeated == 0 && r.falseDetections == 0)
        #expect(r.correct + r.missed == 45)
        #expect(r.perfectPartitions == 5, "\(r.text)")
    }

    /// The per-class table adds up to the totals, and a gesture streamed under another class's name
    /// is counted as a wrong label of that class, with the label it was given. A Running example
    /// called "Standing" is spotted as Running (BasicMotions, bundled).
    @Test func replayCountsEachClassAndWhatItsWrongOnesWereNamed() throws {
        let data = try Dataset.load(TestData.basicMotionsTrain)
        let running = data.examples.indices.filter { data.examples[$0].label == "Running" }
        let walking = data.examples.indices.filter { data.examples[$0].label == "Walking" }
        let held = [running[0], walking[0], running[1]]
        let pipeline = try Pipeline.train(try DefaultSpecs.build(classifier: "dtw", specFile: nil),
                                          on: data.subset(data.examples.indices.filter { !held.contains($0) }))
        var gestures = held.map { data.examples[$0] }
        gestures[2].label = "Standing"
        let p = try Evaluation.replay(pipeline, gestures, gap: 200, still: .last, seed: 0)
        #expect(p.perClass["Standing"] == SpottingReplayReport.ClassTally(gestures: 1, wrongLabel: 1, namedAs: ["Running": 1]), "\(p)")
        #expect(p.perClass["Running"]?.gestures == 1 && p.perClass["Walking"]?.gestures == 1)
        // Classified whole, the two rightly named ones are right; the renamed Running cannot be.
        #expect(p.wholeCorrect == 2, "\(p)")
        let tallies = Array(p.perClass.values)
        func sum(_ k: KeyPath<SpottingReplayReport.ClassTally, Int>) -> Int { tallies.reduce(0) { $0 + $1[keyPath: k] } }
        let sums: [Int] = [sum(\.gestures), sum(\.correct), sum(\.missed), sum(\.wrongLabel), sum(\.repeated)]
        let totals: [Int] = [p.gestures, p.correct, p.missed, p.wrongLabel, p.repeated]
        #expect(sums == totals)
        let report = SpottingReplayReport(partitions: [p, p], holdout: 1, gap: 200)
        #expect(report.perClass["Standing"]?.namedAs == ["Running": 2])
        #expect(report.text.contains("per class:") && report.text.contains("Running 2"), "\(report.text)")

        // The outcomes are the gestures in stream order, at their frames (200 still ones before
        // each), then the false detections; the counts are theirs.
        let streamed = p.outcomes.filter { $0.label != nil }
        #expect(streamed.map(\.label) == ["Running", "Walking", "Standing"])
        var next = 200
        for (o, g) in zip(streamed, gestures) {
            #expect(o.start == next && o.end == next + g.series.frameCount - 1, "\(o)")
            next = o.end + 1 + 200
        }
        #expect(streamed.count { $0.isCorrect } == p.correct)
        #expect(streamed.count { $0.reported.isEmpty } == p.missed)
        #expect(streamed.reduce(0) { $0 + max($1.reported.count - 1, 0) } == p.repeated)
        #expect(p.outcomes.count { $0.label == nil } == p.falseDetections)
        #expect(streamed.count { $0.whole == $0.label } == p.wholeCorrect)
        #expect(streamed[2].reported.first == "Running")
        // Each report's frames, one span per label, overlapping the gesture it is charged to.
        for o in p.outcomes {
            #expect(o.reportedFrames.count == o.reported.count, "\(o)")
            #expect(o.reportedFrames.allSatisfy { $0.overlaps(o.start...o.end) }, "\(o)")
        }
        let named = try #require(streamed[2].reportedFrames.first)
        #expect(report.traceText.contains("seed 0 last: gesture 3 of 3, Standing, frames \(streamed[2].start)-\(streamed[2].end): "
                                          + "reported Running at \(named.lowerBound)-\(named.upperBound)"),
                "\(report.traceText)")
    }

    /// From two recordings a class the segmental model knows each class's true cost from two
    /// leave-one-out matches; held-out letters cost more and 15 of 81 were missed (none wrong).
    @Test(.enabled(if: TestData.hasShared)) func replayOfLettersTrainedOnTwoPerClassBySegments() throws {
        withKnownIssue("two examples a class give the segmental model too narrow a true-cost scale") {
            try Self.lettersFromTwoPerClass()
        }
    }

    static func lettersFromTwoPerClass() throws {
        let all = try Dataset.load(TestData.sharedPath("grt/DTWTrainingData.grt"))
        var taken = [String: Int]()
        let five = all.examples.indices.filter { i in
            let l = all.examples[i].label!
            taken[l, default: 0] += 1
            return taken[l]! <= 5
        }
        let data = all.subset(five)
        #expect(data.examples.count == 15)
        let spec = try DefaultSpecs.build(classifier: "dtw", specFile: nil)
        let r = try Evaluation.spottingReplay(spec, on: data, holdout: 3, partitions: 3, gap: 200, seed: 0, still: StillFrames.allCases)
        #expect(r.gestures == 81)
        #expect(r.correct == 81 && r.falseDetections == 0 && r.repeated == 0, "\(r.text)")
    }

    /// The spread of a class fitted on four distances or fewer moves toward its mean, weighted as
    /// four distances; more distances, or none (a class filled from the pooled ones), keep theirs.
    @Test func fewDistancesHaveTheirSpreadWidened() {
        var r = NullRejection(k: 1, classCount: 4)
        r.fit(distances: [[10, 10], [9, 11, 10, 10, 10], [7, 13], [8, 12, 8, 12]])
        #expect(r.stds.values == [0, Float(0.4).squareRoot(), 3, 2])
        r.widenFewSpreads(counts: [2, 5, 0, 4])
        let want: [Float] = [(400 / Float(6)).squareRoot(), Float(0.4).squareRoot(), 3, (Float(4 * 4 + 400) / 8).squareRoot()]
        #expect(zip(r.stds.values, want).allSatisfy { abs($0 - $1) < 1e-5 }, "\(r.stds.values)")
        #expect(r.means.values == [10, 10, 10, 10])
    }

    /// A real sensor at rest is never exactly still: with Gaussian noise of 3 % of each channel's
    /// spread on the still frames, every held-out letter is still reported once, rightly, and
    /// nothing is reported during the stillness (tuning seeds 0-4).
    @Test(.enabled(if: TestData.hasShared)) func replayOfLettersWithNoisyStillFrames() throws {
        let data = try Dataset.load(TestData.sharedPath("grt/DTWTrainingData.grt"))
        let spec = try DefaultSpecs.build(classifier: "dtw", specFile: nil)
        let r = try Evaluation.spottingReplay(spec, on: data, holdout: 3, partitions: 5, gap: 200, seed: 0, still: [.last], noise: 0.03)
        #expect(r.noise == 0.03)
        #expect(r.perfectPartitions == 5, "\(r.text)")
    }

    /// With zeros held between mouse gestures (GRT's HMMTrainingData, 2 channels of pixels) and noise
    /// on them, a fragment's stretch takes in the jumps to and from zero: it lies far beyond every
    /// class and must not rename the gesture its match named (9 wrong of 75 before the rule).
    @Test(.enabled(if: TestData.hasShared)) func aStretchTakingInTheJumpToHeldZerosKeepsTheMatchsLabel() throws {
        let data = try Dataset.load(TestData.sharedPath("grt/HMMTrainingData.grt"))
        let spec = try DefaultSpecs.build(classifier: "dtw", specFile: nil)
        let r = try Evaluation.spottingReplay(spec, on: data, holdout: 3, partitions: 5, gap: 200, seed: 0, still: [.zeros], noise: 0.03)
        #expect(r.wrongLabel == 0 && r.falseDetections == 0 && r.correct >= 74, "\(r.text)")
    }

    /// The noise reaches the stream (UWave's smooth recordings are thrown off by heavy noise at
    /// rest) and is seeded: the same seed gives the same report.
    @Test(.enabled(if: TestData.hasShared)) func stillFrameNoiseIsSeededAndReachesTheStream() throws {
        let data = try Dataset.load(TestData.sharedPath("uwave/UWaveGestureLibrary_TRAIN.ts"))
        let spec = try DefaultSpecs.build(classifier: "dtw", specFile: nil)
        func replay(_ noise: Float) throws -> SpottingReplayReport {
            try Evaluation.spottingReplay(spec, on: data, holdout: 3, partitions: 1, gap: 200, seed: 0, still: [.last], noise: noise)
        }
        let quiet = try replay(0), noisy = try replay(0.3)
        #expect(noisy.partitions != quiet.partitions, "\(noisy.text)")
        #expect(try replay(0.3) == noisy)
        #expect(throws: GestureKitError.self) { try replay(-0.01) }
        #expect(throws: GestureKitError.self) { try replay(.nan) }
    }

    @Test func channelSpreadIsEachChannelsStandardDeviationOverEveryFrame() {
        let a = Example(series: TimeSeries(frames: [[1, 10], [3, 10]]), label: "a")
        let b = Example(series: TimeSeries(frames: [[5, 10], [7, 10]]), label: "b")
        let spread = Evaluation.channelSpread(Dataset(examples: [a, b]))
        #expect(abs(spread[0] - Float(5).squareRoot()) < 1e-5)   // values 1, 3, 5, 7: variance 5
        #expect(spread[1] == 0)
        // A sample that is not a number is skipped, not spread over every noisy still frame.
        let bad = Example(series: TimeSeries(frames: [[.nan, 10]]), label: "c")
        #expect(Evaluation.channelSpread(Dataset(examples: [a, b, bad])) == spread)
    }

    @Test func replayRefusesClassesTooSmallToHoldOut() throws {
        let spec = try DefaultSpecs.build(classifier: "dtw", specFile: nil)
        #expect(throws: GestureKitError.self) {
            try Evaluation.spottingReplay(spec, on: SyntheticGestures.dataset(perClass: 3, seed: 1), holdout: 3)
        }
    }
}

/// A PackedFloats value of the wrong length, for damaged-file tests.
enum PackedFloatsJSON {
    static var one: Any { try! JSONSerialization.jsonObject(with: JSONEncoder().encode(PackedFloats([1])), options: .fragmentsAllowed) }
}
