import Benchmark
import Foundation
import GestureKit

/// kNN on GRT's acc-orientation (1526 x 3, 5 classes), k = 10, trained on all of it: one single-vector
/// prediction per iteration (target <= 2 us), and the BLAS batch path over all 1526 vectors.
let datasets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("shared/datasets").path

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .mallocCountTotal], timeUnits: .nanoseconds,
                                           maxDuration: .seconds(3), maxIterations: 1_000_000)

    guard let d = try? Dataset.load(datasets + "/grt/acc-orientation.grt") else { return }
    let vectors = d.examples.map(\.series.values), labels = d.labelIndices.map { $0! }
    var knn = KNNClassifier(k: .fixed(10), nullRejection: 10)
    try? knn.train(vectors, labels: labels, classes: d.classes)
    let model = knn

    Benchmark("kNN predict acc-orientation 1526x3 k=10") { benchmark in
        var i = 0
        for _ in benchmark.scaledIterations {
            blackHole(model.predict(vectors[i]))
            i = i + 1 == vectors.count ? 0 : i + 1
        }
    }

    Benchmark("kNN batch predict acc-orientation 1526 queries",
              configuration: .init(timeUnits: .microseconds)) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(model.predict(batch: vectors)) }
    }

    Benchmark("kNN training acc-orientation (LOO null rejection)",
              configuration: .init(timeUnits: .microseconds)) { benchmark in
        for _ in benchmark.scaledIterations {
            var k = KNNClassifier(k: .fixed(10), nullRejection: 10)
            try? k.train(vectors, labels: labels, classes: d.classes)
            blackHole(k)
        }
    }
}
