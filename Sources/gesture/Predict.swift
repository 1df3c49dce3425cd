import ArgumentParser
import Foundation
import GestureCLISupport
import GestureKit

struct Predict: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Predict each example of a data file with a trained pipeline.")

    @Argument(help: "A trained pipeline (.gesture).")
    var pipeline: String

    @Argument(help: "Data to classify (labels, if any, are ignored).")
    var data: String

    @Flag(help: "One JSON object per line: index, label (null if rejected), confidence.")
    var json = false

    @OptionGroup var dataOptions: DataOptions

    struct Line: Encodable {
        var index: Int
        var label: String?
        var confidence: Float

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(index, forKey: .index)
            try c.encode(label, forKey: .label)
            try c.encode(confidence, forKey: .confidence)
        }
        enum CodingKeys: String, CodingKey { case index, label, confidence }
    }

    func run() throws {
        try reportingErrors {
            let p = try Pipeline.load(pipeline)
            let d = try dataOptions.load(data, window: p.spec.window)
            for (i, e) in d.examples.enumerated() {
                let prediction: Prediction
                do { prediction = try p.predict(e.series) } catch let err as GestureKitError { throw err.inFile(data) }
                let label = p.label(of: prediction)
                if json {
                    try printJSON(Line(index: i, label: label, confidence: prediction.confidence))
                } else {
                    print("\(i)\t\(label ?? "null")\t\(String(format: "%.4f", prediction.confidence))")
                }
            }
        }
    }
}
