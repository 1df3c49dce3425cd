import ArgumentParser
import Foundation
import GestureKit

struct Evaluate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Evaluate a pipeline on labelled data, or cross-validate a spec.",
        discussion: """
            gesture evaluate PIPELINE DATA [--json] [--plot FILE.svg]
            gesture evaluate DATA (--classifier NAME | --spec FILE) --folds K [--group-by session|user] [--json]
            """)

    @Argument(help: "A trained pipeline and labelled data, or only data with --folds.")
    var inputs: [String]

    @Option(help: "Cross-validate with K folds (trains on K-1, tests on the rest, K times).")
    var folds: Int?

    @Option(help: "Keep whole sessions or users on one side of each fold: session or user.")
    var groupBy: GroupBy?

    @Flag(help: "Print one JSON object (accuracy, rejected, confusion, perClass).")
    var json = false

    @Option(help: "Also draw the confusion matrix to this SVG file.")
    var plot: String?

    @OptionGroup var specOptions: SpecOptions
    @OptionGroup var dataOptions: DataOptions

    func validate() throws {
        if folds != nil {
            guard inputs.count == 1 else { throw ValidationError("with --folds give only the data") }
        } else {
            guard inputs.count == 2 else { throw ValidationError("give a pipeline and data, or data with --folds") }
            if groupBy != nil { throw ValidationError("--group-by goes with --folds") }
        }
    }

    func run() throws {
        try reportingErrors {
            let report: ClassificationReport
            if let folds {
                let spec = try specOptions.build()
                let data = try dataOptions.load(inputs[0], window: specOptions.windowSpec)
                report = try Evaluation.crossValidate(spec, on: data, folds: folds, groupBy: groupBy,
                                                      seed: UInt64(specOptions.seed ?? 0))
            } else {
                let pipeline = try Pipeline.load(inputs[0])
                let data = try dataOptions.load(inputs[1], window: pipeline.spec.window)
                report = try Evaluation.evaluate(pipeline, on: data).report
            }
            if let plot { try writeAtomically(Data(report.svg.utf8), to: plot) }
            if json { try printJSON(report) } else { print(report.text, terminator: "") }
        }
    }
}

extension GroupBy: ExpressibleByArgument {}
