import ArgumentParser
import Foundation
import GestureKit

struct Train: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Train a pipeline on labelled recordings and save it to one file.")

    @Argument(help: "Training data: .ts, .grt, .csv, a folder of .csv files, or a HAPT RawData folder.")
    var data: String

    @Option(name: [.short, .customLong("output")], help: "Where to save the trained pipeline (.gesture).")
    var output: String

    @OptionGroup var specOptions: SpecOptions
    @OptionGroup var dataOptions: DataOptions

    func run() throws {
        try reportingErrors {
            let spec: PipelineSpec
            let dataset: Dataset
            if specOptions.classifier?.isAuto == true {
                let overrides = try specOptions.autoOverrides()
                dataset = try dataOptions.load(data, window: overrides.window)
                spec = try chooseAutomatically(dataset, overrides)
            } else {
                spec = try specOptions.build()
                dataset = try dataOptions.load(data, window: spec.window, unlabelled: spec.unlabelled)
            }
            let pipeline = try Pipeline.train(spec, on: dataset, progress: { printStderr($0.description) })
            try pipeline.save(to: output)
            let counts = zip(pipeline.classes, pipeline.training.classCounts).map { "\($0) \($1)" }.joined(separator: ", ")
            printStderr(String(format: "trained %@ on %d examples (%@) in %.2f s -> %@",
                               pipeline.spec.classifier.kind, pipeline.training.examples, counts,
                               pipeline.training.seconds, output))
        }
    }

    /// `--classifier auto`: cross-validates every candidate on the training data, prints the table
    /// it chose from on stderr, and returns the winner's spec.
    private func chooseAutomatically(_ dataset: Dataset, _ overrides: PipelineSpec.Overrides) throws -> PipelineSpec {
        let folds = 5
        if let g = ModelSelection.grouping(of: dataset, folds: folds) {
            printStderr("choosing a classifier by \(folds)-fold cross-validation grouped by \(g)")
        } else {
            printStderr("choosing a classifier by \(folds)-fold stratified cross-validation")
        }
        let choice = try ModelSelection.select(on: dataset, folds: folds, seed: specOptions.seed ?? 0, overrides: overrides) { row in
            printStderr(String(format: "  %-11@ accuracy %.4f", row.name, row.accuracy))
        }
        printStderr("chose \(choice.winner)")
        return choice.spec
    }
}
