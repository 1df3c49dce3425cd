extension MinimumDistance {
    public static var settings: Set<ClassifierSetting> { [.nullRejection] }

    public mutating func apply(_ settings: ClassifierSettings) throws {
        if let k = settings.nullRejection { nullRejection = k }
    }

    public static var defaultPipeline: DefaultPipeline? {
        DefaultPipeline(name: "centroid", summary: "nearest class centroid on time-domain statistics",
                        spec: PipelineSpec(extractors: [TimeDomainFeatures(features: TimeDomainFeatures.vectorDefaults)],
                                           transforms: [FeatureScaler(method: .zscore)],
                                           classifier: .vector(MinimumDistance())))
    }
}
