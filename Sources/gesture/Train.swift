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
            let spec = try specOptions.build()
            let dataset = try dataOptions.load(data, window: spec.window)
            let pipeline = try Pipeline.train(spec, on: dataset, progress: { printStderr($0.description) })
            try pipeline.save(to: output)
            let counts = zip(pipeline.classes, pipeline.training.classCounts).map { "\($0) \($1)" }.joined(separator: ", ")
            printStderr(String(format: "trained %@ on %d examples (%@) in %.2f s -> %@",
                               pipeline.spec.classifier.kind, pipeline.training.examples, counts,
                               pipeline.training.seconds, output))
        }
    }
}
