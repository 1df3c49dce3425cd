import ArgumentParser
import Foundation
import GestureCLISupport
import GestureKit

struct Train: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Train a pipeline on labelled recordings and save it to one file.")

    @Argument(help: "Training data: .ts, .grt, .csv, a folder of .csv files, or a HAPT RawData folder.")
    var data: String

    @Option(name: [.short, .customLong("output")], help: "Where to save the trained pipeline (.gesture).")
    var output: String

    @Flag(help: "Choose the rest weight and the live post-processing (threshold, smoothing) by cross-validation grouped by user or session on the continuous training recordings (the spec's \"calibration\" settings, or folds 3 and at most 0.3 false activations per minute).")
    var calibrate = false

    @Option(name: .customLong("negatives"), help: ArgumentHelp("A recording in which no gesture happens (everyday motion), as `gesture stream --input` reads it; repeatable. DTW spotting learns \"not a gesture\" from it; other pipelines take it as their rest class.", valueName: "file"))
    var negatives: [String] = []

    @OptionGroup var specOptions: SpecOptions
    @OptionGroup var dataOptions: DataOptions

    func run() throws {
        try reportingErrors {
            var spec: PipelineSpec
            let dataset: Dataset
            if specOptions.classifier?.isAuto == true {
                let overrides = try specOptions.autoOverrides()
                dataset = try dataOptions.load(data, window: overrides.window)
                spec = try chooseAutomatically(dataset, overrides)
            } else {
                spec = try specOptions.build()
                dataset = try dataOptions.load(data, window: spec.window, unlabelled: spec.unlabelled)
            }
            if calibrate || spec.calibration != nil {
                spec = try calibrated(spec, dataset)
            }
            let background = try negatives.map { try TimeSeries.readFrames($0, channelNames: dataset.channelNames) }
            let pipeline = try Pipeline.train(spec, on: dataset, negatives: background, progress: { printStderr($0.description) })
            try pipeline.save(to: output)
            let counts = zip(pipeline.classes, pipeline.training.classCounts).map { "\($0) \($1)" }.joined(separator: ", ")
            printStderr(String(format: "trained %@ on %d examples (%@) in %.2f s -> %@",
                               pipeline.spec.classifier.kind, pipeline.training.examples, counts,
                               pipeline.training.seconds, output))
        }
    }

    /// `--calibrate` or a spec's `calibration`: prints the table of post-processing candidates and
    /// returns the spec with the chosen one.
    private func calibrated(_ spec: PipelineSpec, _ dataset: Dataset) throws -> PipelineSpec {
        var spec = spec
        let settings = spec.calibration ?? StreamCalibration.Settings()
        spec.calibration = settings
        printStderr("calibrating the rest weight and live post-processing by \(settings.folds)-fold cross-validation on the training recordings")
        let result = try StreamCalibration.calibrate(spec, on: dataset, settings: settings) { printStderr("  " + $0) }
        let width = result.table.map(\.name.count).max() ?? 0
        func pad(_ s: String) -> String { s + String(repeating: " ", count: max(width - s.count, 0)) }
        printStderr("  " + pad("candidate") + "    evP    evR   evF1  FA/min  rawAcc  decodedAcc  labelledAcc")
        for (i, row) in result.table.enumerated() {
            let r = row.report
            printStderr((i == result.chosen ? "* " : "  ") + pad(row.name) + String(
                format: " %6.3f %6.3f %6.3f %7.2f %7.3f %11.3f %12.3f", r.eventPrecision, r.eventRecall, r.eventF1,
                r.falseActivationsPerMinute, r.frameAccuracy, r.decodedFrameAccuracy, row.labelledFrameAccuracy))
        }
        printStderr("chose \(result.table[result.chosen].name) (grouped by \(result.groupedBy), at most \(settings.maxFalseActivationsPerMinute) false activations per minute)")
        return result.spec
    }

    /// `--classifier auto`: cross-validates every candidate on the training data, prints the table
    /// it chose from on stderr, and returns the winner's spec.
    private func chooseAutomatically(_ dataset: Dataset, _ overrides: PipelineSpec.Overrides) throws -> PipelineSpec {
        let folds = ModelSelection.defaultFolds
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
