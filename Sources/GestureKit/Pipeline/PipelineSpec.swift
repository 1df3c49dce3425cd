import Foundation

/// What a user asks for: the stages of a pipeline and their configuration, before training.
///
/// Written by hand as JSON (see `pipelines/` and <doc:PipelineSpecs>), e.g.
/// ```json
/// {
///   "preprocessing": [{"kind": "lowPass", "cutoff": 3}],
///   "features": {"window": 20, "hop": 5,
///                "extractors": [{"kind": "timeDomain"}], "transforms": [{"kind": "scale"}]},
///   "classifier": {"kind": "knn", "k": 5, "nullRejection": 3},
///   "postprocessing": [{"kind": "labelFilter", "minimumCount": 3, "bufferSize": 5}],
///   "rest": "rest"
/// }
/// ```
/// Every key but `classifier` is optional. Without `features`, the classifier must be a sequence
/// classifier (DTW, LSTM) and sees the pre-processed series; with `window` it sees windows of that size.
public struct PipelineSpec: Sendable, Codable {
    /// Per-frame stages, in order.
    public var preprocessing: [any Preprocessor]
    /// Window of frames classified at a time and the hop between decisions; `nil` = whole examples.
    public var window: Window?
    /// Feature extractors; their outputs are concatenated (empty: the classifier reads series).
    public var extractors: [any FeatureExtractor]
    /// Learned maps applied to the feature vectors, in order.
    public var transforms: [any FeatureTransform]
    /// The classifier.
    public var classifier: ClassifierStage
    /// Stages turning decisions into events, in order.
    public var postprocessing: [any Postprocessor]
    /// A class trained like any other but reported as null (the user's "rest" or "idle" label).
    public var rest: String?
    /// Continuous recordings: the class their unlabelled frames are trained as (usually `rest`), so
    /// a spec for activity streams needs no `--null-as` flag.
    public var unlabelled: String?
    /// The rest class's prior relative to the training data's: each decision's rest score is
    /// multiplied by it and the scores renormalised before post-processing (`nil`: 1, unchanged).
    /// Below 1 when rest was trained on unlabelled stretches that hold the other classes' motion
    /// (HAPT's gaps are mostly walking and turning), so it stops taking their frames. Stream
    /// calibration chooses it (see ``StreamCalibration``). Spec key `"restWeight"`.
    public var restWeight: Float?
    /// Stream calibration: `gesture train` chooses the post-processing by grouped cross-validation
    /// on the continuous training recordings before training (see ``StreamCalibration``).
    public var calibration: StreamCalibration.Settings?

    /// A sliding window: `size` frames, a decision every `hop` frames.
    public struct Window: Sendable, Hashable, Codable {
        /// Frames per window.
        public var size: Int
        /// Frames between window starts.
        public var hop: Int
        /// How a training window cut from a continuous recording takes its label. Spec key
        /// `features.labelAt`: the fraction of the window whose frame names it (see
        /// ``Recording/WindowLabelling/at(_:)``); without it, the window's majority label.
        public var labelling: Recording.WindowLabelling
        /// Windows of `size` frames every `hop` frames, labelled as `labelling` says.
        public init(size: Int, hop: Int, labelling: Recording.WindowLabelling = .majority) {
            self.size = size
            self.hop = hop
            self.labelling = labelling
        }

        func checkLabelAt() throws {
            if let f = labelAt, !(0...1).contains(f) {
                throw GestureKitError("must be a fraction of the window from 0 (its first frame) to 1 (its last), found \(f)", field: "features.labelAt")
            }
        }

        /// The labelling a `labelAt` value asks for: `nil` (key absent) is the majority label.
        static func labelling(labelAt: Double?) -> Recording.WindowLabelling {
            labelAt.map { .at($0) } ?? .majority
        }

        /// `labelAt`'s value, `nil` for the majority label.
        var labelAt: Double? {
            switch labelling {
            case .at(let f): f
            case .majority: nil
            }
        }

        enum CodingKeys: String, CodingKey { case size, hop, labelAt }

        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            size = try c.decode(Int.self, forKey: .size)
            hop = try c.decode(Int.self, forKey: .hop)
            labelling = Self.labelling(labelAt: try c.decodeIfPresent(Double.self, forKey: .labelAt))
        }

        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(size, forKey: .size)
            try c.encode(hop, forKey: .hop)
            try c.encodeIfPresent(labelAt, forKey: .labelAt)
        }
    }

    /// A spec; every parameter is the property of the same name.
    public init(preprocessing: [any Preprocessor] = [], window: Window? = nil,
                extractors: [any FeatureExtractor] = [], transforms: [any FeatureTransform] = [],
                classifier: ClassifierStage, postprocessing: [any Postprocessor] = [], rest: String? = nil) {
        self.preprocessing = preprocessing
        self.window = window
        self.extractors = extractors
        self.transforms = transforms
        self.classifier = classifier
        self.postprocessing = postprocessing
        self.rest = rest
    }

    /// Reads a hand-written spec, with errors naming the file and the offending field.
    public static func load(_ path: String) throws -> PipelineSpec {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw GestureKitError("cannot read spec: \(error.localizedDescription)", file: path)
        }
        return try decodeJSON(PipelineSpec.self, from: data, file: path)
    }

    /// Checks the combination of stages before any training happens.
    public func check() throws {
        if let w = restWeight {
            guard w.isFinite, w >= 0 else { throw GestureKitError("must be a number from 0 up, found \(w)", field: "restWeight") }
            guard rest != nil else { throw GestureKitError("weighs the rest class, but the spec names none (add \"rest\")", field: "restWeight") }
        }
        if let w = window, w.size < 1 || w.hop < 1 {
            throw GestureKitError("window size and hop must be positive", field: "features.window")
        }
        try window?.checkLabelAt()
        switch classifier {
        case .vector:
            if extractors.isEmpty {
                throw GestureKitError("a \(classifier.kind) classifier needs feature extractors", field: "features.extractors")
            }
        case .sequence:
            if !extractors.isEmpty || !transforms.isEmpty {
                throw GestureKitError("a \(classifier.kind) classifier reads series, not features; remove \"features\" or keep only its window", field: "features")
            }
        }
    }

    enum CodingKeys: String, CodingKey {
        case preprocessing, features, classifier, postprocessing, rest, restWeight, unlabelled, calibration
    }

    enum FeatureKeys: String, CodingKey {
        case window, hop, labelAt, extractors, transforms
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        preprocessing = try decodeStages(c, .preprocessing, StageKinds.preprocessors, role: "preprocessor")
            .map { $0 as! any Preprocessor }
        postprocessing = try decodeStages(c, .postprocessing, StageKinds.postprocessors, role: "postprocessor")
            .map { $0 as! any Postprocessor }
        classifier = try c.decode(ClassifierStage.self, forKey: .classifier)
        rest = try c.decodeIfPresent(String.self, forKey: .rest)
        restWeight = try c.decodeIfPresent(Float.self, forKey: .restWeight)
        unlabelled = try c.decodeIfPresent(String.self, forKey: .unlabelled)
        calibration = try c.decodeIfPresent(StreamCalibration.Settings.self, forKey: .calibration)
        if c.contains(.features) {
            let f = try c.nestedContainer(keyedBy: FeatureKeys.self, forKey: .features)
            if let size = try f.decodeIfPresent(Int.self, forKey: .window) {
                window = Window(size: size, hop: try f.decodeIfPresent(Int.self, forKey: .hop) ?? size,
                                labelling: Window.labelling(labelAt: try f.decodeIfPresent(Double.self, forKey: .labelAt)))
                try window?.checkLabelAt()
            } else if f.contains(.labelAt) {
                throw GestureKitError("labels windows, but the spec sets no \"window\"", field: "features.labelAt")
            }
            extractors = try decodeStages(f, .extractors, StageKinds.featureExtractors, role: "feature extractor")
                .map { $0 as! any FeatureExtractor }
            transforms = try decodeStages(f, .transforms, StageKinds.featureTransforms, role: "feature transform")
                .map { $0 as! any FeatureTransform }
        } else {
            window = nil
            extractors = []
            transforms = []
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try encodeStages(preprocessing, &c, .preprocessing)
        if window != nil || !extractors.isEmpty || !transforms.isEmpty {
            var f = c.nestedContainer(keyedBy: FeatureKeys.self, forKey: .features)
            try f.encodeIfPresent(window?.size, forKey: .window)
            try f.encodeIfPresent(window?.hop, forKey: .hop)
            try f.encodeIfPresent(window?.labelAt, forKey: .labelAt)
            try encodeStages(extractors, &f, .extractors)
            try encodeStages(transforms, &f, .transforms)
        }
        try c.encode(classifier, forKey: .classifier)
        try encodeStages(postprocessing, &c, .postprocessing)
        try c.encodeIfPresent(rest, forKey: .rest)
        try c.encodeIfPresent(restWeight, forKey: .restWeight)
        try c.encodeIfPresent(unlabelled, forKey: .unlabelled)
        try c.encodeIfPresent(calibration, forKey: .calibration)
    }
}

/// The classifier of a pipeline: one that reads series or one that reads feature vectors.
public enum ClassifierStage: Sendable, Codable {
    /// A classifier of whole series (or windows).
    case sequence(any SequenceClassifier)
    /// A classifier of feature vectors.
    case vector(any VectorClassifier)

    /// The classifier, whatever it reads.
    public var stage: any Classifier {
        switch self {
        case .sequence(let s): s
        case .vector(let v): v
        }
    }

    /// The classifier's `kind` in JSON.
    public var kind: String { type(of: stage).kind }
    /// Classes of the trained classifier.
    public var classCount: Int { stage.classCount }
    /// What `gesture info` prints about the classifier.
    public var summary: [String: String] { stage.summary }

    public init(from decoder: Decoder) throws {
        let stage = try decodeStage(StageKinds.classifiers, role: "classifier", from: decoder)
        if let s = stage as? any SequenceClassifier {
            self = .sequence(s)
        } else {
            self = .vector(stage as! any VectorClassifier)
        }
    }

    public func encode(to encoder: Encoder) throws { try encodeStage(stage, to: encoder) }
}

private func decodeStages<K: CodingKey, T>(_ c: KeyedDecodingContainer<K>, _ key: K, _ types: [T], role: String) throws -> [any Stage] {
    guard c.contains(key) else { return [] }
    var list = try c.nestedUnkeyedContainer(forKey: key)
    var out: [any Stage] = []
    while !list.isAtEnd {
        out.append(try decodeStage(types, role: role, from: try list.superDecoder()))
    }
    return out
}

private func encodeStages<K: CodingKey>(_ stages: [any Stage], _ c: inout KeyedEncodingContainer<K>, _ key: K) throws {
    guard !stages.isEmpty else { return }
    var list = c.nestedUnkeyedContainer(forKey: key)
    for s in stages { try encodeStage(s, to: list.superEncoder()) }
}

/// Decodes JSON, turning `DecodingError`s into one-line errors that name the file and field path.
func decodeJSON<T: Decodable>(_ type: T.Type, from data: Data, file: String) throws -> T {
    do {
        return try JSONDecoder().decode(T.self, from: data)
    } catch let e as GestureKitError {
        return try { throw e.inFile(file) }()
    } catch let e as DecodingError {
        throw GestureKitError(decodingError: e, file: file)
    } catch {
        throw GestureKitError("not valid JSON: \(error.localizedDescription)", file: file)
    }
}

extension GestureKitError {
    init(decodingError e: DecodingError, file: String) {
        let path = codingPathString
        switch e {
        case .keyNotFound(let k, let ctx):
            self.init("missing key \"\(k.stringValue)\"", file: file, field: path(ctx.codingPath))
        case .typeMismatch(let t, let ctx):
            self.init("expected \(t)", file: file, field: path(ctx.codingPath))
        case .valueNotFound(let t, let ctx):
            self.init("missing \(t)", file: file, field: path(ctx.codingPath))
        case .dataCorrupted(let ctx):
            let underlying = (ctx.underlyingError as? GestureKitError)?.message
            self.init(underlying ?? (ctx.codingPath.isEmpty ? "not valid JSON" : ctx.debugDescription),
                      file: file, field: path(ctx.codingPath))
        @unknown default:
            self.init("\(e)", file: file)
        }
    }
}
