import Benchmark
import Foundation
import GestureKit

/// DTW workloads (release, one core; medians are what the targets and the peer script use):
/// - one distance, two 6-channel series of 100 frames, full window (target <= 15 us);
/// - 1-NN classification of the 40 BasicMotions test series against the 40 training series, full
///   window, dependent (target <= 8 ms for all 40);
/// - training on GRT's DTWTrainingData with the letters configuration (z-normalised, resampled to
///   50, 10 % band, leave-one-out null-rejection statistics; target <= 20 ms).
let datasets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("shared/datasets").path

func randomSeries(_ frames: Int, _ channels: Int, seed: UInt64) -> TimeSeries {
    var rng = SeededGenerator(seed: seed)
    return TimeSeries(values: (0..<(frames * channels)).map { _ in rng.nextGaussian() }, channelCount: channels)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .mallocCountTotal], timeUnits: .nanoseconds,
                                           maxDuration: .seconds(3), maxIterations: 100_000)

    Benchmark("DTW distance 6ch x 100 full window") { benchmark in
        let a = randomSeries(100, 6, seed: 1), b = randomSeries(100, 6, seed: 2)
        var dtw = DTWDistance(variant: .dependent, band: .full)
        blackHole(dtw.distance(a, b))  // sizes the scratch once
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(dtw.distance(a, b)) }
    }

    Benchmark("DTW 1-NN BasicMotions 40 test vs 40 train full window",
              configuration: .init(timeUnits: .microseconds)) { benchmark in
        guard let train = try? Dataset.load(datasets + "/basicmotions/BasicMotions_TRAIN.ts"),
              let test = try? Dataset.load(datasets + "/basicmotions/BasicMotions_TEST.ts") else { return }
        var dtw = DTWClassifier(variant: .dependent)
        try? dtw.train(train.examples.map(\.series), labels: train.labelIndices.map { $0! }, classes: train.classes)
        let queries = test.examples.map(\.series)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            for q in queries { blackHole(dtw.predict(q)) }
        }
    }

    Benchmark("DTW training DTWTrainingData (letters config)",
              configuration: .init(timeUnits: .microseconds)) { benchmark in
        guard let d = try? Dataset.load(datasets + "/grt/DTWTrainingData.grt") else { return }
        let series = d.examples.map(\.series), labels = d.labelIndices.map { $0! }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            var dtw = DTWClassifier(variant: .dependent, band: .fraction(0.1), resample: 50, zNormalize: true,
                                    nullRejection: 10)
            try? dtw.train(series, labels: labels, classes: d.classes)
            blackHole(dtw)
        }
    }

    Benchmark("DTW training DTWTrainingData raw full window",
              configuration: .init(timeUnits: .microseconds)) { benchmark in
        guard let d = try? Dataset.load(datasets + "/grt/DTWTrainingData.grt") else { return }
        let series = d.examples.map(\.series), labels = d.labelIndices.map { $0! }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            var dtw = DTWClassifier(variant: .dependent, nullRejection: 3)
            try? dtw.train(series, labels: labels, classes: d.classes)
            blackHole(dtw)
        }
    }
}
