extension KNNClassifier {
    public static var settings: Set<ClassifierSetting> { [.nullRejection, .seed] }

    public mutating func apply(_ settings: ClassifierSettings) throws {
        if let k = settings.nullRejection { nullRejection = k }
        if let s = settings.seed { seed = s }
    }

    public static var defaultPipeline: DefaultPipeline? {
        DefaultPipeline(name: "knn", summary: "k nearest neighbours on time-domain statistics",
                        spec: PipelineSpec(extractors: [TimeDomainFeatures(features: TimeDomainFeatures.vectorDefaults)],
                                           transforms: [FeatureScaler(method: .zscore)],
                                           classifier: .vector(KNNClassifier(k: .fixed(5)))))
    }
}

extension TimeDomainFeatures {
    /// The statistics the default vector pipelines use.
    static let vectorDefaults: [TimeDomainFeature] = [.mean, .std, .min, .max, .rms, .meanAbsoluteDifference]
}
