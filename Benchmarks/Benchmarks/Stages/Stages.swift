import Benchmark
import GestureKit

// Per-frame cost and allocations of the pre-processing filters (6 channels at 50 Hz, 1000 frames per
// iteration, reported per frame), of the feature extractors on a 128 x 6 window, and of the
// post-processors and the minimum-distance classifier. The streaming promise: 0 mallocs per frame.
// Run: cd Benchmarks && swift package benchmark --target Stages

private let channels = 6
private let rate = 50.0

private func signal(frames: Int, seed: UInt64) -> TimeSeries {
    var g = SeededGenerator(seed: seed)
    var v = [Float]()
    v.reserveCapacity(frames * channels)
    for i in 0..<frames {
        for c in 0..<channels {
            v.append(Float(c) + 0.5 * g.nextGaussian() + Float(i % 25) / 25)
        }
    }
    return TimeSeries(values: v, channelCount: channels, sampleRate: rate)
}

private func fitted<P: Preprocessor>(_ stage: P) -> P {
    var s = stage
    try! s.fit([signal(frames: 500, seed: 1)], channels: channels, sampleRate: rate)
    return s
}

private func preprocessorBenchmark<P: Preprocessor>(_ name: String, _ stage: P) {
    let prepared = fitted(stage)
    let input = signal(frames: 1000, seed: 2).values
    Benchmark("preprocess \(name) (per frame, 6 ch)",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal], scalingFactor: .kilo)) { benchmark in
        var s = prepared
        s.reset()
        var frame = [Float](repeating: 0, count: channels)
        input.withUnsafeBufferPointer { input in
            frame.withUnsafeMutableBufferPointer { f in
                _ = f.initialize(from: input[0..<channels])
                s.process(f)  // first frame primes (and triggers any copy-on-write) before measuring
                benchmark.startMeasurement()
                for i in benchmark.scaledIterations {
                    for c in 0..<channels { f[c] = input[i * channels + c] }
                    s.process(f)
                }
                benchmark.stopMeasurement()
                blackHole(f[0])
            }
        }
    }
}

private func extractorBenchmark<F: FeatureExtractor>(_ name: String, _ stage: F) {
    var f = stage
    let window = signal(frames: 128, seed: 3)
    try! f.fit([window], channels: channels, sampleRate: rate)
    let extractor = f
    Benchmark("features \(name) (128 x 6 window)", configuration: .init(metrics: [.wallClock, .mallocCountTotal])) { benchmark in
        var out = [Float](repeating: 0, count: extractor.featureCount)
        window.values.withUnsafeBufferPointer { w in
            out.withUnsafeMutableBufferPointer { o in
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { extractor.extract(w, frames: 128, into: o) }
                benchmark.stopMeasurement()
            }
        }
        blackHole(out)
    }
}

let benchmarks: @Sendable () -> Void = {
    preprocessorBenchmark("movingAverage w10", MovingAverage(window: 10))
    preprocessorBenchmark("lowPass 5 Hz order 2", LowPass(cutoff: 5))
    preprocessorBenchmark("highPass 0.3 Hz order 4", HighPass(cutoff: 0.3, order: 4))
    preprocessorBenchmark("median w9", MedianFilter(window: 9))
    preprocessorBenchmark("derivative", Derivative())
    preprocessorBenchmark("deadZone", DeadZone())
    preprocessorBenchmark("savitzkyGolay w9 p3", SavitzkyGolay(window: 9, polynomialOrder: 3))
    preprocessorBenchmark("normalize", Normalizer())

    extractorBenchmark("timeDomain (all 11)", TimeDomainFeatures(features: TimeDomainFeature.allCases))
    extractorBenchmark("fft 4 bands", FFTFeatures(bands: 4))
    extractorBenchmark("movementIndex", MovementIndex())

    // Post-processing and minimum distance on a stream of predictions.
    var g = SeededGenerator(seed: 4)
    let predictions = (0..<1000).map { _ -> Prediction in
        let c = Int(g.nextUnit() * 4)
        return Prediction(classIndex: c == 3 ? nil : c, confidence: g.nextUnit(), scores: [0.2, 0.3, 0.5])
    }
    let post: [(String, any Postprocessor)] = [
        ("labelFilter 3 of 5", LabelFilter()), ("changeFilter", ChangeFilter()),
        ("timeout 25", TimeoutFilter(frames: 25)), ("confidenceThreshold", ConfidenceThreshold()),
    ]
    /// One stage over a stream of predictions, `name` as it appears in the table.
    func streamBenchmark(_ name: String, _ stage: some Postprocessor, _ inputs: [Prediction]) {
        Benchmark("postprocess \(name)",
                  configuration: .init(metrics: [.wallClock, .mallocCountTotal], scalingFactor: .kilo)) { benchmark in
            var s = stage
            s.reset()
            benchmark.startMeasurement()
            for i in benchmark.scaledIterations { blackHole(s.process(inputs[i], frame: i)) }
            benchmark.stopMeasurement()
        }
    }
    for (name, stage) in post { streamBenchmark("\(name) (per prediction)", stage, predictions) }

    // Temporal decoding at HAPT's size (13 classes): one forward-filter step per decision.
    let k = 13
    let hapt = (0..<1000).map { _ -> Prediction in
        var scores = (0..<k).map { _ in g.nextUnit() }
        let sum = scores.reduce(0, +)
        scores = scores.map { $0 / sum }
        let best = scores.indices.max { scores[$0] < scores[$1] }!
        return Prediction(classIndex: best, confidence: scores[best], scores: scores)
    }
    var hmm = HMMFilter(stay: 0.9)
    try! hmm.fit(labelSequences: [(0..<2000).map { ($0 / 40) % k }], classCount: k)
    streamBenchmark("hmmFilter 13 classes, learned (per decision)", hmm, hapt)
    // The onset filter behind it, holding HAPT's six transitions (classes 6-11).
    var onset = OnsetFilter(decisions: 2, classes: (6..<12).map { "c\($0)" })
    try! onset.bind(classes: (0..<k).map { "c\($0)" })
    streamBenchmark("onsetFilter 13 classes, 6 held (per decision)", onset, hapt)
    // The transition filter in its place (pipelines/hapt-live.json): learned contexts, settling 2.
    var transition = TransitionFilter(classes: (6..<12).map { "c\($0)" }, settle: 2)
    try! transition.bind(classes: (0..<k).map { "c\($0)" })
    try! transition.fit(labelSequences: [(0..<2000).map { ($0 / 40) % k }], classCount: k, rest: nil)
    streamBenchmark("transitionFilter 13 classes, 6 transitions, settle 2 (per decision)", transition, hapt)
    // The posture filter after it (pipelines/hapt-live.json): two postures, events every 40 decisions.
    var posture = PostureFilter(classes: ["c3", "c4"])
    try! posture.bind(classes: (0..<k).map { "c\($0)" })
    try! posture.fit(labelSequences: [(0..<2000).map { ($0 / 40) % k }], classCount: k, rest: nil)
    let withEvents = hapt.enumerated().map { i, p -> Prediction in
        var q = p
        if i % 40 == 0 { q.event = Prediction.Event(classIndex: 6 + (i / 40) % 6, confidence: 1, since: i) }
        return q
    }
    streamBenchmark("postureFilter 13 classes, 2 postures (per decision)", posture, withEvents)

    var centroid = MinimumDistance(nullRejection: 3)
    let vectors = (0..<400).map { i in (0..<36).map { j in Float(i % 4) * 2 + Float(j % 5) * 0.1 + g.nextGaussian() } }
    try! centroid.train(vectors, labels: (0..<400).map { $0 % 4 }, classes: ["a", "b", "c", "d"])
    let trained = centroid
    Benchmark("classify centroid (36 features, 4 classes)", configuration: .init(metrics: [.wallClock, .mallocCountTotal])) { benchmark in
        for i in benchmark.scaledIterations { blackHole(trained.predict(vectors[i % 400])) }
    }
}
