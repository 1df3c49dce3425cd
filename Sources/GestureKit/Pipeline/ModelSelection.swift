import Foundation

/// Chooses among default pipelines by cross-validation on the training data only: the library side
/// of `--classifier auto`.
///
/// Folds keep whole users (or, failing that, sessions) on one side when the examples carry them, so
/// the figure says how a pipeline does on people or sessions it never saw. The winner is the highest
/// pooled accuracy; ties go to the later candidate (the costlier one in the default order). On easy
/// sets several candidates tie at 1.0 on the training folds, and the costlier model held out better:
/// nested cross-validation on the TRAIN splits (fold seeds 10-12), earlier against later,
/// BasicMotions 0.983 / 1.000, RacketSports 0.938 / 0.945, UWave and Epilepsy the same.
///
/// ```swift
/// let choice = try ModelSelection.select(on: train)
/// print(choice.table)            // [(name, accuracy)] for every candidate
/// let pipeline = try Pipeline.train(choice.spec, on: train)
/// ```
/// - Complexity: the sum over candidates of their k-fold cross-validation.
public enum ModelSelection {
    /// Folds of each candidate's cross-validation unless told otherwise.
    public static let defaultFolds = 5

    /// Default candidates, cheapest first.
    public static let defaultCandidates = ["knn", "dtw", "minirocket"]

    /// Training examples from which the LSTM joins the candidates. Its cross-validation costs
    /// minutes where the others take seconds, and on the four benchmark sets here (120 to 151
    /// examples) MiniRocket matched or beat it; a rule of thumb, not a measured crossover.
    public static let lstmMinimumExamples = 1000

    /// The candidates for `data`: the defaults, and the LSTM when the data is large enough.
    public static func candidates(for data: Dataset) -> [String] {
        data.examples.count >= lstmMinimumExamples ? defaultCandidates + ["lstm"] : defaultCandidates
    }

    /// One candidate and its cross-validated accuracy.
    public struct Row: Sendable, Hashable {
        /// The default pipeline's name (`knn`, `dtw`, ...).
        public var name: String
        /// Pooled accuracy over the folds.
        public var accuracy: Double
    }

    /// The outcome of ``ModelSelection/select(on:candidates:folds:seed:overrides:progress:)``.
    public struct Choice: Sendable {
        /// The chosen candidate's name.
        public var winner: String
        /// The chosen candidate's spec, ready to train on all the data.
        public var spec: PipelineSpec
        /// Every candidate's cross-validated accuracy, in candidate order.
        public var table: [Row]
        /// How folds were grouped (`nil`: stratified).
        public var groupedBy: GroupBy?
    }

    /// Users when every example names one and there are at least `folds` of them; else sessions on
    /// the same terms; else nil (stratified folds).
    public static func grouping(of data: Dataset, folds: Int) -> GroupBy? {
        for g in [GroupBy.user, .session] {
            let ids = data.examples.map { g.id(user: $0.user, session: $0.session) }
            if ids.allSatisfy({ $0 != nil }), Set(ids).count >= folds { return g }
        }
        return nil
    }

    /// Cross-validates every candidate on `data` and picks the best.
    /// - Parameters:
    ///   - data: the training data (never the data a figure is reported on).
    ///   - candidates: default pipeline names, cheapest first (ties go to the later); `nil` for
    ///     ``candidates(for:)``.
    ///   - folds: folds per candidate, grouped as ``grouping(of:folds:)`` says.
    ///   - seed: shuffles the folds.
    ///   - overrides: applied to every candidate (a window, the rest class).
    ///   - progress: receives each candidate's row as it is done.
    public static func select(on data: Dataset, candidates: [String]? = nil, folds: Int = defaultFolds,
                              seed: UInt64 = 0, overrides: PipelineSpec.Overrides = .init(),
                              progress: (@Sendable (Row) -> Void)? = nil) throws -> Choice {
        let candidates = candidates ?? Self.candidates(for: data)
        guard !candidates.isEmpty else { throw GestureKitError("no candidates to choose from", field: "classifier") }
        let group = grouping(of: data, folds: folds)
        var table: [Row] = []
        var specs: [PipelineSpec] = []
        for name in candidates {
            let spec = try DefaultSpecs.build(classifier: name, specFile: nil, overrides: overrides)
            let report = try Evaluation.crossValidate(spec, on: data, folds: folds, groupBy: group, seed: seed)
            table.append(Row(name: name, accuracy: report.accuracy))
            progress?(table[table.count - 1])
            specs.append(spec)
        }
        let best = table.indices.max { table[$0].accuracy < table[$1].accuracy || (table[$0].accuracy == table[$1].accuracy && $0 < $1) }!
        return Choice(winner: table[best].name, spec: specs[best], table: table, groupedBy: group)
    }
}

extension ModelSelection {
    /// What nested cross-validation of the selection found.
    public struct NestedReport: Sendable {
        /// Every held-out prediction of the outer folds, pooled.
        public var report: ClassificationReport
        /// The candidate each outer fold's selection chose, in fold order.
        public var winners: [String]
    }

    /// Nested cross-validation of ``select(on:candidates:folds:seed:overrides:progress:)``: in each of
    /// `folds` outer folds the selection runs on the training part alone (its own inner folds), the
    /// winner is trained on that part and predicts the held-out fold, as `gesture train --classifier
    /// auto` would. The held-out fold takes no part in the choice, so the pooled accuracy is the
    /// selection's, not the best candidate's on data it was chosen on.
    /// - Parameters:
    ///   - data: the examples to split (labelled).
    ///   - k: outer folds.
    ///   - groupBy: keeps whole sessions or users on one side of each outer split; the inner folds
    ///     group as ``grouping(of:folds:)`` says.
    ///   - seed: shuffles the outer folds and each selection's inner folds.
    ///   - candidates: `nil` for ``candidates(for:)`` of each training part.
    ///   - innerFolds: folds of each selection's cross-validation.
    ///   - overrides: applied to every candidate (a window, the rest class).
    ///   - progress: receives each outer fold's index and its choice, in fold order.
    /// - Complexity: `folds` selections (each `innerFolds` trainings per candidate) plus `folds` trainings.
    public static func crossValidate(on data: Dataset, folds k: Int, groupBy: GroupBy? = nil, seed: UInt64 = 0,
                                     candidates: [String]? = nil, innerFolds: Int = defaultFolds,
                                     overrides: PipelineSpec.Overrides = .init(),
                                     progress: (@Sendable (Int, Choice) -> Void)? = nil) throws -> NestedReport {
        let splits = try data.folds(k, groupBy: groupBy, seed: seed)
        var predicted = [String?](repeating: nil, count: data.examples.count)
        var winners: [String] = []
        for (f, split) in splits.enumerated() {
            let train = data.subset(split.train)
            let choice = try select(on: train, candidates: candidates, folds: innerFolds, seed: seed, overrides: overrides)
            progress?(f, choice)
            winners.append(choice.winner)
            let pipeline = try Pipeline.train(choice.spec, on: train)
            for i in split.test { predicted[i] = pipeline.label(of: try pipeline.predict(data.examples[i].series)) }
        }
        return NestedReport(report: Evaluation.pooledReport(data, rest: overrides.rest, predicted: predicted), winners: winners)
    }
}
