import Benchmark
import Foundation
import GestureKit

/// Per-frame cost of live recognition (release, one core): one `Recognizer.push` per iteration.
/// - the bundled live pipeline (low-pass, 20-frame windows every 5 frames, time-domain features,
///   kNN, label and change filters) on BasicMotions test frames;
/// - DTW spotting of GRT's G/R/T letters (templates from DTWTrainingData) on a stream of letters
///   separated by still samples (target: median <= 20 us per frame; GRT 3,570 us).
let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
let datasets = repo.deletingLastPathComponent().appendingPathComponent("shared/datasets").path

/// Every frame of every series, in order.
func frames(of data: Dataset) -> [[Float]] {
    data.examples.flatMap { e in (0..<e.series.frameCount).map { Array(e.series.frame($0)) } }
}

func pushEachFrame(_ benchmark: Benchmark, _ pipeline: Pipeline, _ stream: [[Float]]) throws {
    var r = pipeline.liveRecognizer()
    var i = 0
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
        blackHole(try r.push(stream[i]))
        i += 1
        if i == stream.count { i = 0 }
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds,
                                           maxDuration: .seconds(3), maxIterations: 1_000_000)

    Benchmark("Recognizer push, BasicMotions live kNN pipeline, per frame") { benchmark in
        var train = try Dataset.load(repo.appendingPathComponent("datasets/basicmotions/BasicMotions_TRAIN.ts").path)
        train.sampleRate = 10
        for i in train.examples.indices { train.examples[i].series.sampleRate = 10 }
        let spec = try PipelineSpec.load(repo.appendingPathComponent("pipelines/basicmotions-live.json").path)
        let pipeline = try Pipeline.train(spec, on: train)
        let test = try Dataset.load(repo.appendingPathComponent("datasets/basicmotions/BasicMotions_TEST.ts").path)
        try pushEachFrame(benchmark, pipeline, frames(of: test))
    }

    Benchmark("Recognizer push, G/R/T DTW spotting, per frame") { benchmark in
        guard let letters = try? Dataset.load(datasets + "/grt/DTWTrainingData.grt") else { return }
        let spec = try PipelineSpec.load(repo.appendingPathComponent("pipelines/grt-letters.json").path)
        let pipeline = try Pipeline.train(spec, on: letters)
        // Letters separated by 2 s (200 samples) of the last sample held still, as a user pausing.
        var stream: [[Float]] = []
        for e in letters.examples {
            let f = frames(of: Dataset(examples: [e]))
            stream += f
            stream += Array(repeating: f.last!, count: 200)
        }
        try pushEachFrame(benchmark, pipeline, stream)
    }
}
