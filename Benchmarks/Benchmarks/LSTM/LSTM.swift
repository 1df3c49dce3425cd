import Benchmark
import GestureKit

// Workloads shared with Benchmarks/peers/lstm_peer.py (which runs this target and PyTorch and prints
// both medians and the ratio). One thread for OpenBLAS, as in training.
//
// - "LSTM train 128 samples": one iteration trains 2 epochs over 64 series of 6 channels x 100 steps
//   (H = 64, batch 16, 4 classes, no convolution, no dropout, no clipping or decay: plain LSTM + Linear
//   with Adam, like the peer), i.e. 8 batches = 128 sample passes, including the model's setup.
// - "LSTM stream 1000 steps": one iteration is 1000 calls of LSTMStream.step (6 inputs, H = 64,
//   4 classes, softmax head).

private func randomSeries(count: Int, frames: Int, channels: Int, seed: UInt64) -> ([TimeSeries], [Int]) {
    var rng = SeededGenerator(seed: seed)
    var out: [TimeSeries] = [], labels: [Int] = []
    for i in 0..<count {
        let k = i % 4
        let values = (0..<(frames * channels)).map { j in Float(k) * 0.3 * Float(j % channels) + rng.nextGaussian() }
        out.append(TimeSeries(values: values, channelCount: channels))
        labels.append(k)
    }
    return (out, labels)
}

private func plainModel(epochs: Int) -> LSTMClassifier {
    LSTMClassifier(hidden: 64, layers: 1, epochs: epochs, batchSize: 16, learningRate: 0.005, seed: 1, dropout: 0,
                   convolution: nil, weightDecay: 0, clip: 0, validationFraction: 0, balanceClasses: false)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration.metrics = [.wallClock, .mallocCountTotal]
    Benchmark.defaultConfiguration.maxDuration = .seconds(5)
    let classes = ["a", "b", "c", "d"]

    Benchmark("LSTM train 128 samples", configuration: .init(maxIterations: 40)) { benchmark in
        let (x, y) = randomSeries(count: 64, frames: 100, channels: 6, seed: 3)
        benchmark.startMeasurement()
        var m = plainModel(epochs: 2)
        try m.train(x, labels: y, classes: classes)
        benchmark.stopMeasurement()
        blackHole(m.parameterCount)
    }

    Benchmark("LSTM stream 1000 steps", configuration: .init(maxIterations: 2000)) { benchmark in
        let (x, y) = randomSeries(count: 16, frames: 20, channels: 6, seed: 4)
        var m = plainModel(epochs: 1)
        try m.train(x, labels: y, classes: classes)
        var stream = m.stream()
        let frames = randomSeries(count: 1, frames: 1000, channels: 6, seed: 5).0[0].values
        benchmark.startMeasurement()
        frames.withUnsafeBufferPointer { all in
            var best = 0
            for f in 0..<1000 {
                best &+= stream.step(UnsafeBufferPointer(rebasing: all[(f * 6)..<(f * 6 + 6)])).classIndex ?? 0
            }
            blackHole(best)
        }
        benchmark.stopMeasurement()
    }
}
