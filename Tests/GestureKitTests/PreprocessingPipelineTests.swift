import Foundation
import Testing
@testable import GestureKit

/// Every stage of this branch in one trained pipeline: it trains on real data, survives the
/// pipeline file bit for bit, and streams identically after loading.
@Suite struct PreprocessingPipelineTests {
    static let allStages = """
    {
      "preprocessing": [
        {"kind": "median", "window": 3},
        {"kind": "lowPass", "normalizedCutoff": 0.6, "order": 3},
        {"kind": "savitzkyGolay", "window": 5, "polynomialOrder": 2},
        {"kind": "deadZone", "lower": -0.01, "upper": 0.01},
        {"kind": "movingAverage", "window": 2},
        {"kind": "normalize", "method": "zscore"}
      ],
      "features": {"window": 30, "hop": 10,
                   "extractors": [{"kind": "timeDomain", "features": ["mean", "std", "rms", "skewness", "zeroCrossingRate"]},
                                  {"kind": "fft", "bands": 3},
                                  {"kind": "movementIndex"}],
                   "transforms": [{"kind": "scale", "method": "zscore"}, {"kind": "pca", "varianceFraction": 0.99}]},
      "classifier": {"kind": "centroid", "nullRejection": 4},
      "postprocessing": [{"kind": "confidenceThreshold", "threshold": 0.3},
                         {"kind": "labelFilter", "minimumCount": 2, "bufferSize": 3},
                         {"kind": "changeFilter"},
                         {"kind": "timeout", "frames": 20}]
    }
    """

    @Test func everyStageTrainsSavesAndStreamsIdentically() throws {
        let train = try Dataset.load(TestData.basicMotionsTrain)
        let test = try Dataset.load(TestData.basicMotionsTest)
        let p = try Pipeline.train(try TestData.spec(Self.allStages), on: train)
        let path = TestData.temporaryFile("all-stages-\(UUID().uuidString).gesture")
        try p.save(to: path)
        let q = try Pipeline.load(path)
        var detections = 0
        for e in test.examples {
            var a = p.wholeSeriesRecognizer(), b = q.wholeSeriesRecognizer()
            for f in 0..<e.series.frameCount {
                let frame = Array(e.series.frame(f))
                let x = try a.push(frame), y = try b.push(frame)
                #expect(x == y)
                if x != nil { detections += 1 }
            }
            #expect(a.finish() == b.finish())
        }
        // The post-processing lets something through (the test can fail if it suppresses everything).
        #expect(detections > 0)
        // Saving again writes the same bytes.
        let again = TestData.temporaryFile("all-stages-again-\(UUID().uuidString).gesture")
        try q.save(to: again)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(contentsOf: URL(fileURLWithPath: again)))
    }

    @Test func hzSettingsWithoutASampleRateFailTrainingNamingTheField() throws {
        var train = try Dataset.load(TestData.basicMotionsTrain)
        train.sampleRate = nil  // .ts files carry no rate anyway
        let spec = try TestData.spec(#"{"preprocessing": [{"kind": "lowPass", "cutoff": 3}], "classifier": {"kind": "dtw"}}"#)
        #expect { try Pipeline.train(spec, on: train) } throws: { ($0 as? GestureKitError)?.field?.hasSuffix("cutoff") == true }
        let timeout = try TestData.spec(#"{"classifier": {"kind": "dtw"}, "postprocessing": [{"kind": "timeout", "seconds": 1}]}"#)
        #expect { try Pipeline.train(timeout, on: train) } throws: { ($0 as? GestureKitError)?.field?.hasSuffix("seconds") == true }
        // With the rate (BasicMotions is sampled at 10 Hz) both train, and the timeout becomes 10 frames.
        train.sampleRate = 10
        _ = try Pipeline.train(spec, on: train)
        let p = try Pipeline.train(timeout, on: train)
        #expect((p.spec.postprocessing.first as? TimeoutFilter)?.timeoutFrames == 10)
    }
}
