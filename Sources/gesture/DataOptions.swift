import ArgumentParser
import GestureKit

/// How to read recordings (the file flags) and which classes, users and null frames to keep.
struct DataOptions: ParsableArguments {
    @OptionGroup var read: DatasetFlags

    @Option(help: "Keep only these comma-separated classes (others become unlabelled).")
    var only: String?

    @Option(help: "Continuous recordings: give unlabelled frames this class name (train it with --rest NAME to report it as null).")
    var nullAs: String?

    @Option(help: "Keep only the recordings of these comma-separated users.")
    var users: String?

    @Option(help: "Drop the recordings of these comma-separated users.")
    var exceptUsers: String?

    /// Loads `path`; continuous recordings are cut into `window`s when one is given, else into
    /// labelled segments.
    /// - Parameter unlabelled: the spec's class for unlabelled frames, used when `--null-as` is not given.
    func load(_ path: String, window: PipelineSpec.Window? = nil, unlabelled: String? = nil) throws -> Dataset {
        let nullAs = self.nullAs ?? unlabelled
        var data = try Dataset.load(path, options: read.options)
        if users != nil || exceptUsers != nil {
            let known = Set(data.users + data.recordings.compactMap(\.user))
            let keep = users.map { Set(splitList($0)) }, drop = Set(exceptUsers.map(splitList) ?? [])
            let unknown = (keep ?? []).union(drop).subtracting(known)
            if !unknown.isEmpty {
                throw GestureKitError("no such users: \(unknown.sorted().joined(separator: ", ")) (users: \(known.sorted().joined(separator: ", ")))", file: path)
            }
            func kept(_ u: String?) -> Bool {
                guard let u else { return keep == nil }
                return (keep?.contains(u) ?? true) && !drop.contains(u)
            }
            data.examples = data.examples.filter { kept($0.user) }
            data.recordings = data.recordings.filter { kept($0.user) }
        }
        if let only {
            let keep = splitList(only)
            let unknown = keep.filter { !data.classes.contains($0) }
            if !unknown.isEmpty {
                throw GestureKitError("--only names classes not in the data: \(unknown.joined(separator: ", ")) (classes: \(data.classes.joined(separator: ", ")))", file: path)
            }
            let keepSet = Set(keep)
            data.recordings = data.recordings.map { r in
                var r = r
                r.labels = r.labels.map { $0.flatMap { keepSet.contains($0) ? $0 : nil } }
                return r
            }
            data.examples = data.examples.filter { $0.label.map(keepSet.contains) ?? false }
            data.classes = data.classes.filter(keepSet.contains)
        }
        if let nullAs, !data.recordings.isEmpty {
            guard !data.classes.contains(nullAs) else {
                throw GestureKitError("--null-as \(nullAs) is already a class of the data", file: path)
            }
            for i in data.recordings.indices { data.recordings[i].labels = data.recordings[i].labels.map { $0 ?? nullAs } }
            data = Dataset(recordings: data.recordings, cut: .segments, classes: data.classes + [nullAs], source: data.source)
        }
        if let window, !data.recordings.isEmpty {
            data = Dataset(recordings: data.recordings, cut: .windows(size: window.size, hop: window.hop, labelling: window.labelling),
                           classes: data.classes, source: data.source)
        }
        return data
    }
}

func splitList(_ s: String) -> [String] {
    s.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
}

/// A `--classifier` name: one of the default pipelines (completion and help list them).
struct ClassifierName: ExpressibleByArgument {
    let name: String

    /// Chooses among the defaults by cross-validation on the training data (`train` only).
    static let auto = "auto"

    init?(argument: String) {
        guard Self.allValueStrings.contains(argument) else { return nil }
        name = argument
    }

    var isAuto: Bool { name == Self.auto }

    static var allValueStrings: [String] { DefaultSpecs.names + [auto] }
    static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }

    static var help: String {
        "Classifier with its default pipeline: " + DefaultSpecs.all.map { "\($0.name) (\($0.summary))" }.joined(separator: "; ")
            + "; auto (train only: the best of \(ModelSelection.defaultCandidates.joined(separator: ", ")), and lstm from \(ModelSelection.lstmMinimumExamples) examples, by cross-validation on the training data, grouped by user or session when known)."
    }
}

/// Options that choose and tune a pipeline: a classifier's defaults or a spec file, plus typed
/// overrides. An override the chosen classifier does not have is an error, never ignored.
struct SpecOptions: ParsableArguments {
    @Option(help: ArgumentHelp(ClassifierName.help, valueName: "name"))
    var classifier: ClassifierName?

    @Option(help: "A pipeline spec (JSON); `gesture spec NAME` prints one to start from, pipelines/ holds examples.")
    var spec: String?

    @Option(help: "Null rejection: reject matches farther than mean + K * std of the class's training distances.")
    var nullRejection: Float?

    @Option(help: "A class trained normally but reported as null (the rest or idle label); a DTW pipeline learns its recordings as negatives instead of a class.")
    var rest: String?

    @OptionGroup var window: WindowFlags

    @Option(help: "LSTM: hidden units per layer.") var hidden: Int?
    @Option(help: "LSTM: number of layers (1 or 2).") var layers: Int?
    @Option(help: "LSTM: training epochs.") var epochs: Int?
    @Option(help: "LSTM: mini-batch size.") var batch: Int?
    @Option(help: "LSTM: learning rate.") var lr: Float?
    @Option(help: "Random seed: of the classifier (LSTM initialisation, kNN's choice of k) and of cross-validation folds.") var seed: UInt64?

    var settings: ClassifierSettings {
        ClassifierSettings(nullRejection: nullRejection, hidden: hidden, layers: layers, epochs: epochs, batch: batch,
                           learningRate: lr, seed: seed)
    }

    /// The flags given that choose or change a pipeline.
    var given: [String] {
        var flags: [String] = []
        if classifier != nil { flags.append("--classifier") }
        if spec != nil { flags.append("--spec") }
        if rest != nil { flags.append("--rest") }
        if window.window != nil { flags.append("--window") }
        return flags + settings.given.map(\.flag)
    }

    func validate() throws {
        if let k = nullRejection, !(k >= 0 && k.isFinite) { throw ValidationError("--null-rejection must be a number >= 0") }
        for (flag, value) in [("--hidden", hidden), ("--layers", layers), ("--epochs", epochs), ("--batch", batch)] {
            if let value, value < 1 { throw ValidationError("\(flag) must be a positive whole number") }
        }
        if let lr, !(lr > 0 && lr.isFinite) { throw ValidationError("--lr must be a positive number") }
    }

    /// What `--classifier auto` may change in every candidate: the window and the rest class.
    func autoOverrides() throws -> PipelineSpec.Overrides {
        if spec != nil { throw ValidationError("--classifier auto chooses among the default pipelines; it does not take --spec") }
        if let flag = settings.removing(.seed).given.first?.flag {
            throw ValidationError("\(flag) does not apply to --classifier auto (each candidate keeps its defaults)")
        }
        return PipelineSpec.Overrides(window: window.spec, rest: rest)
    }

    /// Refuses these flags where no pipeline is built (a trained pipeline keeps its settings).
    func refuse(_ reason: String) throws {
        if let flag = given.first { throw ValidationError("\(flag) does not apply \(reason)") }
    }

    /// The spec to train.
    /// - Parameter seedIsForFolds: cross-validation takes `--seed` for its folds, and passes it on
    ///   only to a classifier that has a seed.
    func build(seedIsForFolds: Bool = false) throws -> PipelineSpec {
        if classifier?.isAuto == true { throw ValidationError("--classifier auto chooses while training: use it with gesture train, or cross-validate the choice with gesture evaluate DATA --classifier auto --folds K") }
        var settings = self.settings
        let base = try spec.map { try PipelineSpec.load($0).classifier } ?? DefaultSpecs.pipeline(named: classifier?.name ?? "dtw").spec.classifier
        if seedIsForFolds, !base.settings.contains(.seed) { settings = settings.removing(.seed) }
        if let wrong = settings.given.first(where: { !base.settings.contains($0) }) {
            let takes = ClassifierSetting.allCases.filter(base.settings.contains).map(\.flag)
            throw ValidationError("\(wrong.flag) does not apply to the \(base.kind) classifier"
                                  + (takes.isEmpty ? "" : " (it takes \(takes.joined(separator: ", ")))"))
        }
        return try DefaultSpecs.build(classifier: classifier?.name, specFile: spec,
                                      overrides: PipelineSpec.Overrides(classifier: settings, window: window.spec, rest: rest))
    }
}
