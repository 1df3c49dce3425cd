import Foundation
import Testing
@testable import GestureKit

@Suite struct WholeNamingTests {
    /// A held-out whole example is named by its class; a window of noise far from every template
    /// is named by none, so the template's name stays.
    @Test func aWindowIsNamedOnlyWhenTypicalOfTheClassItNames() throws {
        let data = try Dataset.load(TestData.basicMotionsTrain)
        var dtw = DTWClassifier()
        dtw.nameWhole = true
        let labels = data.examples.map { data.classes.firstIndex(of: $0.label!)! }
        try dtw.train(data.examples.map(\.series), labels: labels, classes: data.classes)
        let naming = try #require(WholeNaming(dtw))
        let test = try Dataset.load(TestData.basicMotionsTest)
        let named = test.examples.map { naming.name([$0.series]) }
        let truth = test.examples.map { data.classes.firstIndex(of: $0.label!) }
        #expect(zip(named, truth).filter { $0 == $1 }.count * 10 >= truth.count * 9, "\(named)")
        var rng = SeededGenerator(seed: 11)
        let frames = data.examples[0].series.frameCount, channels = data.channelCount
        let scale = data.examples.flatMap(\.series.values).map(abs).max()!
        let noise = TimeSeries(values: (0..<(frames * channels)).map { _ in 4 * scale * rng.nextGaussian() }, channelCount: channels)
        #expect(naming.name([noise]) == nil)
        // The nearest window names: noise beside a whole example does not hide it.
        let i = try #require(named.indices.first { named[$0] != nil && named[$0] == truth[$0] })
        #expect(naming.name([noise, test.examples[i].series]) == truth[i])
        #expect(naming.name([test.examples[i].series, noise]) == truth[i])
    }

    /// UWave's gestures streamed between held frames: a segment the decoder cuts short inside a
    /// longer gesture is named by the whole gesture around it, so fewer are named wrongly and more
    /// found rightly than with the template's name (seed 900, not one the setting was chosen on).
    @Test(.enabled(if: TestData.hasShared)) func cutsInsideLongerGesturesAreNamedByTheWhole() throws {
        let data = try Dataset.load(TestData.sharedPath("uwave/UWaveGestureLibrary_TRAIN.ts"))
        let on = try TestData.spec(#"{"classifier": {"kind": "dtw", "nameWhole": true}}"#)
        let off = try TestData.spec(#"{"classifier": {"kind": "dtw", "nameWhole": false}}"#)
        let a = try Evaluation.spottingReplay(on, on: data, partitions: 2, seed: 900)
        let b = try Evaluation.spottingReplay(off, on: data, partitions: 2, seed: 900)
        func sum(_ r: SpottingReplayReport, _ k: KeyPath<SpottingReplayReport.Partition, Int>) -> Int {
            r.partitions.reduce(0) { $0 + $1[keyPath: k] }
        }
        #expect(sum(a, \.wrongLabel) < sum(b, \.wrongLabel), "wrong \(sum(a, \.wrongLabel)) with, \(sum(b, \.wrongLabel)) without")
        #expect(sum(a, \.correct) > sum(b, \.correct), "found \(sum(a, \.correct)) with, \(sum(b, \.correct)) without")
        // Naming changes no segment: as many reports either way.
        #expect(sum(a, \.missed) == sum(b, \.missed))
    }

    /// Gestures back to back, loud noise and a stream longer than the history: every report still
    /// names a learned class, and no window reaches outside the frames kept.
    @Test func anyStreamIsNamedWithoutLeavingTheHistory() throws {
        let data = try Dataset.load(TestData.basicMotionsTrain)
        let pipeline = try Pipeline.train(TestData.spec(#"{"classifier": {"kind": "dtw", "nameWhole": true}}"#), on: data)
        var rng = SeededGenerator(seed: 12)
        let test = try Dataset.load(TestData.basicMotionsTest)
        var stream = test.examples.flatMap(\.series.values)
        stream += (0..<(3000 * 6)).map { _ in 40 * rng.nextGaussian() }
        stream += test.examples.reversed().flatMap(\.series.values)
        let decisions = try TestData.liveDecisions(pipeline, stream, channels: 6)
        #expect(decisions.count >= test.examples.count / 2, "\(decisions.count) reports")
        #expect(decisions.allSatisfy { $0.label.map(data.classes.contains) ?? false }, "\(decisions.map(\.label))")
    }

    /// The setting is saved, a reload decides the same, the summary says so, and the C export
    /// refuses it by name where it has no whole-example search (still-trimmed DTW) rather than
    /// deciding differently.
    @Test func theSettingRoundTripsAndTheExportRefusesWhatItCannotRun() throws {
        let (pipeline, loaded, data, path) = try TestData.savedAndLoaded(#"{"classifier": {"kind": "dtw", "nameWhole": true}}"#,
                                                                          file: "name-whole.gesture")
        let stream = data.examples.prefix(10).flatMap(\.series.values)
        let a = try TestData.liveDecisions(pipeline, stream, channels: 6)
        #expect(!a.isEmpty)
        #expect(try a == TestData.liveDecisions(loaded, stream, channels: 6))
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("\"nameWhole\":true"))
        guard case .sequence(let c) = loaded.spec.classifier, let dtw = c as? DTWClassifier else {
            Issue.record("not a DTW pipeline")
            return
        }
        #expect(dtw.nameWhole == true)
        #expect(dtw.summary["spotting"]?.contains("whole window") == true, "\(dtw.summary)")
        let trimmed = try Pipeline.train(try TestData.spec(#"{"classifier": {"kind": "dtw", "trim": 0.05, "nameWhole": true}}"#), on: data)
        do {
            _ = try trimmed.cExport(prefix: "p")
            Issue.record("exported")
        } catch {
            #expect("\(error)".contains("nameWhole"), "\(error)")
        }
    }
}
