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

    /// The ratio is fitted on the windows the spotter checks around the decoder's cuts of the
    /// training examples, not on the examples at their true boundaries: held-out gestures cut
    /// badly between held frames (4 frames late, running 20 frames on into the stillness after
    /// them) score as learned more often than with a ratio fitted at the true boundaries, and
    /// noise still scores as no learned class.
    @Test func theRatioIsFittedOnTheDecodersCuts() throws {
        let data = SyntheticGestures.dataset(perClass: 12, seed: 1)
        let labels = data.examples.map { data.classes.firstIndex(of: $0.label!)! }
        var dtw = DTWClassifier()
        try dtw.train(data.examples.map(\.series), labels: labels, classes: data.classes)
        let model = try #require(dtw.model), segmental = try #require(model.segmental)
        let onCuts = try #require(model.unlearned)
        let atBoundaries = try #require(UnlearnedCheck.learn(data.examples.map(\.series), labels: labels))
        let typical = segmental.typicalLength.map { Int($0) }, shortest = SegmentalSpotter.shortest(model, segmental)
        func ratio(_ check: UnlearnedCheck, _ stream: [Float], _ cut: ClosedRange<Int>, _ c: Int) -> Float {
            var resampled = [Float](repeating: 0, count: check.length * check.channels)
            var features = [Float](repeating: 0, count: check.featureCount)
            let frames = stream.count / check.channels
            return SegmentalSpotter.checkWindows(around: cut, typical: typical[c], shortest: shortest[c], frames: 0...(frames - 1))
                .map { w in
                    stream.withUnsafeBufferPointer { p in
                        resampled.withUnsafeMutableBufferPointer { r in
                            features.withUnsafeMutableBufferPointer { f in
                                check.ratio(UnsafeBufferPointer(rebasing: p[(w.lowerBound * check.channels)...(w.upperBound * check.channels + check.channels - 1)]),
                                            frames: w.count, resampled: r, features: f)
                            }
                        }
                    }
                }.max()!
        }
        var rng = SeededGenerator(seed: 2)
        var kept = (cuts: 0, boundaries: 0), total = 0
        for k in 0..<30 {
            let c = k % 3, e = SyntheticGestures.example(c, &rng), n = e.frameCount
            let stream = Array(repeating: Array(e.values[0..<2]), count: 40).flatMap { $0 } + e.values
                + Array(repeating: Array(e.values[((n - 1) * 2)...]), count: 40).flatMap { $0 }
            let cut = (40 + 4)...(40 + n - 1 + 20)
            if ratio(onCuts, stream, cut, c) > 0 { kept.cuts += 1 }
            if ratio(atBoundaries, stream, cut, c) > 0 { kept.boundaries += 1 }
            total += 1
        }
        // Fitted on such cuts with known and unknown weighted equally, more than half of them lie
        // on the learned side (measured: 22 of 30, against 16 at the true boundaries).
        #expect(kept.cuts * 2 > total, "\(kept.cuts) of \(total) kept, fitted on the cuts")
        #expect(kept.cuts > kept.boundaries, "\(kept.cuts) kept fitted on the cuts, \(kept.boundaries) at the true boundaries")
        // Noise as long as a gesture, between the same stillness, is no learned class.
        for _ in 0..<6 {
            let noise = (0..<(160 * 2)).map { i -> Float in i < 80 || i >= 240 ? 0 : 3 * rng.nextGaussian() }
            #expect(ratio(onCuts, noise, 40...119, 0) < 0)
        }
    }

    /// On (the default) and saved: the check is in the file, a reload decides the same, and the C
    /// export carries it (that the C decides the same: `ExportCTests`).
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
        // Off, nothing is learned or written, and the default penalty is the one chosen without it.
        let plain = try Pipeline.train(TestData.spec(#"{"classifier": {"kind": "dtw", "rejectUnlearned": false}}"#), on: data)
        let plainPath = TestData.temporaryFile("plain.gesture")
        try plain.save(to: plainPath)
        #expect(try !String(contentsOfFile: plainPath, encoding: .utf8).contains("unlearned"))
        guard case .sequence(let p) = plain.spec.classifier, let off = p as? DTWClassifier else {
            Issue.record("not a DTW pipeline")
            return
        }
        #expect(off.penalty == 1 && dtw.penalty == 0.5, "\(off.penalty), \(dtw.penalty)")
        // The default spec learns it.
        let byDefault = try Pipeline.train(TestData.spec(#"{"classifier": {"kind": "dtw"}}"#), on: data)
        guard case .sequence(let q) = byDefault.spec.classifier, let on = q as? DTWClassifier else {
            Issue.record("not a DTW pipeline")
            return
        }
        #expect(on.model?.unlearned != nil)
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
    /// check rejects at least a sixth more of them than the same decoder (the same penalty)
    /// without it, and the default (the check and its lower penalty) reports fewer of them than
    /// the decoder without the check at its own default penalty, while held-out strokes of learned
    /// classes are found at least as often. Both sides name reports by their templates, so the
    /// counts move with the segments the check drops alone. The issue's bars (at most half of the
    /// unlearned reported, 85 % of the learned found) are measured on the spotting suite's larger
    /// draws (docs/benchmarks.md).
    @Test(.enabled(if: TestData.hasShared)) func unlearnedStrokesAreMostlyRejected() throws {
        let data = try Dataset.load(TestData.sharedPath("racketsports/RacketSports_TRAIN.ts"))
        let on = try TestData.spec(#"{"classifier": {"kind": "dtw", "nameWhole": false}}"#)
        let same = try TestData.spec(#"{"classifier": {"kind": "dtw", "rejectUnlearned": false, "insertionPenalty": 0.5, "nameWhole": false}}"#)
        let off = try TestData.spec(#"{"classifier": {"kind": "dtw", "rejectUnlearned": false, "nameWhole": false}}"#)
        func reported(_ s: PipelineSpec) throws -> (Int, Int) {
            let r = try Evaluation.unlearnedReplay(s, on: data, seed: 900)
            return (r.partitions.reduce(0) { $0 + $1.wrongLabel }, r.partitions.reduce(0) { $0 + $1.gestures })
        }
        let (withCheck, total) = try reported(on), (samePenalty, _) = try reported(same), (without, _) = try reported(off)
        let counts = "\(withCheck) of \(total) reported with the check, \(samePenalty) without it at its penalty, \(without) without it at penalty 1"
        #expect(6 * (samePenalty - withCheck) >= total, "\(counts)")
        #expect(withCheck < without, "\(counts)")
        func found(_ s: PipelineSpec) throws -> Int {
            try Evaluation.spottingReplay(s, on: data, partitions: 2, seed: 900).partitions.reduce(0) { $0 + $1.correct }
        }
        let foundOn = try found(on), foundOff = try found(off)
        #expect(foundOn >= foundOff, "found \(foundOn) with the check, \(foundOff) without")
    }
}
