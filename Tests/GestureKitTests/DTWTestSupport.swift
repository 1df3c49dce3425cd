import Foundation
@testable import GestureKit

/// Real datasets for the DTW/kNN/spotter tests, from ../shared/datasets beside the repository.
enum DTWTestData {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/datasets")

    static var available: Bool { FileManager.default.fileExists(atPath: root.appendingPathComponent("grt").path) }

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    /// Loads a dataset file. A minimal private reader of the two formats these tests use (.ts and
    /// .grt), kept until the Formats module lands on main; then this becomes `Dataset.load(path)`.
    static func load(_ relative: String) throws -> Dataset {
        let p = path(relative)
        let text = try String(contentsOfFile: p, encoding: .utf8)
        return p.hasSuffix(".ts") ? try readTS(text, source: relative) : try readGRT(text, source: relative)
    }

    /// sktime/aeon .ts, equal-length, no missing values: `dim0 values : dim1 values : ... : label`.
    static func readTS(_ text: String, source: String) throws -> Dataset {
        var examples: [Example] = []
        var inData = false
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if !inData { if line.lowercased() == "@data" { inData = true }; continue }
            let fields = line.split(separator: ":")
            let channels = fields.dropLast().map { $0.split(separator: ",").map { Float($0)! } }
            examples.append(Example(series: TimeSeries(channels: channels), label: String(fields.last!)))
        }
        return Dataset(examples: examples, source: source)
    }

    /// GRT time-series or labelled classification files (whitespace tokens, see the dataset README).
    static func readGRT(_ text: String, source: String) throws -> Dataset {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).map(String.init)
        var i = tokens.firstIndex(of: "NumDimensions:")! + 1
        let dims = Int(tokens[i])!
        if tokens[0] == "GRT_LABELLED_TIME_SERIES_CLASSIFICATION_DATA_FILE_V1.0" {
            var examples: [Example] = []
            i = tokens.firstIndex(of: "LabelledTimeSeriesTrainingData:")! + 1
            while i < tokens.count {
                precondition(tokens[i] == "************TIME_SERIES************")
                let label = tokens[i + 2], length = Int(tokens[i + 4])!
                i += 6
                let v = tokens[i..<(i + length * dims)].map { Float($0)! }
                i += length * dims
                examples.append(Example(series: TimeSeries(values: v, channelCount: dims), label: label))
            }
            return Dataset(examples: examples, classes: Dataset.classOrder(examples.compactMap(\.label)).sorted(), source: source)
        }
        i = (tokens.firstIndex(of: "LabelledTrainingData:") ?? tokens.firstIndex(of: "Data:")!) + 1
        var examples: [Example] = []
        while i + dims < tokens.count + 1 && i < tokens.count {
            let label = tokens[i]
            let v = tokens[(i + 1)...(i + dims)].map { Float($0)! }
            examples.append(Example(series: TimeSeries(values: v, channelCount: dims), label: label))
            i += dims + 1
        }
        return Dataset(examples: examples, classes: Dataset.classOrder(examples.compactMap(\.label)).sorted(), source: source)
    }

    static func labels(_ d: Dataset) -> [Int] { d.labelIndices.map { $0! } }
}
