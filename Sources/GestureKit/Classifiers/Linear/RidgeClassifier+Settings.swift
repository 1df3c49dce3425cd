extension RidgeClassifier {
    public static var defaultPipeline: DefaultPipeline? {
        DefaultPipeline(name: "minirocket", summary: "MiniRocket features with a ridge classifier",
                        spec: PipelineSpec(extractors: [MiniRocket(multiPooling: true, concatenate: true)], classifier: .vector(RidgeClassifier())))
    }
}
