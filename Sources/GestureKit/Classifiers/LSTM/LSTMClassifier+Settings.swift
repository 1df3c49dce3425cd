extension LSTMClassifier {
    public static var settings: Set<ClassifierSetting> { [.hidden, .layers, .epochs, .batch, .learningRate, .seed] }

    public mutating func apply(_ settings: ClassifierSettings) throws {
        if let v = settings.hidden { hidden = v }
        if let v = settings.layers { layers = v }
        if let v = settings.epochs { epochs = v }
        if let v = settings.batch { batchSize = v }
        if let v = settings.learningRate { learningRate = v }
        if let v = settings.seed { seed = v }
    }

    public static var defaultPipeline: DefaultPipeline? {
        DefaultPipeline(name: "lstm", summary: "a small LSTM trained on whole examples",
                        spec: PipelineSpec(classifier: .sequence(LSTMClassifier())))
    }
}
