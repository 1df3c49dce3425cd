import ArgumentParser
import Foundation
import GestureCLISupport
import GestureKit

/// `gesture info FILE [--json]`: what a dataset file holds.
///
/// Datasets are handled by `datasetInfo`; other kinds of file (a trained pipeline, `.gesture`)
/// get their own branch in `run()` and their own function beside it.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe a dataset (.csv, folder of .csv, .grt, .ts, HAPT RawData folder) or a trained pipeline (.gesture).")

    @Argument(help: "The file or folder to describe.")
    var path: String

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @OptionGroup var data: DatasetFlags
    @OptionGroup var cut: WindowFlags

    func run() throws {
        try reportingErrors {
            if path.hasSuffix(".gesture") { try pipelineInfo() } else { try datasetInfo() }
        }
    }

    /// Loads the dataset and prints its ``DatasetSummary``.
    func datasetInfo() throws {
        let format = try DatasetFormat.of(path)
        let dataset = try Dataset.load(path, options: cut.options(data))
        let summary = DatasetSummary(dataset, format: format)
        if json {
            try printJSON(summary)
        } else {
            print(summary.text)
        }
    }
}
