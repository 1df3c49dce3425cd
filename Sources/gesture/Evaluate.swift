import ArgumentParser
import Foundation
import GestureCLISupport
import GestureKit

struct Evaluate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Evaluate a pipeline on labelled data, or cross-validate a spec.",
        discussion: """
            gesture evaluate PIPELINE DATA [--json] [--plot FILE.svg]
            gesture evaluate DATA (--classifier NAME | --spec FILE) --folds K [--group-by session|user] [--seed S] [--json]
            gesture evaluate PIPELINE RECORDING --stream [--events A,B] [--json]
            gesture evaluate DATA (--classifier NAME | --spec FILE) --spotting-replay [--holdout 3] [--partitions 5] [--gap 200] [--still last|first|zeros|all] [--still-noise F] [--seed S] [--trace]
            gesture evaluate DATA (--classifier NAME | --spec FILE) --spotting-replay --unlearned [--gap 200] [--still ...] [--still-noise F] [--seed S] [--trace]

            --stream replays continuous recordings (per-row labels, unlabelled rows = null) frame by frame,
            as live, and reports frame accuracy, event precision / recall / F1, false activations per
            minute of null time and the median detection latency. --classifier auto with --folds is nested
            cross-validation: each outer fold chooses among the default pipelines on its training part only.
            --unlearned leaves each class in turn out of training and streams all its examples: nothing
            should be reported (how well the pipeline rejects gestures it never learned).
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

    @Flag(help: "Spotting replay: hold out --holdout examples per class, train on the rest, stream the held-out ones shuffled with --gap still frames between them, count what is reported.")
    var spottingReplay = false

    @Option(help: "With --spotting-replay: examples held out per class (default 3).")
    var holdout: Int?

    @Option(help: "With --spotting-replay: seeded partitions (seeds --seed, --seed + 1, ...; default 5).")
    var partitions: Int?

    @Flag(help: "With --spotting-replay: leave each class in turn out of training and stream all its examples; count those reported (every report is wrong).")
    var unlearned = false

    @Option(help: "With --spotting-replay: still frames before, between and after the gestures.")
    var gap = 200

    @Option(help: "With --spotting-replay: what the still frames hold: last (previous gesture's last frame), first (next gesture's first frame), zeros, or all.")
    var still = "last"

    @Option(help: "With --spotting-replay: Gaussian noise on the still frames, as a fraction of each channel's standard deviation (e.g. 0.01).")
    var stillNoise: Float = 0

    @Flag(help: "With --spotting-replay: also list each gesture not reported once with its label (its frames in the stream, what was reported and at which frames, what it is classified as whole) and each false detection. --json always includes them.")
    var trace = false

    @Option(help: ArgumentHelp("With --spotting-replay: lay everyday motion from this HAPT RawData folder between the gestures instead of still frames (mapped onto the data's channels, rate and scale).", valueName: "folder"))
    var motion: String?

    @Option(help: "With --motion: the HAPT users whose motion lies between the gestures (e.g. 14,15,16).")
    var motionUsers: String?

    @Option(help: "With --motion: the HAPT users whose motion the pipeline is trained with as negatives (never the same as --motion-users; default none).")
    var negativeUsers: String?

    @Option(help: "With --motion: seconds of negative motion trained with (spread over the negative users' recordings).")
    var negativeSeconds: Double = 600

    @Option(help: "With --motion: seconds of motion before, between and after the gestures.")
    var motionSeconds: Double = 6

    @Option(help: "With --motion: the gestures' sample rate in Hz, when the data does not say it.")
    var motionRate: Double?

    @OptionGroup var specOptions: SpecOptions
    @OptionGroup var dataOptions: DataOptions

    func validate() throws {
        if spottingReplay {
            guard inputs.count == 1, folds == nil, !stream else { throw ValidationError("--spotting-replay takes only the data (isolated examples), without --folds or --stream") }
            guard still == "all" || StillFrames(rawValue: still) != nil else { throw ValidationError("--still must be last, first, zeros or all") }
            guard stillNoise.isFinite, stillNoise >= 0 else { throw ValidationError("--still-noise must be a non-negative fraction, e.g. 0.01") }
            if unlearned, holdout != nil || partitions != nil {
                throw ValidationError("--unlearned streams every example of the class left out: --holdout and --partitions do not apply")
            }
            guard motionSeconds > 0, motionSeconds.isFinite, negativeSeconds >= 0, negativeSeconds.isFinite else {
                throw ValidationError("--motion-seconds must be positive and --negative-seconds non-negative")
            }
            if motion == nil, motionUsers != nil || negativeUsers != nil || motionRate != nil {
                throw ValidationError("--motion-users, --negative-users and --motion-rate go with --motion")
            }
            return
        }
        if unlearned { throw ValidationError("--unlearned goes with --spotting-replay") }
        if motion != nil { throw ValidationError("--motion goes with --spotting-replay") }
        if trace { throw ValidationError("--trace goes with --spotting-replay") }
        if holdout != nil || partitions != nil { throw ValidationError("--holdout and --partitions go with --spotting-replay") }
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
            if spottingReplay { return try spottingReplayEvaluation() }
            let report: ClassificationReport
            if let folds, specOptions.classifier?.isAuto == true {
                report = try nestedSelection(folds: folds)
            } else if let folds {
                let spec = try specOptions.build(seedIsForFolds: true)
                let data = try dataOptions.load(inputs[0], window: spec.window, unlabelled: spec.unlabelled)
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
        // The post-processed accuracy means nothing after a stage that reports each event once.
        let reportsOnce = pipeline.spec.postprocessing.contains(where: \.reportsOnce)
        print(String(format: "frame accuracy   %.4f   (%d frames", report.frameAccuracy, report.frames)
              + (reportsOnce ? ")" : String(format: "; %.4f after post-processing)", report.decodedFrameAccuracy)))
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

extension Evaluate {
    /// `--classifier auto --folds K`: nested cross-validation. Each outer fold chooses among the
    /// default pipelines on its training part only (printing what it chose on stderr), so the pooled
    /// accuracy is that of `gesture train --classifier auto`, not of the best candidate.
    func nestedSelection(folds: Int) throws -> ClassificationReport {
        let overrides = try specOptions.autoOverrides()
        let data = try dataOptions.load(inputs[0], window: overrides.window)
        printStderr("nested cross-validation: \(folds) outer folds, each choosing by \(ModelSelection.defaultFolds)-fold cross-validation on its training part")
        let nested = try ModelSelection.crossValidate(on: data, folds: folds, groupBy: groupBy, seed: specOptions.seed ?? 0,
                                                      overrides: overrides) { f, choice in
            let table = choice.table.map { String(format: "%@ %.4f", $0.name, $0.accuracy) }.joined(separator: ", ")
            printStderr("  fold \(f + 1): chose \(choice.winner) (\(table))")
        }
        return nested.report
    }
}

extension Evaluate {
    func spottingReplayEvaluation() throws {
        // --seed picks the partitions here, and seeds the classifier only when it has a seed.
        let spec = try specOptions.build(seedIsForFolds: true)
        let data = try dataOptions.load(inputs[0], window: spec.window)
        let modes = still == "all" ? StillFrames.allCases : [StillFrames(rawValue: still)!]
        let seed = UInt64(specOptions.seed ?? 0)
        if let motion {
            let report = try everydayReplay(spec, data, folder: motion, seed: seed)
            if json { return try printJSON(report) }
            print(report.text, terminator: "")
            if trace { print("\n" + report.traceText, terminator: "") }
            return
        }
        let report = unlearned
            ? try Evaluation.unlearnedReplay(spec, on: data, gap: gap, seed: seed, still: modes, noise: stillNoise)
            : try Evaluation.spottingReplay(spec, on: data, holdout: holdout ?? 3, partitions: partitions ?? 5, gap: gap,
                                            seed: seed, still: modes, noise: stillNoise)
        if json { return try printJSON(report) }
        print(report.text, terminator: "")
        if trace { print("\n" + report.traceText, terminator: "") }
    }
}


extension Evaluate {
    /// `--spotting-replay --motion FOLDER`: the held-out gestures between stretches of everyday
    /// motion of `--motion-users`, trained with negatives of `--negative-users`.
    func everydayReplay(_ spec: PipelineSpec, _ data: Dataset, folder: String, seed: UInt64) throws -> SpottingReplayReport {
        guard let rate = motionRate ?? data.sampleRate else {
            throw GestureKitError("the data does not say its sample rate: give --motion-rate", field: "motion-rate")
        }
        let hapt = try HAPTFormat.read(folder)
        func users(_ list: String?) -> Set<String> {
            Set(splitList(list ?? "").compactMap { Int($0) }.map { String(format: "user%02d", $0) })
        }
        let shown = users(motionUsers), negative = users(negativeUsers)
        guard !shown.isEmpty else { throw GestureKitError("--motion needs --motion-users", field: "motion-users") }
        guard shown.isDisjoint(with: negative) else {
            throw GestureKitError("--motion-users and --negative-users share people: \(shown.intersection(negative).sorted().joined(separator: ", "))",
                                  field: "negative-users")
        }
        let all = hapt.recordings.map(\.series)
        func pick(_ who: Set<String>) -> [TimeSeries] { hapt.recordings.filter { $0.user.map(who.contains) == true }.map(\.series) }
        let between = try EverydayMotion.mapped(pick(shown), sourceRate: HAPTFormat.sampleRate, like: data, rate: rate, reference: all)
        guard !between.recordings.isEmpty else { throw GestureKitError("no recordings of --motion-users in \(folder)", file: folder) }
        let negatives = negative.isEmpty ? [] : try EverydayMotion.mapped(pick(negative), sourceRate: HAPTFormat.sampleRate, like: data,
                                                                         rate: rate, reference: all).sample(seconds: negativeSeconds)
        return try Evaluation.everydayReplay(spec, on: data, motion: between, negatives: negatives, seconds: motionSeconds,
                                             holdout: holdout ?? 3, partitions: partitions ?? 5, seed: seed, unlearned: unlearned)
    }
}
