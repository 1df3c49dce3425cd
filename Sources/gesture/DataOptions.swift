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
    func load(_ path: String, window: PipelineSpec.Window? = nil) throws -> Dataset {
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
            data = Dataset(recordings: data.recordings, cut: .windows(size: window.size, hop: window.hop, labelling: .majority),
                           classes: data.classes, source: data.source)
        }
        return data
    }
}

func splitList(_ s: String) -> [String] {
    s.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
}

/// Options that choose and tune a pipeline: a classifier's defaults or a spec file, plus overrides.
struct SpecOptions: ParsableArguments {
    @Option(help: "Classifier with default settings: dtw, knn, centroid, lstm or minirocket.")
    var classifier: String?

    @Option(help: "A pipeline spec (JSON); see pipelines/ and the README.")
    var spec: String?

    @Option(help: "Null rejection: reject matches farther than mean + K * std of the class's training distances.")
    var nullRejection: Double?

    @Option(help: "A class trained normally but reported as null (the rest or idle label).")
    var rest: String?

    @Option(help: "Classify windows of N frames (continuous recordings are cut into such windows).")
    var window: Int?

    @Option(help: "Frames between window decisions (default: the window size).")
    var hop: Int?

    @Option(help: "LSTM: hidden units per layer.") var hidden: Int?
    @Option(help: "LSTM: number of layers (1 or 2).") var layers: Int?
    @Option(help: "LSTM: training epochs.") var epochs: Int?
    @Option(help: "LSTM: mini-batch size.") var batch: Int?
    @Option(help: "LSTM: learning rate.") var lr: Double?
    @Option(help: "Random seed (initialisation, shuffling).") var seed: Int?

    var windowSpec: PipelineSpec.Window? {
        window.map { PipelineSpec.Window(size: $0, hop: hop ?? $0) }
    }

    func validate() throws {
        if let window, window < 1 { throw ValidationError("--window must be positive") }
        if let hop, hop < 1 { throw ValidationError("--hop must be positive") }
        if hop != nil && window == nil { throw ValidationError("--hop needs --window") }
        if let c = classifier, !DefaultSpecs.names.contains(c) {
            throw ValidationError("--classifier must be one of \(DefaultSpecs.names.joined(separator: ", "))")
        }
    }

    func build() throws -> PipelineSpec {
        var overrides: [String: Any] = [:]
        if let nullRejection { overrides["nullRejection"] = nullRejection }
        if let hidden { overrides["hidden"] = hidden }
        if let layers { overrides["layers"] = layers }
        if let epochs { overrides["epochs"] = epochs }
        if let batch { overrides["batch"] = batch }
        if let lr { overrides["learningRate"] = lr }
        if let seed { overrides["seed"] = seed }
        return try DefaultSpecs.build(classifier: classifier, specFile: spec, classifierOptions: overrides,
                                      window: windowSpec, rest: rest)
    }
}
