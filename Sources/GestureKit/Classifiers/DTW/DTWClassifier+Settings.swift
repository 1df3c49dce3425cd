extension DTWClassifier {
    public static var settings: Set<ClassifierSetting> { [.nullRejection] }

    public mutating func apply(_ settings: ClassifierSettings) throws {
        if let k = settings.nullRejection { nullRejection = k }
    }

    public static var defaultPipeline: DefaultPipeline? {
        DefaultPipeline(name: "dtw", summary: "1-NN dynamic time warping on whole examples",
                        spec: PipelineSpec(classifier: .sequence(DTWClassifier(variant: .independent))))
    }
}
