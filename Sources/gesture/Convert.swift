import ArgumentParser
import Foundation
import GestureCLISupport
import GestureKit

/// `gesture convert IN OUT`: reads any dataset format and writes `.csv`, `.grt` or `.ts`.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert a dataset between formats (reads .csv/.grt/.ts/HAPT, writes .csv/.grt/.ts by extension).")

    @Argument(help: "The dataset to read.")
    var input: String

    @Argument(help: "The file to write; its extension picks the format.")
    var output: String

    @OptionGroup var data: DatasetFlags
    @OptionGroup var cut: WindowFlags

    func run() throws {
        try reportingErrors {
            var dataset = try Dataset.load(input, options: cut.options(data))
            // With --window the windows are what the user wants written, not the recordings.
            if cut.window != nil { dataset.recordings = [] }
            try dataset.write(to: output)
            let what = dataset.recordings.isEmpty ? "\(dataset.examples.count) examples"
                : "\(dataset.recordings.count) recordings (\(dataset.examples.count) examples)"
            printStderr("wrote \(what) to \(output)")
        }
    }
}
