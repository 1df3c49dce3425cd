import Foundation

/// What `gesture info` says about a trained pipeline.
package struct PipelineSummary: Sendable, Codable {
    /// The file format name.
    package var format: String
    /// The file format version.
    package var version: Int
    /// The class names.
    package var classes: [String]
    /// The rest class, reported as null.
    package var rest: String?
    /// The rest class's prior relative to training (``PipelineSpec/restWeight``), when set.
    package var restWeight: Float?
    /// Values per frame.
    package var channels: Int
    /// The channel names.
    package var channelNames: [String]
    /// Frames per second, when known.
    package var sampleRate: Double?
    /// Stage kinds in order, by role.
    package var preprocessing: [String]
    /// The window, `nil` for whole examples.
    package var window: PipelineSpec.Window?
    /// Feature extractor kinds.
    package var features: [String]
    /// Feature transform kinds.
    package var featureTransforms: [String]
    /// The classifier kind.
    package var classifier: String
    /// Post-processing kinds.
    package var postprocessing: [String]
    /// The classifier's own description (model size, null-rejection thresholds, ...).
    package var classifierSummary: [String: String]
    /// What the pipeline was trained on.
    package var training: Pipeline.TrainingSummary
    /// How a whole-example pipeline that cannot spot decides live (``Pipeline/liveWindow``).
    package var liveWindow: LiveWindow?

    /// The summary of `p`.
    package init(_ p: Pipeline) {
        format = Pipeline.fileFormat
        version = Pipeline.fileVersion
        classes = p.classes
        rest = p.spec.rest
        restWeight = p.spec.restWeight
        channels = p.channelCount
        channelNames = p.channelNames
        sampleRate = p.sampleRate
        preprocessing = p.spec.preprocessing.map { type(of: $0).kind }
        window = p.spec.window
        features = p.spec.extractors.map { type(of: $0).kind }
        featureTransforms = p.spec.transforms.map { type(of: $0).kind }
        classifier = p.spec.classifier.kind
        postprocessing = p.spec.postprocessing.map { type(of: $0).kind }
        classifierSummary = p.spec.classifier.summary
        training = p.training
        liveWindow = p.liveWindow
    }

    package func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(format, forKey: .format)
        try c.encode(version, forKey: .version)
        try c.encode(classes, forKey: .classes)
        try c.encode(rest, forKey: .rest)
        try c.encodeIfPresent(restWeight, forKey: .restWeight)
        try c.encode(channels, forKey: .channels)
        try c.encode(channelNames, forKey: .channelNames)
        try c.encode(sampleRate, forKey: .sampleRate)
        try c.encode(preprocessing, forKey: .preprocessing)
        try c.encode(window, forKey: .window)
        try c.encode(features, forKey: .features)
        try c.encode(featureTransforms, forKey: .featureTransforms)
        try c.encode(classifier, forKey: .classifier)
        try c.encode(postprocessing, forKey: .postprocessing)
        try c.encode(classifierSummary, forKey: .classifierSummary)
        try c.encode(training, forKey: .training)
        try c.encodeIfPresent(liveWindow, forKey: .liveWindow)
    }

    /// The summary as `gesture info` prints it.
    package var text: String {
        var lines = ["pipeline      \(format) version \(version)"]
        lines.append("classes       \(classes.joined(separator: ", "))" + (rest.map { "   (rest: \($0), reported as null" + (restWeight.map { ", weight \($0)" } ?? "") + ")" } ?? ""))
        lines.append("channels      \(channels): \(channelNames.joined(separator: ", "))")
        lines.append("sample rate   \(sampleRate.map { "\($0) Hz" } ?? "unknown")")
        func list(_ l: [String]) -> String { l.isEmpty ? "none" : l.joined(separator: " -> ") }
        lines.append("preprocessing \(list(preprocessing))")
        lines.append("window        \(window.map { "\($0.size) frames, hop \($0.hop)" } ?? "whole examples")")
        if let l = liveWindow {
            lines.append("live          windows of \(l.window) frames, hop \(l.hop); a class after \(l.minRun) agreeing decisions; "
                         + "rest below activity \(l.activityFloor)")
        }
        if !features.isEmpty || !featureTransforms.isEmpty {
            lines.append("features      \(list(features + featureTransforms)) (\(training.featureCount) values)")
        }
        lines.append("classifier    \(classifier)")
        for k in classifierSummary.keys.sorted() { lines.append("  \(k): \(classifierSummary[k]!)") }
        lines.append("postprocess   \(list(postprocessing))")
        let counts = zip(classes, training.classCounts).map { "\($0) \($1)" }.joined(separator: ", ")
        lines.append("trained on    \(training.examples) examples (\(counts)) from \(training.source ?? "unknown")")
        lines.append(String(format: "              %d classifier inputs, %.2f s, at %@", training.trainingInputs, training.seconds, training.trainedAt))
        return lines.joined(separator: "\n")
    }
}
