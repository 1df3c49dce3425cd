/// A recurrent classifier of whole series, trained in Swift on BLAS: per-channel normalisation, an
/// optional 1-D convolution front end (as in Turi Create's activity classifier), one or two LSTM
/// layers of `hidden` units, dropout, and a softmax head on the last hidden state.
///
/// Training uses mini-batches, backpropagation through time with one GEMM per layer and time step
/// for the whole batch, Adam with decoupled weight decay, global-norm gradient clipping, a cosine
/// learning-rate schedule, balanced class weights, and early stopping on a held-out validation part
/// (split by group when groups are given). Everything random comes from `seed`: the same data and
/// configuration give the same model.
///
/// Series of different lengths are batched by left-padding with masked steps (see `LSTMNetwork`), so
/// each series is scored exactly as if it were alone. A series shorter than the convolution width is
/// padded at its start with frames at the channel means.
///
/// ```swift
/// var lstm = LSTMClassifier(hidden: 64)
/// try lstm.train(series, labels: labels, classes: ["wave", "circle"])
/// let p = lstm.predict(newSeries)       // p.classIndex, p.scores (probabilities)
/// var live = lstm.stream()              // the same model one frame at a time
/// ```
public struct LSTMClassifier: SequenceClassifier {
    public static let kind = "lstm"

    /// The convolution front end: `filters` ReLU filters over windows of `width` frames every
    /// `stride` frames, so the LSTM runs `stride` times fewer steps.
    public struct Convolution: Sendable, Hashable, Codable {
        /// Convolution filters (the LSTM's input width).
        public var filters: Int
        /// Frames each filter sees.
        public var width: Int
        /// Frames between filter positions.
        public var stride: Int

        /// A front end; every parameter is the property of the same name.
        public init(filters: Int = 64, width: Int = 4, stride: Int = 2) {
            self.filters = filters
            self.width = width
            self.stride = stride
        }

        enum CodingKeys: String, CodingKey { case filters, width, stride }

        /// Missing keys take the defaults of ``init(filters:width:stride:)`` (64, 4, 2).
        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            filters = try c.decodeIfPresent(Int.self, forKey: .filters) ?? 64
            width = try c.decodeIfPresent(Int.self, forKey: .width) ?? 4
            stride = try c.decodeIfPresent(Int.self, forKey: .stride) ?? 2
        }
    }

    /// How the learning rate moves over the epochs.
    public enum Schedule: String, Sendable, Hashable, Codable, CaseIterable {
        /// The same rate every epoch.
        case constant
        /// Cosine decay from `learningRate` to 5% of it at the last epoch.
        case cosine
    }

    // MARK: Configuration (JSON keys in parentheses; defaults reach BasicMotions >= 0.95)

    /// LSTM units per layer (`hidden`, default 64).
    public var hidden: Int
    /// Stacked LSTM layers, 1 or 2 (`layers`, default 1).
    public var layers: Int
    /// Maximum passes over the training part (`epochs`, default 100).
    public var epochs: Int
    /// Series per mini-batch (`batch`, default 8).
    public var batchSize: Int
    /// Adam step size at the first epoch (`learningRate`, default 0.005).
    public var learningRate: Float
    /// Seed of initialisation, shuffling, dropout and the validation split (`seed`, default 0).
    public var seed: UInt64
    /// Drop probability on each layer's output, training only (`dropout`, default 0.3).
    public var dropout: Float
    /// Convolution front end, `nil` for none (`convolution`: absent = the default 64 filters of
    /// width 4, stride 2; `null` = none; an object's missing keys take those defaults).
    public var convolution: Convolution?
    /// Decoupled (AdamW) weight decay per unit learning rate, weights only (`weightDecay`, default 1e-4).
    public var weightDecay: Float
    /// Global gradient-norm limit, 0 for none (`clip`, default 1).
    public var clip: Float
    /// Part of the training examples held out for early stopping, 0 for none (`validationFraction`,
    /// default 0.2). No validation part (all epochs run) when it would hold fewer than
    /// ``minimumValidationExamples`` examples.
    public var validationFraction: Double
    /// Epochs without a better validation loss before stopping (`patience`, default 30).
    public var patience: Int
    /// Learning-rate schedule (`schedule`, default `cosine`).
    public var schedule: Schedule
    /// Weight each class by `examples / (classes * examples of that class)` in the loss, for
    /// imbalanced data (`balanceClasses`, default true).
    public var balanceClasses: Bool

    // MARK: Learned state (absent until trained)

    /// Class names, in output order.
    public internal(set) var classes: [String] = []
    /// Input channels the model was trained on (0 before training).
    public internal(set) var channelCount: Int = 0
    /// Per-channel mean and standard deviation used to normalise inputs.
    var inputMean: [Float] = []
    var inputStd: [Float] = []
    /// All trainable parameters, laid out by ``LSTMLayout``.
    var parameters: [Float] = []
    /// The epochs run and the epoch whose weights were kept (the best validation loss).
    public internal(set) var epochsRun: Int = 0
    /// The epoch whose weights were kept.
    public internal(set) var bestEpoch: Int = 0
    /// Sizes of the decoded tensors, for ``validate()`` (nil unless decoded from JSON).
    var decodedSizes: [String: Int]? = nil

    /// An untrained LSTM; every parameter is the property of the same name.
    public init(hidden: Int = 64, layers: Int = 1, epochs: Int = 100, batchSize: Int = 8,
                learningRate: Float = 0.005, seed: UInt64 = 0, dropout: Float = 0.3,
                convolution: Convolution? = Convolution(), weightDecay: Float = 1e-4, clip: Float = 1,
                validationFraction: Double = 0.2, patience: Int = 30, schedule: Schedule = .cosine,
                balanceClasses: Bool = true) {
        self.hidden = hidden
        self.layers = layers
        self.epochs = epochs
        self.batchSize = batchSize
        self.learningRate = learningRate
        self.seed = seed
        self.dropout = dropout
        self.convolution = convolution
        self.weightDecay = weightDecay
        self.clip = clip
        self.validationFraction = validationFraction
        self.patience = patience
        self.schedule = schedule
        self.balanceClasses = balanceClasses
    }

    /// Classes of the trained model (0 before training).
    public var classCount: Int { classes.count }
    /// Whether the model has weights.
    public var isTrained: Bool { !parameters.isEmpty }

    var shape: LSTMShape {
        LSTMShape(channels: channelCount, convolution: convolution, hidden: hidden, layers: layers, classes: classes.count)
    }

    /// Number of trainable parameters (0 before training).
    public var parameterCount: Int { parameters.count }

    public var summary: [String: String] {
        var s: [String: String] = [
            "hidden": "\(hidden)", "layers": "\(layers)",
            "convolution": convolution.map { "\($0.filters) filters, width \($0.width), stride \($0.stride)" } ?? "none",
        ]
        if isTrained {
            s["parameters"] = "\(parameterCount)"
            s["classes"] = classes.joined(separator: ", ")
            s["epochs"] = "\(epochsRun) run, weights of epoch \(bestEpoch)"
        } else {
            s["state"] = "untrained"
        }
        return s
    }

    // MARK: Prediction

    /// Scores a whole series with the streaming code path (same numbers as feeding it frame by frame
    /// to ``stream()``): the prediction after its last frame.
    /// - Complexity: O(frames * 4H * (in + H)) and one allocation for the stream's buffers.
    public func predict(_ series: TimeSeries) -> Prediction {
        precondition(isTrained, "LSTMClassifier.predict: the model is not trained")
        precondition(series.channelCount == channelCount,
                     "LSTMClassifier.predict: \(series.channelCount) channels, trained on \(channelCount)")
        var s = stream()
        var last = s.current
        let pad = max(0, shape.minimumFrames - series.frameCount)
        if pad > 0 {
            // Frames at the channel means normalise to zero, as in training.
            for _ in 0..<pad { last = inputMean.withUnsafeBufferPointer { s.step($0) } }
        }
        series.values.withUnsafeBufferPointer { all in
            for f in 0..<series.frameCount {
                last = s.step(UnsafeBufferPointer(rebasing: all[(f * channelCount)..<((f + 1) * channelCount)]))
            }
        }
        return last
    }

    /// A stream that scores one frame at a time, carrying the LSTM state.
    public func stream() -> LSTMStream {
        precondition(isTrained, "LSTMClassifier.stream: the model is not trained")
        return LSTMStream(self)
    }

    /// The overlapping-window stream of the GestureIt app: windows of `window` frames every `hop` frames.
    /// - Precondition: `window` is a positive multiple of `hop`.
    public func windowStream(window: Int, hop: Int) -> LSTMWindowStream {
        LSTMWindowStream(self, window: window, hop: hop)
    }
}

extension LSTMClassifier: IncrementalClassifier {
    /// Slots that each carry their LSTM state (``LSTMWindowStream``) when `window` is a multiple of `hop`.
    public func incrementalWindows(window: Int, hop: Int) -> (any WindowStream)? {
        guard isTrained, window > 0, hop > 0, window % hop == 0 else { return nil }
        return windowStream(window: window, hop: hop)
    }
}

/// What ``LSTMClassifier`` reports after each training epoch.
public struct LSTMEpochReport: Sendable, Hashable, Codable {
    /// 1-based.
    public var epoch: Int
    /// Mean training loss and accuracy of the epoch's batches (with dropout).
    public var loss: Double
    /// Mean training accuracy of the epoch's batches.
    public var accuracy: Double
    /// On the validation part, `nil` without one.
    public var validationLoss: Double?
    /// Accuracy on the validation part, `nil` without one.
    public var validationAccuracy: Double?
    /// The learning rate used in this epoch.
    public var learningRate: Float
    /// Wall-clock seconds the epoch took.
    public var seconds: Double
}
