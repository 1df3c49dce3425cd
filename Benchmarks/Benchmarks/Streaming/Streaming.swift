import Benchmark
import Foundation
import GestureKit

/// Per-frame cost of live recognition (release, one core): `Recognizer.push` on a continuing stream.
/// Each sample pushes 1,000 frames; the table's scaled figures (*) are per frame.
/// - the bundled live pipeline (low-pass, 20-frame windows every 5 frames, time-domain features,
///   kNN, label and change filters) on BasicMotions test frames;
/// - DTW spotting of GRT's G/R/T letters (pipelines/grt-letters.json, all 45 letters as templates)
///   on a stream of letters separated by 200 still samples (target: median <= 20 us per frame;
///   GRT 3,570 us), and the same with the default DTW pipeline (`--classifier dtw`, no spec) and
///   with its check for gestures of no learned class.
let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
let datasets = repo.deletingLastPathComponent().appendingPathComponent("shared/datasets").path

/// Every frame of every series, in order.
func frames(of data: Dataset) -> [[Float]] {
    data.examples.flatMap { e in (0..<e.series.frameCount).map { Array(e.series.frame($0)) } }
}

/// A recogniser fed from a looping stream, kept across samples so windows and spotter state are warm.
final class LiveStream: @unchecked Sendable {
    var recognizer: Recognizer
    let stream: [[Float]]
    var next = 0

    init(_ pipeline: Pipeline, _ stream: [[Float]]) {
        recognizer = pipeline.recognizer()
        self.stream = stream
        for _ in 0..<min(stream.count, 2_000) { push() }
    }

    @inline(__always)
    func push() {
        blackHole(try! recognizer.push(stream[next]))
        next += 1
        if next == stream.count { next = 0 }
    }
}

let basicMotionsLive: LiveStream = {
    let train = try! Dataset.load(repo.appendingPathComponent("datasets/basicmotions/BasicMotions_TRAIN.ts").path,
                                  options: DatasetLoadOptions(sampleRate: 10))
    let spec = try! PipelineSpec.load(repo.appendingPathComponent("pipelines/basicmotions-live.json").path)
    let pipeline = try! Pipeline.train(spec, on: train)
    let test = try! Dataset.load(repo.appendingPathComponent("datasets/basicmotions/BasicMotions_TEST.ts").path)
    return LiveStream(pipeline, frames(of: test))
}()

let lettersLive: LiveStream? = lettersStream(try! PipelineSpec.load(repo.appendingPathComponent("pipelines/grt-letters.json").path))

/// The plain `gesture train DTWTrainingData.grt --classifier dtw` pipeline (the segmental decoder).
let lettersDefaultLive: LiveStream? = lettersStream(try! DefaultSpecs.build(classifier: "dtw", specFile: nil))

/// The same without the check for gestures of no learned class (pipelines/dtw-no-unlearned-check.json):
/// the check runs once per report, so its cost in the default shows spread over the frames.
let lettersNoCheckLive: LiveStream? = lettersStream(try! PipelineSpec.load(repo.appendingPathComponent("pipelines/dtw-no-unlearned-check.json").path))

/// The same naming each report by its template (pipelines/dtw-template-names.json), without the
/// default's whole-example searches around each report.
let lettersTemplateNamesLive: LiveStream? = lettersStream(try! PipelineSpec.load(repo.appendingPathComponent("pipelines/dtw-template-names.json").path))

func lettersStream(_ spec: PipelineSpec) -> LiveStream? {
    guard let letters = try? Dataset.load(datasets + "/grt/DTWTrainingData.grt") else { return nil }
    let pipeline = try! Pipeline.train(spec, on: letters)
    // Letters separated by 2 s (200 samples) of the last sample held still, as a user pausing.
    var stream: [[Float]] = []
    for e in letters.examples {
        let f = frames(of: Dataset(examples: [e]))
        stream += f
        stream += Array(repeating: f.last!, count: 200)
    }
    return LiveStream(pipeline, stream)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .mallocCountTotal], timeUnits: .nanoseconds,
                                           scalingFactor: .kilo, maxDuration: .seconds(3), maxIterations: 10_000)

    Benchmark("Recognizer push, BasicMotions live kNN pipeline, per frame") { benchmark in
        let live = basicMotionsLive
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { live.push() }
    }

    Benchmark("Recognizer push, G/R/T DTW spotting, per frame") { benchmark in
        guard let live = lettersLive else { return }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { live.push() }
    }

    Benchmark("Recognizer push, G/R/T default DTW spotting, per frame") { benchmark in
        guard let live = lettersDefaultLive else { return }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { live.push() }
    }

    Benchmark("Recognizer push, G/R/T DTW spotting without the unlearned check, per frame") { benchmark in
        guard let live = lettersNoCheckLive else { return }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { live.push() }
    }

    Benchmark("Recognizer push, G/R/T DTW spotting named by templates, per frame") { benchmark in
        guard let live = lettersTemplateNamesLive else { return }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { live.push() }
    }
}
