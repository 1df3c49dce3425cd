import ArgumentParser
import Foundation
import GestureKit

struct Evaluate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Evaluate a pipeline on labelled data, or cross-validate a spec.",
        discussion: """
            gesture evaluate PIPELINE DATA [--json] [--plot FILE.svg]
            gesture evaluate DATA (--classifier NAME | --spec FILE) --folds K [--group-by session|user] [--seed S] [--json]
            gesture evaluate PIPELINE RECORDING --stream [--events A,B] [--json]

            --stream replays continuous recordings (per-row labels, unlabelled rows = null) frame by frame,
            as live, and reports frame accuracy, event precision / recall / F1, false activations per
            minute of null time and the median detection latency.
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

    @Flag(help: "Replay continuous recordings as a live stream and score frames and events.")
    var stream = false

    @Option(help: "With --stream: the classes whose segments are events (default: every class but the rest class).")
    var events: String?

    @OptionGroup var specOptions: SpecOptions
    @OptionGroup var dataOptions: DataOptions

    func validate() throws {
        if stream && (folds != nil || inputs.count != 2) { throw ValidationError("--stream takes a pipeline and a recording, without --folds") }
        if events != nil && !stream { throw ValidationError("--events goes with --stream") }
        if folds != nil {
            guard inputs.count == 1 else { throw ValidationError("with --folds give only the data") }
        } else {
            guard inputs.count == 2 else { throw ValidationError("give a pipeline and data, or data with --folds") }
            if groupBy != nil { throw ValidationError("--group-by goes with --folds") }
            try specOptions.refuse("when evaluating a trained pipeline (it keeps the settings it was trained with; cross-validate a spec with --folds)")
        }
    }

    func run() throws {
        try reportingErrors {
            if stream { return try streamEvaluation() }
            let report: ClassificationReport
            if let folds {
                let spec = try specOptions.build(seedIsForFolds: true)
                let data = try dataOptions.load(inputs[0], window: spec.window)
                report = try Evaluation.crossValidate(spec, on: data, folds: folds, groupBy: groupBy,
                                                      seed: specOptions.seed ?? 0)
            } else {
                let pipeline = try Pipeline.load(inputs[0])
                let data = try dataOptions.load(inputs[1], window: pipeline.spec.window)
                report = try Evaluation.evaluate(pipeline, on: data).report
                let novel = Set(data.examples.compactMap(\.label)).subtracting(pipeline.classes)
                if !novel.isEmpty {
                    printStderr("note: classes not in the pipeline count as null truth (should be rejected): \(novel.sorted().joined(separator: ", "))")
                }
            }
            if let plot { try writeAtomically(Data(report.svg.utf8), to: plot) }
            if json { try printJSON(report) } else { print(report.text, terminator: "") }
        }
    }
}

extension Evaluate {
    func streamEvaluation() throws {
        let pipeline = try Pipeline.load(inputs[0])
        let data = try dataOptions.load(inputs[1])
        guard !data.recordings.isEmpty else {
            throw GestureKitError("--stream needs continuous recordings with per-row labels (CSV, GRT continuous or HAPT), not separate examples", file: inputs[1])
        }
        try StreamSession.checkLive(pipeline, file: inputs[0])
        let eventClasses = events.map { Set(splitList($0)) }
        if let e = eventClasses, !e.isSubset(of: pipeline.classes) {
            throw GestureKitError("--events names classes the pipeline does not know: \(e.subtracting(pipeline.classes).sorted().joined(separator: ", "))", field: "events")
        }
        let report = try Evaluation.evaluateStream(pipeline, on: data.recordings, classes: eventClasses)
        if json { return try printJSON(report) }
        print(String(format: "frame accuracy   %.4f   (%d frames)", report.frameAccuracy, report.frames))
        print(String(format: "events           precision %.4f  recall %.4f  F1 %.4f  (%d events, %d true segments)",
                     report.eventPrecision, report.eventRecall, report.eventF1, report.events, report.trueSegments))
        print(String(format: "false activations %.2f per minute of null time", report.falseActivationsPerMinute))
        print("median latency   " + (report.medianLatencyMs.map { String(format: "%.0f ms", $0) } ?? "n/a"))
        for c in report.perClass.keys.sorted() {
            let e = report.perClass[c]!
            var line = "  \(c): frames \(String(format: "%.3f", Double(e.correctFrames) / Double(max(e.frames, 1)))) of \(e.frames)"
            if e.segments > 0 || e.events > 0 {
                line += ", detected \(e.detected) of \(e.segments) segments, \(e.correctEvents) of \(e.events) events correct"
            }
            print(line)
        }
    }
}

extension GroupBy: ExpressibleByArgument {}
