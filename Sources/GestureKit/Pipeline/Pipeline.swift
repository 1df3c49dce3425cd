import Foundation

/// A trained recogniser: pre-processing, optional windowed features, a classifier and
/// post-processing, with the classes and channels it was trained on.
///
/// ```swift
/// let spec = try PipelineSpec.load("pipelines/knn.json")
/// let pipeline = try Pipeline.train(spec, on: try Dataset.load("train.ts"))
/// try pipeline.save(to: "model.gesture")
/// let p = try Pipeline.load("model.gesture").predict(series)
/// ```
/// Batch prediction is streaming prediction run over a whole series (``predict(_:)`` pushes every
/// frame through a ``Recognizer``), so both always agree.
public struct Pipeline: Sendable {
    /// The stages, trained.
    public var spec: PipelineSpec
    public var classes: [String]
    public var channelNames: [String]
    public var sampleRate: Double?
    public var training: TrainingSummary

    /// What the pipeline was trained on, for `gesture info`.
    public struct TrainingSummary: Sendable, Hashable, Codable {
        public var source: String?
        public var examples: Int
        /// Training examples per class, in class order.
        public var classCounts: [Int]
        /// Feature vector length seen by the classifier (0 for sequence classifiers).
        public var featureCount: Int
        /// Windows or examples the classifier was trained on.
        public var trainingInputs: Int
        public var seconds: Double
        public var trainedAt: String
    }

    public var channelCount: Int { channelNames.count }

    /// Index of the rest class, reported as null.
    public var restIndex: Int? { spec.rest.flatMap { classes.firstIndex(of: $0) } }

    /// The class name a prediction reports: `nil` for rejected input and for the rest class.
    public func label(of p: Prediction) -> String? {
        guard let i = p.classIndex, i != restIndex else { return nil }
        return classes[i]
    }

    /// Trains every stage in order on `dataset` (examples with a `nil` label are skipped).
    /// - Parameter log: receives progress lines (stage fitted, classifier trained).
    public static func train(_ spec: PipelineSpec, on dataset: Dataset,
                             log: (@Sendable (String) -> Void)? = nil) throws -> Pipeline {
        try spec.check()
        let started = Date()
        var spec = spec
        let classes = dataset.classes
        guard !classes.isEmpty else { throw GestureKitError("no labelled examples to train on", file: dataset.source) }
        if let rest = spec.rest, !classes.contains(rest) {
            throw GestureKitError("rest label \"\(rest)\" is not a class of the data (classes: \(classes.joined(separator: ", ")))",
                                  file: dataset.source, field: "rest")
        }
        let channels = dataset.channelCount
        let rate = dataset.sampleRate
        let index = Dictionary(uniqueKeysWithValues: classes.enumerated().map { ($1, $0) })
        var series: [TimeSeries] = []
        var labels: [Int] = []
        var groups: [String?] = []
        for e in dataset.examples {
            guard let l = e.label, let i = index[l] else { continue }
            guard e.series.channelCount == channels else {
                throw GestureKitError("example has \(e.series.channelCount) channels, the data has \(channels)", file: dataset.source)
            }
            guard e.series.frameCount > 0 else { continue }
            series.append(e.series)
            labels.append(i)
            groups.append(e.session ?? e.user)
        }
        guard !series.isEmpty else { throw GestureKitError("no labelled examples to train on", file: dataset.source) }
        if let bad = series.firstIndex(where: { !$0.isFinite }) {
            throw GestureKitError("training example \(bad) holds a non-finite value", file: dataset.source)
        }

        for i in spec.preprocessing.indices {
            try spec.preprocessing[i].fit(series, channels: channels, sampleRate: rate)
            let stage = spec.preprocessing[i]
            series = series.map { stage.apply(to: $0) }
            log?("fitted \(type(of: stage).kind)")
        }

        // What the classifier sees: whole examples or windows of them.
        var inputs: [TimeSeries] = []
        var inputLabels: [Int] = []
        var inputGroups: [String?] = []
        for (k, s) in series.enumerated() {
            for w in Pipeline.windows(of: s, spec.window) {
                inputs.append(w)
                inputLabels.append(labels[k])
                inputGroups.append(groups[k])
            }
        }

        var featureCount = 0
        switch spec.classifier {
        case .sequence(var classifier):
            if let log, var lstm = classifier as? LSTMClassifier {
                lstm.progress = { r in
                    var line = String(format: "epoch %3d  loss %.4f  accuracy %.3f", r.epoch, r.loss, r.accuracy)
                    if let vl = r.validationLoss, let va = r.validationAccuracy {
                        line += String(format: "  validation loss %.4f  accuracy %.3f", vl, va)
                    }
                    log(line + String(format: "  lr %.2g  %.2f s", Double(r.learningRate), r.seconds))
                }
                classifier = lstm
            }
            try classifier.train(inputs, labels: inputLabels, classes: classes, groups: inputGroups)
            if var lstm = classifier as? LSTMClassifier {
                lstm.progress = nil
                classifier = lstm
            }
            spec.classifier = .sequence(classifier)
        case .vector(var classifier):
            for i in spec.extractors.indices {
                try spec.extractors[i].fit(inputs, channels: channels, sampleRate: rate)
            }
            let extractors = spec.extractors
            var vectors = inputs.map { Pipeline.features(of: $0, extractors) }
            for i in spec.transforms.indices {
                try spec.transforms[i].fit(vectors)
                let t = spec.transforms[i]
                vectors = vectors.map { t.transform($0) }
            }
            featureCount = vectors.first?.count ?? 0
            log?("extracted \(featureCount) features from \(vectors.count) \(spec.window == nil ? "examples" : "windows")")
            if let bad = vectors.firstIndex(where: { !$0.allSatisfy(\.isFinite) }) {
                throw GestureKitError("features of training input \(bad) are not finite", file: dataset.source, field: "features")
            }
            try classifier.train(vectors, labels: inputLabels, classes: classes)
            spec.classifier = .vector(classifier)
        }
        log?("trained \(spec.classifier.kind) on \(inputs.count) \(spec.window == nil ? "examples" : "windows")")
        for i in spec.postprocessing.indices {
            try spec.postprocessing[i].prepare(sampleRate: rate)
        }
        var counts = [Int](repeating: 0, count: classes.count)
        for l in labels { counts[l] += 1 }
        let summary = TrainingSummary(
            source: dataset.source, examples: series.count, classCounts: counts, featureCount: featureCount,
            trainingInputs: inputs.count, seconds: Date().timeIntervalSince(started),
            trainedAt: ISO8601DateFormatter().string(from: started))
        return Pipeline(spec: spec, classes: classes, channelNames: dataset.channelNames, sampleRate: rate,
                        training: summary)
    }

    /// The windows the classifier sees for a whole example: every `size` frames each `hop`, or the
    /// whole example when it is shorter than one window or no window is set.
    static func windows(of s: TimeSeries, _ window: PipelineSpec.Window?) -> [TimeSeries] {
        guard let w = window, s.frameCount > w.size else { return [s] }
        return stride(from: 0, through: s.frameCount - w.size, by: w.hop).map { s.frames($0..<($0 + w.size)) }
    }

    static func features(of s: TimeSeries, _ extractors: [any FeatureExtractor]) -> [Float] {
        extractors.flatMap { $0.features(of: s) }
    }

    /// A fresh recogniser that keeps what a whole-example pipeline needs for ``Recognizer/finish()``.
    public func recognizer() -> Recognizer { Recognizer(self) }

    /// A fresh recogniser for an endless stream: flat memory; whole-example pipelines decide through
    /// their classifier's spotter.
    public func liveRecognizer() -> Recognizer { Recognizer(self, keepsHistory: false) }

    /// Whether a whole-example pipeline can still decide live (its classifier spots gestures).
    public var supportsSpotting: Bool {
        if case .sequence(let c) = spec.classifier, let s = c as? any SpottingClassifier { return s.makeSpotter() != nil }
        return false
    }

    /// Predicts one whole series: every frame is pushed through a fresh ``Recognizer``, then
    /// ``Recognizer/finish()`` gives the verdict (so batch and streaming agree exactly).
    /// - Throws: when the series has another channel count or holds non-finite values.
    public func predict(_ series: TimeSeries) throws -> Prediction {
        guard series.channelCount == channelCount else {
            throw GestureKitError("data has \(series.channelCount) channels, the pipeline expects \(channelCount) (\(channelNames.joined(separator: ", ")))", field: "channels")
        }
        var r = recognizer()
        try series.values.withUnsafeBufferPointer { all in
            for f in 0..<series.frameCount {
                _ = try r.push(UnsafeBufferPointer(rebasing: all[(f * channelCount)..<((f + 1) * channelCount)]))
            }
        }
        return r.finish()
    }
}
