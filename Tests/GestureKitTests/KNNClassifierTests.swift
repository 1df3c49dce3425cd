import Foundation
import Testing
@testable import GestureKit

@Suite struct KNNClassifierTests {
    /// Brute-force reference: every distance, full sort.
    static func bruteNeighbours(_ x: [Float], _ train: [[Float]], k: Int, metric: KNNClassifier.Metric,
                                skip: Int? = nil) -> [(Int, Float)] {
        var all: [(Int, Float)] = []
        for (j, t) in train.enumerated() where j != skip {
            let d: Float
            switch metric {
            case .euclidean: d = zip(x, t).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }.squareRoot()
            case .manhattan: d = zip(x, t).reduce(0) { $0 + abs($1.0 - $1.1) }
            case .cosine:
                let dot = zip(x, t).reduce(0) { $0 + $1.0 * $1.1 }
                let nx = x.reduce(0) { $0 + $1 * $1 }.squareRoot(), nt = t.reduce(0) { $0 + $1 * $1 }.squareRoot()
                d = 1 - dot / (nx * nt)
            }
            all.append((j, d))
        }
        return Array(all.sorted { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }.prefix(k))
    }

    static func blobs(_ n: Int, seed: UInt64, spread: Float = 0.6) -> ([[Float]], [Int]) {
        var rng = SeededGenerator(seed: seed)
        let centres: [[Float]] = [[0, 0, 1], [2, 0, 1], [0, 2, 1]]
        var x: [[Float]] = [], y: [Int] = []
        for i in 0..<n {
            let c = i % 3
            x.append(centres[c].map { $0 + spread * rng.nextGaussian() })
            y.append(c)
        }
        return (x, y)
    }

    /// Hand-computed: 1-D points 0, 1, 10 (class a, a, b). Query 2 with k = 3: two votes for a,
    /// distance = mean distance of a's neighbours = (2 + 1) / 2 = 1.5.
    @Test func handComputedVote() throws {
        var knn = KNNClassifier(k: .fixed(3))
        try knn.train([[0], [1], [10]], labels: [0, 0, 1], classes: ["a", "b"])
        let p = knn.predict([2])
        #expect(p.classIndex == 0)
        #expect(p.distance == 1.5)
        #expect(abs(p.scores[0] - 2.0 / 3) < 1e-6 && abs(p.confidence - 2.0 / 3) < 1e-6)
        // Distance weighting: a gets 1/2 + 1/1 = 1.5, b gets 1/8; k = 3 still a.
        knn.distanceWeighting = true
        #expect(knn.predict([2]).classIndex == 0)
        // Query 7 with k = 3, uniform: a has 2 votes; weighted: a 1/7 + 1/6 ≈ 0.31, b 1/3 -> b.
        #expect(knn.predict([7]).classIndex == 1)
        knn.distanceWeighting = false
        #expect(knn.predict([7]).classIndex == 0)
    }

    /// The fast single-vector path and the BLAS batch path agree with a brute-force sort.
    @Test(arguments: KNNClassifier.Metric.allCases)
    func matchesBruteForce(metric: KNNClassifier.Metric) throws {
        let (x, y) = Self.blobs(300, seed: 1)
        let (q, _) = Self.blobs(60, seed: 2)
        var knn = KNNClassifier(k: .fixed(7), metric: metric)
        try knn.train(x, labels: y, classes: ["a", "b", "c"])
        let batch = knn.predict(batch: q)
        for (i, v) in q.enumerated() {
            let nb = Self.bruteNeighbours(v, x, k: 7, metric: metric)
            var votes = [0, 0, 0]
            for (j, _) in nb { votes[y[j]] += 1 }
            let want = votes.indices.max { votes[$0] < votes[$1] || (votes[$0] == votes[$1] && $0 > $1) }!
            let p = knn.predict(v)
            if votes.filter({ $0 == votes[want] }).count == 1 {
                #expect(p.classIndex == want)
                #expect(batch[i].classIndex == want)
            }
            let wantD = nb.filter { y[$0.0] == p.classIndex }.map(\.1)
            let mean = wantD.reduce(0, +) / Float(wantD.count)
            #expect(abs(p.distance! - mean) <= 1e-4 * max(1, mean))
            #expect(abs(batch[i].distance! - mean) <= 1e-3 * max(1, mean))
        }
    }

    /// Leave-one-out statistics never count a vector as its own neighbour: with exact duplicates
    /// removed from consideration, each class's mean LOO distance equals the brute-force value.
    @Test func leaveOneOutExcludesSelf() throws {
        // Two well separated classes: every LOO vote is right, so each statistic is the mean
        // distance to the k nearest others (all same class).
        let x: [[Float]] = [[0], [1], [3], [100], [102], [106]]
        let y = [0, 0, 0, 1, 1, 1]
        var knn = KNNClassifier(k: .fixed(2), nullRejection: 1)
        try knn.train(x, labels: y, classes: ["a", "b"])
        // Class a: point 0 -> (1 + 3)/2 = 2, point 1 -> (1 + 2)/2 = 1.5, point 3 -> (2 + 3)/2 = 2.5; mean 2.
        // Class b: 100 -> (2 + 6)/2 = 4, 102 -> (2 + 4)/2 = 3, 106 -> (4 + 6)/2 = 5; mean 4.
        #expect(abs(knn.model!.rejection.means.values[0] - 2) < 1e-4)
        #expect(abs(knn.model!.rejection.means.values[1] - 4) < 1e-4)
        // std of {2, 1.5, 2.5} = sqrt(1/6); threshold a = 2 + 0.408 = 2.408.
        #expect(abs(knn.model!.rejection.thresholds[0] - (2 + (1.0 / 6).squareRoot())) < 1e-4)
        #expect(knn.predict([50]).classIndex == nil)
        #expect(knn.predict([1.5]).classIndex == 0)
    }

    @Test func autoKChoosesByCrossValidationOnTrainingOnly() throws {
        let (x, y) = Self.blobs(240, seed: 3, spread: 1.0)
        var knn = KNNClassifier(k: .auto)
        try knn.train(x, labels: y, classes: ["a", "b", "c"])
        #expect(KNNClassifier.autoCandidates.contains(knn.model!.k))
        var listed = KNNClassifier(k: .candidates([1, 15]))
        try listed.train(x, labels: y, classes: ["a", "b", "c"])
        // Overlapping blobs: many neighbours beat one (the Bayes-optimal boundary needs smoothing).
        #expect(listed.model!.k == 15)
        #expect(listed.summary["k"]!.contains("chose 15"))
    }

    @Test func handWrittenSpecAndRoundTrip() throws {
        let spec = #"{"kind":"knn","k":"auto","metric":"cosine","nullRejection":3}"#
        var knn = try JSONDecoder().decode(KNNClassifier.self, from: Data(spec.utf8))
        #expect(knn.k == .auto && knn.metric == .cosine && knn.nullRejection == 3)
        #expect(knn.distanceWeighting == false && knn.folds == 5 && knn.model == nil)
        let d = try JSONDecoder().decode(KNNClassifier.self, from: Data("{}".utf8))
        #expect(d.k == .fixed(10) && d.metric == .euclidean)
        let list = try JSONDecoder().decode(KNNClassifier.self, from: Data(#"{"k":[1,3,5]}"#.utf8))
        #expect(list.k == .candidates([1, 3, 5]))
        #expect(throws: (any Error).self) { try JSONDecoder().decode(KNNClassifier.self, from: Data(#"{"k":"many"}"#.utf8)) }

        let (x, y) = Self.blobs(90, seed: 4)
        try knn.train(x, labels: y, classes: ["a", "b", "c"])
        let loaded = try JSONDecoder().decode(KNNClassifier.self, from: JSONEncoder().encode(knn))
        try loaded.validate()
        let (q, _) = Self.blobs(40, seed: 5, spread: 2)
        for v in q {
            let a = knn.predict(v), b = loaded.predict(v)
            #expect(a.classIndex == b.classIndex && a.distance?.bitPattern == b.distance?.bitPattern)
            #expect(a.scores.map(\.bitPattern) == b.scores.map(\.bitPattern))
        }
    }

    @Test func rejectsBadInput() throws {
        var knn = KNNClassifier()
        #expect(throws: GestureKitError.self) { try knn.train([], labels: [], classes: ["a"]) }
        #expect(throws: GestureKitError.self) { try knn.train([[1, 2], [1]], labels: [0, 0], classes: ["a"]) }
        #expect(throws: GestureKitError.self) { try knn.train([[.infinity]], labels: [0], classes: ["a"]) }
        knn.k = .fixed(0)
        #expect(throws: GestureKitError.self) { try knn.train([[1]], labels: [0], classes: ["a"]) }
        #expect(throws: GestureKitError.self) { try knn.validate() }
    }

    /// acc-orientation.grt (WiiMote tilt, 5 classes), kNN with null rejection on, 10-fold CV:
    /// issue target >= 0.99, rejections counted as errors. K = 10 and a rejection coefficient of 10
    /// are GRT's KNN defaults.
    @Test(.enabled(if: DTWTestData.available, TestData.needsShared)) func accOrientationCrossValidation() throws {
        let d = try DTWTestData.load("grt/acc-orientation.grt")
        let labels = DTWTestData.labels(d)
        let vectors = d.examples.map(\.series.values)
        var correct = 0
        for s in try d.folds(10, seed: 0) {
            var knn = KNNClassifier(k: .fixed(10), nullRejection: 10)
            try knn.train(s.train.map { vectors[$0] }, labels: s.train.map { labels[$0] }, classes: d.classes)
            // Rejection is really on: a tilt far outside the [0, 1] range the data spans is null.
            #expect(knn.predict([3, 3, 3]).classIndex == nil)
            let batch = knn.predict(batch: s.test.map { vectors[$0] })
            for (i, t) in s.test.enumerated() {
                let p = knn.predict(vectors[t])
                #expect(p.classIndex == batch[i].classIndex || abs(p.distance! - batch[i].distance!) < 1e-4)
                if p.classIndex == labels[t] { correct += 1 }
            }
        }
        let accuracy = Double(correct) / Double(d.examples.count)
        #expect(accuracy >= 0.99, "accuracy \(accuracy)")
    }
}
