extension DTWClassifier {
    public static var settings: Set<ClassifierSetting> { [.nullRejection] }

    public mutating func apply(_ settings: ClassifierSettings) throws {
        if let k = settings.nullRejection { nullRejection = k }
    }

    public static var defaultPipeline: DefaultPipeline? {
        DefaultPipeline(name: "dtw", summary: "1-NN dynamic time warping, variant, band and derivative chosen by leave-one-out",
                        spec: PipelineSpec(classifier: .sequence(tuned)))
    }

    private static var tuned: DTWClassifier {
        var c = DTWClassifier(variant: .independent)
        c.tune = true
        return c
    }
}
