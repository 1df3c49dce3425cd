import Foundation

/// The pipeline each `--classifier NAME` gets when no `--spec` is given. Each classifier declares its
/// own (``Classifier/defaultPipeline``), so the names, the help text and `pipelines/<name>.json`
/// (written by `gesture spec NAME`, kept equal by a test) all come from one typed value.
public enum DefaultSpecs {
    /// Every default pipeline, in the order of the classifier kind list.
    public static var all: [DefaultPipeline] { StageKinds.classifiers.compactMap { $0.defaultPipeline } }

    /// The names of ``all``, for `--classifier`.
    public static var names: [String] { all.map(\.name) }

    /// The default pipeline called `name`.
    public static func pipeline(named name: String) throws -> DefaultPipeline {
        guard let d = all.first(where: { $0.name == name }) else {
            throw GestureKitError("unknown classifier \"\(name)\" (known: \(names.joined(separator: ", ")))", field: "classifier")
        }
        return d
    }

    /// The default spec as the JSON a person would write: pretty-printed, keys sorted.
    public static func json(for name: String) throws -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try e.encode(try pipeline(named: name).spec), as: UTF8.self) + "\n"
    }

    /// A spec from a default or a file, with command-line overrides applied to the typed value.
    /// - Parameters:
    ///   - classifier: a default's name; with `specFile` it must agree with the spec's classifier.
    ///   - specFile: a spec JSON file to start from instead of a default.
    ///   - overrides: settings, window and rest class to apply on top.
    /// - Throws: when the spec cannot be read, or an override does not apply to its classifier.
    public static func build(classifier: String?, specFile: String?,
                             overrides: PipelineSpec.Overrides = PipelineSpec.Overrides()) throws -> PipelineSpec {
        let base: PipelineSpec
        let source: String
        if let specFile {
            base = try PipelineSpec.load(specFile)
            source = specFile
            if let classifier {
                let kind = try pipeline(named: classifier).spec.classifier.kind
                guard kind == base.classifier.kind else {
                    throw GestureKitError("--classifier \(classifier) disagrees with the spec's classifier \(base.classifier.kind)", file: specFile, field: "classifier.kind")
                }
            }
        } else {
            base = try pipeline(named: classifier ?? "dtw").spec
            source = "default \(classifier ?? "dtw") spec"
        }
        do { return try base.applying(overrides) } catch let e as GestureKitError { throw e.inFile(source) }
    }
}
