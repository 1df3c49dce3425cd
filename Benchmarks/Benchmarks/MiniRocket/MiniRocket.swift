import Benchmark
import Foundation
import GestureKit

/// MiniRocket on UWaveGestureLibrary TRAIN (120 x 3 channels x 315 frames), 10,000 features, one
/// thread: fitting the transform (dilations, channel combinations, biases), transforming all 120,
/// and training the whole pipeline (transform + ridge with LOO alpha); plain MiniRocket (PPV, as
/// aeon's), the channels laid end to end (PPV), MultiRocket's four pools, the default (four pools on
/// the channels laid end to end), and MultiRocket's layout (pools and difference). Live: a windowed
/// pipeline on BasicMotions (window 50, hop 10): the cost of pushing one hop of frames, i.e. one
/// decision.
/// The peer script Benchmarks/peers/minirocket_peer.py times aeon's MiniRocket on the same data.
let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
let datasets = repo.deletingLastPathComponent().appendingPathComponent("shared/datasets").path

let benchmarks: @Sendable () -> Void = {
    // Microseconds: fit takes a few ms now, and whole-ms medians would make the peer ratios coarse.
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds,
                                           maxDuration: .seconds(5), maxIterations: 50)
    // One BLAS thread, as aeon runs in the peer script: OPENBLAS_NUM_THREADS=1 in the environment
    // (the peer script sets it; OpenBLAS reads it when it loads, before any code here runs).

    if let d = try? Dataset.load(datasets + "/uwave/UWaveGestureLibrary_TRAIN.ts") {
        let series = d.examples.map(\.series)
        var fitted = MiniRocket()
        try? fitted.fit(series, channels: 3, sampleRate: nil)
        let stage = fitted

        Benchmark("MiniRocket fit UWave TRAIN 120x3x315") { benchmark in
            for _ in benchmark.scaledIterations {
                var m = MiniRocket()
                try? m.fit(series, channels: 3, sampleRate: nil)
                blackHole(m)
            }
        }

        Benchmark("MiniRocket transform UWave TRAIN 120x3x315") { benchmark in
            for _ in benchmark.scaledIterations {
                for s in series { blackHole(stage.features(of: s)) }
            }
        }

        // MultiRocket's four pools per bias.
        var pooled = MiniRocket(multiPooling: true)
        try? pooled.fit(series, channels: 3, sampleRate: nil)
        let pooledStage = pooled
        Benchmark("MiniRocket transform UWave TRAIN 120x3x315 multiPooling") { benchmark in
            for _ in benchmark.scaledIterations {
                for s in series { blackHole(pooledStage.features(of: s)) }
            }
        }

        // The channels laid end to end, PPV only: what aeon's MiniRocket computes on the
        // univariate series of 945 frames (the peer script times it on that series).
        var ends = MiniRocket(concatenate: true)
        try? ends.fit(series, channels: 3, sampleRate: nil)
        let endsStage = ends
        Benchmark("MiniRocket fit UWave TRAIN 120x3x315 concatenate") { benchmark in
            for _ in benchmark.scaledIterations {
                var m = MiniRocket(concatenate: true)
                try? m.fit(series, channels: 3, sampleRate: nil)
                blackHole(m)
            }
        }
        Benchmark("MiniRocket transform UWave TRAIN 120x3x315 concatenate") { benchmark in
            for _ in benchmark.scaledIterations {
                for s in series { blackHole(endsStage.features(of: s)) }
            }
        }

        // The default of `--classifier minirocket`: four pools, the channels laid end to end.
        var laid = MiniRocket(multiPooling: true, concatenate: true)
        try? laid.fit(series, channels: 3, sampleRate: nil)
        let laidStage = laid
        Benchmark("MiniRocket transform UWave TRAIN 120x3x315 multiPooling concatenate") { benchmark in
            for _ in benchmark.scaledIterations {
                for s in series { blackHole(laidStage.features(of: s)) }
            }
        }

        // MultiRocket's layout: four pools, half the biases on the first difference. aeon's
        // MultiRocket(n_kernels: 1250) computes the same 10,000 features' shapes.
        var multi = MiniRocket(difference: true, multiPooling: true)
        try? multi.fit(series, channels: 3, sampleRate: nil)
        let multiStage = multi
        Benchmark("MiniRocket transform UWave TRAIN 120x3x315 multiPooling difference") { benchmark in
            for _ in benchmark.scaledIterations {
                for s in series { blackHole(multiStage.features(of: s)) }
            }
        }

        if var spec = try? DefaultSpecs.build(classifier: "minirocket", specFile: nil) {
            let defaultSpec = spec
            Benchmark("MiniRocket pipeline train UWave TRAIN multiPooling concatenate (transform + ridge LOO)") { benchmark in
                for _ in benchmark.scaledIterations { blackHole(try? Pipeline.train(defaultSpec, on: d)) }
            }
            spec.extractors = [MiniRocket(multiPooling: true)]
            let pooledSpec = spec
            Benchmark("MiniRocket pipeline train UWave TRAIN multiPooling (transform + ridge LOO)") { benchmark in
                for _ in benchmark.scaledIterations { blackHole(try? Pipeline.train(pooledSpec, on: d)) }
            }
            // Plain MiniRocket (PPV only), what aeon's MiniRocket computes.
            spec.extractors = [MiniRocket()]
            let plainSpec = spec
            Benchmark("MiniRocket pipeline train UWave TRAIN (transform + ridge LOO)") { benchmark in
                for _ in benchmark.scaledIterations { blackHole(try? Pipeline.train(plainSpec, on: d)) }
            }
        }
    }

    let bm = repo.appendingPathComponent("datasets/basicmotions").path
    if let train = try? Dataset.load(bm + "/BasicMotions_TRAIN.ts"),
       let test = try? Dataset.load(bm + "/BasicMotions_TEST.ts"),
       let spec = try? DefaultSpecs.build(classifier: "minirocket", specFile: nil,
                                          overrides: .init(window: PipelineSpec.Window(size: 50, hop: 10))),
       let pipeline = try? Pipeline.train(spec, on: train) {
        let frames = test.examples.flatMap { e in (0..<e.series.frameCount).map { Array(e.series.frame($0)) } }
        Benchmark("MiniRocket live: one window decision (window 50, hop 10, BasicMotions 6ch)",
                  configuration: .init(timeUnits: .microseconds, maxDuration: .seconds(3), maxIterations: 10_000)) { benchmark in
            // A fresh stream given 40 frames, then the measured hop of 10 that completes the window: one decision.
            var r = pipeline.recognizer()
            let start = (frames.count / 2) - 49
            for f in start..<(start + 40) { blackHole(try? r.push(frames[f])) }
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                for f in (start + 40)..<(start + 50) { blackHole(try? r.push(frames[f])) }
            }
            benchmark.stopMeasurement()
            precondition(r.lastRawDecision != nil, "no window decision was made")
        }
    }
}
