import Foundation

/// Predictions of a pipeline on a dataset, and k-fold cross-validation of a spec.
public enum Evaluation {
    /// Predicts every example of `data` and compares with its label. The rest class, unlabelled
    /// examples and classes the pipeline was never trained on (an open-set test: they should be
    /// rejected) count as null truth.
    /// - Complexity: one ``Pipeline/predict(_:)`` per example.
    public static func evaluate(_ pipeline: Pipeline, on data: Dataset) throws -> (report: ClassificationReport, predictions: [Prediction]) {
        let predictions = try data.examples.map { e in
            do { return try pipeline.predict(e.series) } catch let err as GestureKitError { throw err.inFile(data.source ?? "data") }
        }
        let known = Set(pipeline.classes)
        let truths = data.examples.map { e in e.label == pipeline.spec.rest || !known.contains(e.label ?? "") ? nil : e.label }
        let report = ClassificationReport(classes: reportClasses(pipeline.classes, rest: pipeline.spec.rest),
                                          truths: truths, predictions: predictions.map { pipeline.label(of: $0) })
        return (report, predictions)
    }

    /// k-fold cross-validation: trains `spec` on k-1 folds and predicts the held-out fold, k times,
    /// folds in parallel; the report pools every held-out prediction.
    /// - Parameters:
    ///   - spec: what to train in each fold.
    ///   - data: the examples to split.
    ///   - k: the number of folds.
    ///   - groupBy: keep whole sessions or users on one side of each split.
    ///   - seed: shuffles the folds.
    ///   - parallel: train the folds concurrently.
    ///   - isCancelled: polled between and inside folds; true stops with `CancellationError`.
    /// - Complexity: k trainings plus a prediction per example.
    public static func crossValidate(_ spec: PipelineSpec, on data: Dataset, folds k: Int, groupBy: GroupBy? = nil,
                                     seed: UInt64 = 0, parallel: Bool = true,
                                     isCancelled: @escaping @Sendable () -> Bool = { false }) throws -> ClassificationReport {
        let splits = try data.folds(k, groupBy: groupBy, seed: seed)
        let results = FoldResults(count: splits.count)
        let work: @Sendable (Int) -> Void = { f in
            do {
                if isCancelled() { throw CancellationError() }
                let pipeline = try Pipeline.train(spec, on: data.subset(splits[f].train), isCancelled: isCancelled)
                let test = data.subset(splits[f].test)
                let predictions = try test.examples.map { try pipeline.predict($0.series) }
                results.set(f, .success(zip(splits[f].test, predictions.map { pipeline.label(of: $0) }).map { ($0, $1) }))
            } catch {
                results.set(f, .failure(error))
            }
        }
        if parallel {
            Linalg.singleThreaded { DispatchQueue.concurrentPerform(iterations: splits.count, execute: work) }
        } else {
            for f in splits.indices { work(f) }
        }
        var predicted = [String?](repeating: nil, count: data.examples.count)
        for r in results.values {
            switch r {
            case .success(let pairs): for (i, p) in pairs { predicted[i] = p }
            case .failure(let e): throw e
            case nil: throw GestureKitError("a fold produced no result")
            }
        }
        return pooledReport(data, rest: spec.rest, predicted: predicted)
    }

    /// The report of held-out predictions pooled over folds, one per example of `data` (the rest
    /// class counted as null truth).
    static func pooledReport(_ data: Dataset, rest: String?, predicted: [String?]) -> ClassificationReport {
        let truths = data.examples.map { e in e.label == rest ? nil : e.label }
        return ClassificationReport(classes: reportClasses(data.classes, rest: rest), truths: truths, predictions: predicted)
    }

    static func reportClasses(_ classes: [String], rest: String?) -> [String] {
        classes.filter { $0 != rest }
    }
}

/// Results written by concurrent folds.
private final class FoldResults: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var values: [Result<[(Int, String?)], Error>?]
    init(count: Int) { values = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: Result<[(Int, String?)], Error>) {
        lock.lock()
        values[i] = r
        lock.unlock()
    }
}
