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
    /// The class names, in the classifier's index order (the rest class included).
    public var classes: [String]
    /// The channels each frame must give, in order.
    public var channelNames: [String]
    /// Frames per second of the training data, when known.
    public var sampleRate: Double?
    /// What the pipeline was trained on.
    public var training: TrainingSummary
    /// How a whole-example pipeline whose classifier cannot spot decides live (sliding windows of
    /// about one example); `nil` for windowed and spotting pipelines, and in files from before it.
    public var liveWindow: LiveWindow? = nil

    /// What the pipeline was trained on, for `gesture info`.
    public struct TrainingSummary: Sendable, Hashable, Codable {
        /// The training data's file or folder, when known.
        public var source: String?
        /// Labelled training examples.
        public var examples: Int
        /// Training examples per class, in class order.
        public var classCounts: [Int]
        /// Feature vector length seen by the classifier (0 for sequence classifiers).
        public var featureCount: Int
        /// Windows or examples the classifier was trained on.
        public var trainingInputs: Int
        /// Wall-clock seconds training took.
        public var seconds: Double
        /// When training started (ISO 8601).
        public var trainedAt: String
    }

    /// Values per frame.
    public var channelCount: Int { channelNames.count }

    /// Index of the rest class, reported as null.
    public var restIndex: Int? { spec.rest.flatMap { classes.firstIndex(of: $0) } }

    /// The class name a prediction reports: `nil` for rejected input and for the rest class.
    public func label(of p: Prediction) -> String? {
        guard let i = p.classIndex, i != restIndex else { return nil }
        return classes[i]
    }

    /// Trains every stage in order on `dataset` (examples with a `nil` label are skipped).
    /// - Parameters:
    ///   - spec: what to train (``PipelineSpec/check()`` runs first).
    ///   - dataset: the labelled examples.
    ///   - progress: receives each step as it happens (stage fitted, LSTM epoch, classifier trained).
    ///   - isCancelled: polled between stages, epochs and folds; true stops with `CancellationError`.
    ///   - negatives: recordings in which no gesture happens (everyday motion), in the data's
    ///     channels. A classifier that spots (DTW) learns its background from them, and from the
    ///     examples of the spec's rest class, which it then does not learn as a class; every other
    ///     pipeline takes them as examples of its rest class (``PipelineSpec/rest``, named
    ///     ``negativeLabel`` when the spec has none), cut into windows or into pieces as long as
    ///     the median example. The pipeline keeps what was learned, not the frames.
    public static func train(_ spec: PipelineSpec, on dataset: Dataset, negatives: [TimeSeries] = [],
                             progress: (@Sendable (TrainingProgress) -> Void)? = nil,
                             isCancelled: @escaping @Sendable () -> Bool = { false }) throws -> Pipeline {
        try spec.check()
        let started = Date()
        var spec = spec
        var dataset = dataset
        for (i, n) in negatives.enumerated() {
            guard n.channelCount == dataset.channelCount else {
                throw GestureKitError("negative recording \(i + 1) has \(n.channelCount) channels, the data has \(dataset.channelCount)",
                                      field: "negatives")
            }
            guard n.isFinite else { throw GestureKitError("negative recording \(i + 1) holds a non-finite value", field: "negatives") }
        }
        let learnsNegatives: Bool
        if case .sequence(let c) = spec.classifier, spec.window == nil, c is any NegativeLearning { learnsNegatives = true } else { learnsNegatives = false }
        var negatives = negatives
        // A spotter's rest class is what negatives are: no gesture. Spotted as a class it would
        // be reported; learned as background it teaches the spotter what to stay silent on.
        if learnsNegatives, let rest = spec.rest {
            negatives += dataset.examples.filter { $0.label == rest }.map(\.series)
            dataset.examples.removeAll { $0.label == rest }
            dataset.classes.removeAll { $0 == rest }
            spec.rest = nil
        }
        if !negatives.isEmpty, !learnsNegatives {
            let rest = spec.rest ?? negativeLabel
            spec.rest = rest
            dataset.examples += Self.negativePieces(negatives, like: dataset, windowed: spec.window != nil)
                .map { Example(series: $0, label: rest) }
            if !dataset.classes.contains(rest) { dataset.classes.append(rest) }
        }
        var data = try LabelledSeries(dataset, rest: spec.rest)
        var background = learnsNegatives ? negatives : []
        let rate = dataset.sampleRate
        for i in spec.preprocessing.indices {
            try spec.preprocessing[i].fit(data.series, channels: data.channels, sampleRate: rate)
            let stage = spec.preprocessing[i]
            data.series = data.series.map { stage.apply(to: $0) }
            background = background.map { stage.apply(to: $0) }
            progress?(.fitted(stage: type(of: stage).kind))
        }
        let inputs = data.windows(spec.window)
        let context = TrainingContext(groups: inputs.groups.contains { $0 != nil } ? inputs.groups : [], progress: progress,
                                      isCancelled: isCancelled, negatives: background)
        try context.checkCancellation()
        let featureCount = try trainClassifier(&spec, on: inputs, classes: data.classes, context: context,
                                               sampleRate: rate, source: dataset.source)
        progress?(.trained(classifier: spec.classifier.kind, inputs: inputs.series.count, windowed: spec.window != nil))
        let sequences = decisionLabels(of: dataset, window: spec.window, classes: data.classes)
        for i in spec.postprocessing.indices {
            try bindStage(&spec.postprocessing[i], at: i, classes: data.classes)
            if !sequences.isEmpty {
                try spec.postprocessing[i].fit(labelSequences: sequences, classCount: data.classes.count,
                                               rest: spec.rest.flatMap { data.classes.firstIndex(of: $0) })
            }
            try spec.postprocessing[i].prepare(sampleRate: rate)
        }
        var counts = [Int](repeating: 0, count: data.classes.count)
        for l in data.labels { counts[l] += 1 }
        let summary = TrainingSummary(
            source: dataset.source, examples: data.series.count, classCounts: counts, featureCount: featureCount,
            trainingInputs: inputs.series.count, seconds: Date().timeIntervalSince(started),
            trainedAt: ISO8601DateFormatter().string(from: started))
        var pipeline = Pipeline(spec: spec, classes: data.classes, channelNames: dataset.channelNames, sampleRate: rate,
                                training: summary)
        if !pipeline.decidesLive { pipeline.liveWindow = LiveWindow.fitted(to: data.series) }
        return pipeline
    }

    /// The rest class negatives become when the spec names none.
    public static let negativeLabel = "not-a-gesture"

    /// Negative recordings as rest examples: whole for windowed specs (cut into windows later),
    /// else in pieces as long as the data's median example.
    static func negativePieces(_ negatives: [TimeSeries], like data: Dataset, windowed: Bool) -> [TimeSeries] {
        if windowed { return negatives }
        let lengths = data.examples.map(\.series.frameCount).filter { $0 > 0 }.sorted()
        guard !lengths.isEmpty else { return negatives }
        let n = lengths[lengths.count / 2]
        return negatives.flatMap { s -> [TimeSeries] in
            let c = s.channelCount
            return stride(from: 0, through: s.frameCount - n, by: n).map { at in
                TimeSeries(values: Array(s.values[(at * c)..<((at + n) * c)]), channelCount: c,
                           channelNames: s.channelNames, sampleRate: s.sampleRate)
            }
        }
    }

    /// Trains the classifier on what it sees (series, or features fitted and extracted here).
    /// - Returns: the feature vector length the classifier was trained on (0 for sequence classifiers).
    private static func trainClassifier(_ spec: inout PipelineSpec, on inputs: LabelledSeries.Inputs, classes: [String],
                                        context: TrainingContext, sampleRate: Double?, source: String?) throws -> Int {
        switch spec.classifier {
        case .sequence(var classifier):
            try classifier.train(inputs.series, labels: inputs.labels, classes: classes, context: context)
            spec.classifier = .sequence(classifier)
            return 0
        case .vector(var classifier):
            let channels = inputs.series.first?.channelCount ?? 0
            for i in spec.extractors.indices {
                try spec.extractors[i].fit(inputs.series, channels: channels, sampleRate: sampleRate)
            }
            let extractors = spec.extractors
            var vectors = inputs.series.map { Pipeline.features(of: $0, extractors) }
            for i in spec.transforms.indices {
                try spec.transforms[i].fit(vectors)
                let t = spec.transforms[i]
                vectors = vectors.map { t.transform($0) }
            }
            let count = vectors.first?.count ?? 0
            context.progress?(.extracted(count: count, inputs: vectors.count, windowed: spec.window != nil))
            if let bad = vectors.firstIndex(where: { !$0.allSatisfy(\.isFinite) }) {
                throw GestureKitError("features of training input \(bad) are not finite", file: source, field: "features")
            }
            try classifier.train(vectors, labels: inputs.labels, classes: classes, context: context)
            spec.classifier = .vector(classifier)
            return count
        }
    }

    /// Resolves a post-processing stage's class names against `classes`, naming the stage on error.
    static func bindStage(_ stage: inout any Postprocessor, at i: Int, classes: [String]) throws {
        do { try stage.bind(classes: classes) } catch var e as GestureKitError {
            e.field = "postprocessing[\(i)]" + (e.field.map { ".\($0)" } ?? "")
            throw e
        }
    }

    /// Binds every post-processing stage to this pipeline's classes (after loading).
    mutating func bindPostprocessing() throws {
        for i in spec.postprocessing.indices { try Self.bindStage(&spec.postprocessing[i], at: i, classes: classes) }
    }

    /// Per continuous recording, the label of each window decision (labelled as the window says,
    /// as training windows are labelled); empty for whole-example pipelines or data without
    /// recordings.
    static func decisionLabels(of dataset: Dataset, window: PipelineSpec.Window?, classes: [String]) -> [[Int?]] {
        guard let w = window else { return [] }
        let index = Dictionary(uniqueKeysWithValues: classes.enumerated().map { ($1, $0) })
        return dataset.recordings.map { r in
            r.windows(size: w.size, hop: w.hop, labelling: w.labelling, dropNull: false).map { $0.label.flatMap { index[$0] } }
        }.filter { !$0.isEmpty }
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

    /// A fresh recogniser for a live stream: flat memory; whole-example pipelines decide through
    /// their classifier's spotter (see ``decidesLive``).
    public func recognizer() -> Recognizer { Recognizer(self, mode: .live) }

    /// A fresh recogniser that keeps every frame of a whole-example pipeline and classifies them at
    /// ``Recognizer/finish()``: batch prediction of one series.
    public func wholeSeriesRecognizer() -> Recognizer { Recognizer(self, mode: .wholeSeries) }

    /// Whether a live ``recognizer()`` makes decisions: every windowed pipeline, whole-example
    /// pipelines whose classifier spots its classes in a stream, and the others through their
    /// ``liveWindow`` (every pipeline trained since it exists).
    public var decidesLive: Bool {
        guard spec.window == nil, liveWindow == nil else { return true }
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
        var r = wholeSeriesRecognizer()
        try series.values.withUnsafeBufferPointer { all in
            for f in 0..<series.frameCount {
                _ = try r.push(UnsafeBufferPointer(rebasing: all[(f * channelCount)..<((f + 1) * channelCount)]))
            }
        }
        return r.finish()
    }
}

/// The labelled examples of a dataset as the classifier's training inputs: series, class indices and
/// the session or user each came from.
struct LabelledSeries {
    let classes: [String]
    let channels: Int
    var series: [TimeSeries] = []
    var labels: [Int] = []
    var groups: [String?] = []

    /// What the classifier sees: whole examples or windows of them.
    struct Inputs {
        var series: [TimeSeries] = []
        var labels: [Int] = []
        var groups: [String?] = []
    }

    /// - Throws: when there is nothing labelled, the rest class is not a class, or an example has
    ///   another channel count or a non-finite value.
    init(_ dataset: Dataset, rest: String?) throws {
        classes = dataset.classes
        channels = dataset.channelCount
        guard !classes.isEmpty else { throw GestureKitError("no labelled examples to train on", file: dataset.source) }
        if let rest, !classes.contains(rest) {
            throw GestureKitError("rest label \"\(rest)\" is not a class of the data (classes: \(classes.joined(separator: ", ")))",
                                  file: dataset.source, field: "rest")
        }
        let index = Dictionary(uniqueKeysWithValues: classes.enumerated().map { ($1, $0) })
        for e in dataset.examples {
            guard let l = e.label, let i = index[l] else { continue }
            guard e.series.channelCount == channels else {
                throw GestureKitError("example has \(e.series.channelCount) channels, the data has \(channels)", file: dataset.source)
            }
            guard e.series.frameCount > 0 else { continue }
            series.append(e.series)
            labels.append(i)
            groups.append(e.user ?? e.session)
        }
        guard !series.isEmpty else { throw GestureKitError("no labelled examples to train on", file: dataset.source) }
        if let bad = series.firstIndex(where: { !$0.isFinite }) {
            throw GestureKitError("training example \(bad) holds a non-finite value", file: dataset.source)
        }
    }

    func windows(_ window: PipelineSpec.Window?) -> Inputs {
        var out = Inputs()
        for (k, s) in series.enumerated() {
            for w in Pipeline.windows(of: s, window) {
                out.series.append(w)
                out.labels.append(labels[k])
                out.groups.append(groups[k])
            }
        }
        return out
    }
}
