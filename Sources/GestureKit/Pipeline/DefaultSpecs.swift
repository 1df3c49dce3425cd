import Foundation

/// The pipeline each `--classifier` gets when no `--spec` is given. The same documents are in
/// `pipelines/<name>.json` (a test keeps them equal).
public enum DefaultSpecs {
    public static let names = ["dtw", "knn", "centroid", "lstm", "minirocket"]

    /// The default spec as JSON text.
    public static func json(for classifier: String) throws -> String {
        switch classifier {
        case "dtw":
            return #"""
            {
              "classifier": {"kind": "dtw", "variant": "independent"}
            }
            """#
        case "knn":
            return #"""
            {
              "features": {
                "extractors": [{"kind": "timeDomain", "features": ["mean", "std", "min", "max", "rms", "meanAbsoluteDifference"]}],
                "transforms": [{"kind": "scale", "method": "zscore"}]
              },
              "classifier": {"kind": "knn", "k": 5}
            }
            """#
        case "centroid":
            return #"""
            {
              "features": {
                "extractors": [{"kind": "timeDomain", "features": ["mean", "std", "min", "max", "rms", "meanAbsoluteDifference"]}],
                "transforms": [{"kind": "scale", "method": "zscore"}]
              },
              "classifier": {"kind": "centroid"}
            }
            """#
        case "lstm":
            return #"""
            {
              "classifier": {"kind": "lstm"}
            }
            """#
        case "minirocket":
            return #"""
            {
              "features": {"extractors": [{"kind": "miniRocket", "features": 10000, "maxDilations": 32, "seed": 0}]},
              "classifier": {"kind": "ridge"}
            }
            """#
        default:
            throw GestureKitError("unknown classifier \"\(classifier)\" (known: \(names.joined(separator: ", ")))", field: "classifier")
        }
    }

    /// A spec built from a default or a file, with command-line overrides applied to its JSON
    /// before decoding, so overrides go through the same validation as a hand-written spec.
    /// - Parameters:
    ///   - classifierOptions: keys set on the `classifier` object (e.g. `"nullRejection": 2`).
    public static func build(classifier: String?, specFile: String?, classifierOptions: [String: Any] = [:],
                             window: PipelineSpec.Window? = nil, rest: String? = nil) throws -> PipelineSpec {
        let source: String
        let data: Data
        if let specFile {
            source = specFile
            do { data = try Data(contentsOf: URL(fileURLWithPath: specFile)) } catch {
                throw GestureKitError("cannot read spec: \(error.localizedDescription)", file: specFile)
            }
        } else {
            source = "default \(classifier ?? "dtw") spec"
            data = Data(try json(for: classifier ?? "dtw").utf8)
        }
        guard var root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw GestureKitError("not a JSON object", file: source)
        }
        if specFile != nil, let classifier {
            let kind = (root["classifier"] as? [String: Any])?["kind"] as? String
            if kind != classifier {
                throw GestureKitError("--classifier \(classifier) disagrees with the spec's classifier \(kind ?? "(none)")", file: source, field: "classifier.kind")
            }
        }
        if !classifierOptions.isEmpty {
            var c = root["classifier"] as? [String: Any] ?? [:]
            for (k, v) in classifierOptions { c[k] = v }
            root["classifier"] = c
        }
        if let window {
            var f = root["features"] as? [String: Any] ?? [:]
            f["window"] = window.size
            f["hop"] = window.hop
            root["features"] = f
        }
        if let rest { root["rest"] = rest }
        let edited = try JSONSerialization.data(withJSONObject: root)
        return try decodeJSON(PipelineSpec.self, from: edited, file: source)
    }
}
