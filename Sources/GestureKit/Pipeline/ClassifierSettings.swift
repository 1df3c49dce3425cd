/// A setting a user can give a classifier from the command line, whatever the spec says.
public enum ClassifierSetting: String, CaseIterable, Sendable, Hashable {
    /// The settings, one per command-line flag (see ``flag``).
    case nullRejection, hidden, layers, epochs, batch, learningRate, seed

    /// The command-line flag that sets it.
    public var flag: String {
        switch self {
        case .nullRejection: "--null-rejection"
        case .learningRate: "--lr"
        default: "--" + rawValue
        }
    }
}

/// Typed command-line overrides of a classifier's settings. Each classifier declares the settings
/// it has (``Classifier/settings``); giving one it does not have is an error that says so,
/// never silently ignored.
public struct ClassifierSettings: Sendable, Hashable {
    /// Null rejection: reject matches farther than mean + K * std of the class's training distances.
    public var nullRejection: Float?
    /// LSTM units per layer.
    public var hidden: Int?
    /// LSTM layers.
    public var layers: Int?
    /// LSTM training epochs.
    public var epochs: Int?
    /// LSTM mini-batch size.
    public var batch: Int?
    /// LSTM learning rate.
    public var learningRate: Float?
    /// Seed of the classifier's randomness (kNN folds, LSTM weights and batches).
    public var seed: UInt64?

    /// Settings; `nil` leaves the spec's value.
    public init(nullRejection: Float? = nil, hidden: Int? = nil, layers: Int? = nil, epochs: Int? = nil,
                batch: Int? = nil, learningRate: Float? = nil, seed: UInt64? = nil) {
        self.nullRejection = nullRejection
        self.hidden = hidden
        self.layers = layers
        self.epochs = epochs
        self.batch = batch
        self.learningRate = learningRate
        self.seed = seed
    }

    /// The settings that were given.
    public var given: [ClassifierSetting] {
        ClassifierSetting.allCases.filter { s in
            switch s {
            case .nullRejection: nullRejection != nil
            case .hidden: hidden != nil
            case .layers: layers != nil
            case .epochs: epochs != nil
            case .batch: batch != nil
            case .learningRate: learningRate != nil
            case .seed: seed != nil
            }
        }
    }

    /// These settings without `setting`.
    public func removing(_ setting: ClassifierSetting) -> ClassifierSettings {
        var s = self
        switch setting {
        case .nullRejection: s.nullRejection = nil
        case .hidden: s.hidden = nil
        case .layers: s.layers = nil
        case .epochs: s.epochs = nil
        case .batch: s.batch = nil
        case .learningRate: s.learningRate = nil
        case .seed: s.seed = nil
        }
        return s
    }
}

/// A ready-made pipeline for `--classifier NAME`, declared by the classifier it is built around.
public struct DefaultPipeline: Sendable {
    /// The `--classifier` name; also `pipelines/<name>.json`.
    public var name: String
    /// One line for the help text.
    public var summary: String
    /// The pipeline, untrained.
    public var spec: PipelineSpec

    /// A default pipeline named `name`.
    public init(name: String, summary: String, spec: PipelineSpec) {
        self.name = name
        self.summary = summary
        self.spec = spec
    }
}

extension ClassifierStage {
    /// The settings this classifier has.
    public var settings: Set<ClassifierSetting> { type(of: stage).settings }

    /// Applies `settings` to the classifier.
    /// - Throws: naming the first setting this classifier does not have, and the ones it has.
    public mutating func apply(_ settings: ClassifierSettings) throws {
        let has = self.settings
        if let wrong = settings.given.first(where: { !has.contains($0) }) {
            let takes = ClassifierSetting.allCases.filter(has.contains).map(\.flag)
            throw GestureKitError("\(wrong.flag) does not apply to the \(kind) classifier"
                                  + (takes.isEmpty ? " (it takes no classifier flags)" : " (it takes \(takes.joined(separator: ", ")))"),
                                  field: "classifier")
        }
        switch self {
        case .sequence(var s):
            try s.apply(settings)
            try s.validate()
            self = .sequence(s)
        case .vector(var v):
            try v.apply(settings)
            try v.validate()
            self = .vector(v)
        }
    }
}

extension PipelineSpec {
    /// What the command line may change in a spec: classifier settings, the window and the rest class.
    public struct Overrides: Sendable {
        /// Classifier settings to apply.
        public var classifier = ClassifierSettings()
        /// A window to set (`nil`: keep the spec's).
        public var window: Window?
        /// A rest class to set (`nil`: keep the spec's).
        public var rest: String?

        /// Overrides; every parameter is the property of the same name.
        public init(classifier: ClassifierSettings = ClassifierSettings(), window: Window? = nil, rest: String? = nil) {
            self.classifier = classifier
            self.window = window
            self.rest = rest
        }
    }

    /// This spec with `overrides` applied, checked as a whole.
    /// - Throws: when a setting does not apply to the classifier, or the result is not a valid spec.
    public func applying(_ overrides: Overrides) throws -> PipelineSpec {
        var s = self
        try s.classifier.apply(overrides.classifier)
        if let w = overrides.window {
            // --window sets the size and hop; how the spec labels its windows stays.
            s.window = Window(size: w.size, hop: w.hop, labelling: s.window?.labelling ?? w.labelling)
        }
        if let r = overrides.rest { s.rest = r }
        try s.check()
        return s
    }
}
