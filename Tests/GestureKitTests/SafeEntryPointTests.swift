import Testing
@testable import GestureKit

/// The array entry points an app calls give what the buffer forms the pipeline calls give.
@Suite struct SafeEntryPointTests {
    static func series(frames: Int, channels: Int, seed: UInt64) -> TimeSeries {
        var rng = SeededGenerator(seed: seed)
        return TimeSeries(values: (0..<(frames * channels)).map { _ in rng.nextGaussian() }, channelCount: channels, sampleRate: 50)
    }

    @Test func processingAnArrayFrameEqualsApplyingToTheSeries() throws {
        let s = Self.series(frames: 200, channels: 3, seed: 1)
        var stage = LowPass(cutoff: 5)
        try stage.fit([s], channels: 3, sampleRate: 50)
        let whole = stage.apply(to: s)
        stage.reset()
        var out: [Float] = []
        for f in 0..<s.frameCount {
            var frame = Array(s.frame(f))
            stage.process(&frame)
            out += frame
        }
        #expect(out == whole.values)
    }

    @Test func extractingIntoAnArrayEqualsFeaturesOf() throws {
        let w = Self.series(frames: 64, channels: 2, seed: 2)
        var f = TimeDomainFeatures(features: TimeDomainFeature.allCases)
        try f.fit([w], channels: 2, sampleRate: 50)
        var out = [Float](repeating: .nan, count: f.featureCount)
        f.extract(w, into: &out)
        #expect(out == f.features(of: w))
    }

    @Test func transformingIntoAnArrayEqualsTheAllocatingForm() throws {
        let vectors = (0..<30).map { i in Self.series(frames: 1, channels: 5, seed: UInt64(10 + i)).values }
        var pca = PCA(components: 2)
        try pca.fit(vectors)
        var out = [Float](repeating: .nan, count: pca.outputCount)
        pca.transform(vectors[3], into: &out)
        #expect(out == pca.transform(vectors[3]))
        #expect(pca.mean?.count == 5 && pca.basis?.count == 10)
    }
}
