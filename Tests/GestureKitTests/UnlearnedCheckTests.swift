import Foundation
import Testing
@testable import GestureKit

@Suite struct UnlearnedCheckTests {
    /// Two Gaussian groups of log distances with one spread: the log-likelihood ratio is linear,
    /// with slope (mu_known - mu_unknown) / sigma^2 and zero halfway between the means.
    @Test func ratioFitRecoversTheGaussianLikelihoodRatio() {
        var rng = SeededGenerator(seed: 3)
        let known = (0..<4000).map { _ in 2 + Double(rng.nextGaussian()) }
        let unknown = (0..<3000).map { _ in 4 + Double(rng.nextGaussian()) }
        let (a, b) = UnlearnedCheck.fitRatio(known: known, unknown: unknown)
        #expect(abs(b - -2) < 0.15, "slope \(b)")
        #expect(abs(-a / b - 3) < 0.05, "zero at \(-a / b)")
        // Groups that do not overlap still give a finite ratio, zero between them.
        let (a2, b2) = UnlearnedCheck.fitRatio(known: [1, 1.1, 1.2], unknown: [5, 5.2, 5.3])
        #expect(a2.isFinite && b2 < 0)
        #expect(-a2 / b2 > 1.2 && -a2 / b2 < 5)
    }

    /// Resampling keeps the ends and interpolates between frames.
    @Test func resamplingInterpolatesLinearly() {
        let w: [Float] = [0, 10, 2, 12, 4, 14]  // 3 frames of 2 channels
        var out = [Float](repeating: -1, count: 5 * 2)
        w.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { o in UnlearnedCheck.resample(p, frames: 3, channels: 2, into: o, length: 5) }
        }
        #expect(out == [0, 10, 1, 11, 2, 12, 3, 13, 4, 14])
    }

    /// A gesture's own class scores as learned, far noise as not.
    @Test func learnedGesturesScoreAboveNoise() throws {
        let data = SyntheticGestures.dataset(perClass: 6, seed: 5)
        let labels = data.examples.map { data.classes.firstIndex(of: $0.label!)! }
        let check = try #require(UnlearnedCheck.learn(data.examples.map(\.series), labels: labels))
        #expect(check.slope < 0)
        var resampled = [Float](repeating: 0, count: check.length * check.channels)
        var features = [Float](repeating: 0, count: check.featureCount)
        func ratio(_ s: TimeSeries) -> Float {
            s.values.withUnsafeBufferPointer { w in
                resampled.withUnsafeMutableBufferPointer { r in
                    features.withUnsafeMutableBufferPointer { f in check.ratio(w, frames: s.frameCount, resampled: r, features: f) }
                }
            }
        }
        let held = SyntheticGestures.dataset(perClass: 2, seed: 6).examples.map(\.series)
        var rng = SeededGenerator(seed: 7)
        let noise = (0..<4).map { _ in
            TimeSeries(values: (0..<(60 * data.channelCount)).map { _ in 3 * rng.nextGaussian() }, channelCount: data.channelCount)
        }
        let learned = held.map(ratio), none = noise.map(ratio)
        #expect(learned.min()! > none.max()!, "learned \(learned), noise \(none)")
        #expect(learned.filter { $0 > 0 }.count * 10 >= learned.count * 9, "\(learned)")
        #expect(none.allSatisfy { $0 < 0 }, "\(none)")
    }

    /// On and saved: the check is in the file, a reload decides the same, and the C export
    /// carries it (that the C decides the same: `ExportCTests`).
    @Test func theCheckRoundTripsAndIsExportedToC() throws {
        let (pipeline, loaded, data, path) = try TestData.savedAndLoaded(#"{"classifier": {"kind": "dtw", "rejectUnlearned": true}}"#,
                                                                          file: "unlearned.gesture")
        let stream = data.examples.prefix(10).flatMap(\.series.values)
        func decisions(_ p: Pipeline) throws -> [Detection] { try TestData.liveDecisions(p, stream, channels: 6) }
        let a = try decisions(pipeline)
        #expect(!a.isEmpty)
        #expect(try a == decisions(loaded))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("\"unlearned\"") && text.contains("\"rejectUnlearned\""))
        #expect(try loaded.cExport(prefix: "p").source.contains("sp_learned"))
        guard case .sequence(let c) = loaded.spec.classifier, let dtw = c as? DTWClassifier else {
            Issue.record("not a DTW pipeline")
            return
        }
        #expect(dtw.summary["unlearned"]?.hasPrefix("check on: ") == true, "\(dtw.summary)")
        // Off, nothing is learned or written.
        let plain = try Pipeline.train(TestData.spec(#"{"classifier": {"kind": "dtw"}}"#), on: data)
        let plainPath = TestData.temporaryFile("plain.gesture")
        try plain.save(to: plainPath)
        #expect(try !String(contentsOfFile: plainPath, encoding: .utf8).contains("unlearned"))
    }

    /// A damaged check in a file is refused with the field named.
    @Test func aDamagedCheckIsRefusedNamingTheField() throws {
        let data = SyntheticGestures.dataset(perClass: 6, seed: 4)
        var dtw = DTWClassifier()
        dtw.rejectUnlearned = true
        try dtw.train(data.examples.map(\.series), labels: data.examples.map { data.classes.firstIndex(of: $0.label!)! },
                      classes: data.classes)
        #expect(dtw.model?.unlearned != nil)
        var json = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(dtw)) as? [String: Any])
        var trained = try #require(json["trained"] as? [String: Any])
        var check = try #require(trained["unlearned"] as? [String: Any])
        check["library"] = Data(count: 12).base64EncodedString()  // three floats
        trained["unlearned"] = check
        json["trained"] = trained
        do {
            _ = try JSONDecoder().decode(DTWClassifier.self, from: JSONSerialization.data(withJSONObject: json))
            Issue.record("a library of 3 values loaded")
        } catch {
            #expect("\(error)".contains("trained.unlearned.library"), "\(error)")
        }
    }

    /// RacketSports, each stroke class left out in turn and streamed between held frames: the
    /// check rejects at least a sixth more of them than the decoder alone (which reports most),
    /// while held-out strokes of learned classes are still found at least 85 % as often. (Half
    /// rejected, the issue's bar, it reaches amid everyday motion, not here.) Both sides name reports
    /// by their templates, so the count moves with the segments the check drops alone; with the
    /// default whole-window naming on both sides this small draw gave 15 found against 18 (the
    /// naming renames some of the strokes the check keeps). The two together are measured on the
    /// spotting suite's larger draws (docs/benchmarks.md: 246 against 252 amid motion).
    @Test(.enabled(if: TestData.hasShared)) func unlearnedStrokesAreMostlyRejected() throws {
        let data = try Dataset.load(TestData.sharedPath("racketsports/RacketSports_TRAIN.ts"))
        let on = try TestData.spec(#"{"classifier": {"kind": "dtw", "rejectUnlearned": true, "nameWhole": false}}"#)
        let off = try TestData.spec(#"{"classifier": {"kind": "dtw", "nameWhole": false}}"#)
        let unlearnedOn = try Evaluation.unlearnedReplay(on, on: data, seed: 900)
        let unlearnedOff = try Evaluation.unlearnedReplay(off, on: data, seed: 900)
        func reported(_ r: SpottingReplayReport) -> (Int, Int) {
            (r.partitions.reduce(0) { $0 + $1.wrongLabel }, r.partitions.reduce(0) { $0 + $1.gestures })
        }
        let (withCheck, total) = reported(unlearnedOn), (without, _) = reported(unlearnedOff)
        #expect(6 * (without - withCheck) >= total, "\(withCheck) of \(total) reported with the check, \(without) without")
        let foundOn = try Evaluation.spottingReplay(on, on: data, partitions: 2, seed: 900).partitions.reduce(0) { $0 + $1.correct }
        let foundOff = try Evaluation.spottingReplay(off, on: data, partitions: 2, seed: 900).partitions.reduce(0) { $0 + $1.correct }
        #expect(Double(foundOn) >= 0.85 * Double(foundOff), "found \(foundOn) with the check, \(foundOff) without")
    }
}
