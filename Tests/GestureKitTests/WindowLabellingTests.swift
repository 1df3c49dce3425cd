import Foundation
import Testing
@testable import GestureKit

/// How windows cut from continuous recordings take their labels, and the spec key that chooses it.
@Suite struct WindowLabellingTests {
    /// One recording: 7 frames of A, 5 of B, 9 of C, 4 of A (25 frames, 1 channel).
    static let frameLabels: [String?] = Array(repeating: "A", count: 7) + Array(repeating: "B", count: 5)
        + Array(repeating: "C", count: 9) + Array(repeating: "A", count: 4)
    static var recording: Recording {
        Recording(series: TimeSeries(values: frameLabels.indices.map { Float($0) }, channelCount: 1),
                  labels: frameLabels, session: "s", user: nil)
    }

    @Test func labelAtTakesTheFrameAtThatFractionOfTheWindow() {
        // Starts 0, 4, 8, 12, 16; last frames 5, 9, 13, 17, 21.
        let end = Self.recording.windows(size: 6, hop: 4, labelling: .at(1))
        #expect(end.map(\.label) == ["A", "B", "C", "C", "A"])
        #expect(end.map { $0.series.values.last! } == [5, 9, 13, 17, 21])
        // 0.6 of the 5 frames past the start: frames 3, 7, 11, 15, 19.
        #expect(Self.recording.windows(size: 6, hop: 4, labelling: .at(0.6)).map(\.label) == ["A", "B", "B", "C", "C"])
        #expect(Self.recording.windows(size: 6, hop: 4, labelling: .at(0)).map(\.label) == ["A", "A", "B", "C", "C"])
        // The majority label lags: the window over frames 4-9 is still A, 16-21 still C.
        let majority = Self.recording.windows(size: 6, hop: 4, labelling: .majority)
        #expect(majority.map(\.label) == ["A", "A", "B", "C", "C"])
        // Even windows: the centre is frame size / 2 (frames 2, 6, 10, 14, 18, 22).
        #expect(Self.recording.windows(size: 4, hop: 4, labelling: .at(0.5)).map(\.label) == ["A", "A", "B", "C", "C", "A"])
    }

    @Test func specKeyRoundTripsAndDefaultsToMajority() throws {
        let json = #"{"features": {"window": 6, "hop": 4, "labelAt": 1, "extractors": [{"kind": "timeDomain"}]}, "classifier": {"kind": "knn", "k": 1}}"#
        let spec = try TestData.spec(json)
        #expect(spec.window == .init(size: 6, hop: 4, labelling: .at(1)))
        let encoded = try JSONEncoder().encode(spec)
        #expect(try JSONDecoder().decode(PipelineSpec.self, from: encoded).window?.labelling == .at(1))

        let plain = try TestData.spec(#"{"features": {"window": 6, "hop": 4, "extractors": [{"kind": "timeDomain"}]}, "classifier": {"kind": "knn", "k": 1}}"#)
        #expect(plain.window?.labelling == .majority)
        // Files written before the key existed read, and write, the same.
        #expect(!String(decoding: try JSONEncoder().encode(plain), as: UTF8.self).contains("labelAt"))

        // --window replaces size and hop, not how the spec labels its windows.
        let overridden = try spec.applying(.init(window: .init(size: 10, hop: 5)))
        #expect(overridden.window == .init(size: 10, hop: 5, labelling: .at(1)))
    }

    @Test func badWindowLabelsAreRefusedByName() {
        do {
            _ = try TestData.spec(#"{"features": {"window": 6, "labelAt": 1.5, "extractors": [{"kind": "timeDomain"}]}, "classifier": {"kind": "knn"}}"#)
            Issue.record("a fraction past the window was accepted")
        } catch let e as GestureKitError {
            #expect(e.description.contains("labelAt"), "\(e.description)")
        } catch { Issue.record("\(error)") }
        do {
            _ = try TestData.spec(#"{"features": {"labelAt": 1, "extractors": [{"kind": "timeDomain"}]}, "classifier": {"kind": "knn"}}"#)
            Issue.record("a window label without a window was accepted")
        } catch let e as GestureKitError {
            #expect(e.description.contains("labelAt"), "\(e.description)")
        } catch { Issue.record("\(error)") }
    }

    /// Training labels the windows as the spec says, and so does the HMM filter's fit.
    @Test func trainingAndTheHMMFitUseTheSpecsLabelling() throws {
        let d = try Dataset.load(TestData.basicMotionsTrain)
        let order = [0, 10, 20, 30, 1, 11, 21, 31, 2, 12]
        let values = order.flatMap { d.examples[$0].series.values }
        let frames = order.flatMap { i in [String?](repeating: d.examples[i].label, count: d.examples[i].series.frameCount) }
        let recording = Recording(series: TimeSeries(values: values, channelCount: d.channelCount, channelNames: d.channelNames),
                                  labels: frames, session: "s", user: nil)
        let spec = try TestData.spec(#"{"features": {"window": 30, "hop": 10, "labelAt": 1, "extractors": [{"kind": "timeDomain"}]}, "classifier": {"kind": "knn", "k": 1}, "postprocessing": [{"kind": "hmmFilter"}]}"#)
        let data = Dataset(recordings: [recording], cut: .windows(size: 30, hop: 10, labelling: .at(1)), classes: d.classes)
        let p = try Pipeline.train(spec, on: data)
        let fitted = try #require(p.spec.postprocessing.first as? HMMFilter)

        // Reference: the label of each window's last frame, fitted directly.
        let ends = stride(from: 0, through: frames.count - 30, by: 10).map { d.classes.firstIndex(of: frames[$0 + 29]!) }
        var reference = HMMFilter()
        try reference.fit(labelSequences: [ends], classCount: d.classes.count)
        #expect(fitted.transitions == reference.transitions)
        let majority = Pipeline.decisionLabels(of: data, window: .init(size: 30, hop: 10), classes: d.classes)
        #expect(majority.first != ends, "the two labellings must differ on this recording for the test to mean anything")

        // The classifier was trained on the same labels: on its own training windows a 1-NN is exact.
        for w in data.examples {
            #expect(p.label(of: try p.predict(w.series)) == w.label)
        }
    }

    /// On real recordings, a label taken at the window's end names each new activity sooner live
    /// (whether that also names more frames right depends on the classifier: HAPT's figures are in
    /// the README):
    /// BasicMotions examples chained into one recording per half of the data, trained on one, the
    /// other replayed as a stream.
    @Test func aLateLabelNamesNewActivitiesSoonerOnAHeldOutStream() throws {
        let d = try Dataset.load(TestData.basicMotionsTrain)
        func chain(_ picks: [Int]) -> Recording {
            Recording(series: TimeSeries(values: picks.flatMap { d.examples[$0].series.values }, channelCount: d.channelCount,
                                         channelNames: d.channelNames, sampleRate: 10),
                      labels: picks.flatMap { i in [String?](repeating: d.examples[i].label, count: d.examples[i].series.frameCount) },
                      session: "s", user: nil)
        }
        // Classes are examples 0-9, 10-19, 20-29, 30-39; interleave them so every example follows another class.
        let train = chain((0..<5).flatMap { k in [k, 10 + k, 20 + k, 30 + k] })
        let test = chain((5..<10).flatMap { k in [30 + k, 10 + k, 20 + k, k] })
        // Median time from the start of each activity to the first decision naming it.
        func latency(_ labelAt: String) throws -> Double {
            let spec = try TestData.spec(#"{"features": {"window": 30, "hop": 5"# + labelAt + #", "extractors": [{"kind": "timeDomain"}], "transforms": [{"kind": "scale"}]}, "classifier": {"kind": "knn", "k": 1}}"#)
            let w = try #require(spec.window)
            let p = try Pipeline.train(spec, on: Dataset(recordings: [train], cut: .windows(size: w.size, hop: w.hop, labelling: w.labelling), classes: d.classes))
            return try #require(try Evaluation.evaluateStream(p, on: [test]).medianLatencyMs)
        }
        let majority = try latency(""), late = try latency(#", "labelAt": 1"#)
        // Sooner by at least one decision (a hop of 5 frames at 10 Hz).
        #expect(late + 500 <= majority, "median latency: majority \(majority) ms, labelAt 1 \(late) ms")
    }
}
