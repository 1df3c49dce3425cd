import Foundation
import Testing
@testable import GestureKit

/// The segmental spotting decoder, what it learns, and the everyday-motion replay that measures it.
@Suite struct SegmentalSpottingTests {
    /// The logistic fit recovers the weights that generated the labels (Bernoulli draws from a known
    /// model with negative cost, length and movement weights), within sampling error.
    @Test func logisticFitRecoversGeneratingWeights() {
        var rng = SeededGenerator(seed: 11)
        let truth: [Double] = [0.5, -2, -1, -0.5]
        var data: [([Float], Bool)] = []
        for _ in 0..<20000 {
            let x: [Float] = [1, rng.nextGaussian(), abs(rng.nextGaussian()), abs(rng.nextGaussian())]
            let z = zip(truth, x).map { $0 * Double($1) }.reduce(0, +)
            let y = Double(rng.nextUnit()) < 1 / (1 + exp(-z))
            data.append((x, y))
        }
        let w = SegmentalModel.fitWeights(data)
        // Class-balanced weighting moves only the constant; the slopes are the generating ones.
        for j in 1..<4 { #expect(abs(Double(w[j]) - truth[j]) < 0.15, "weight \(j): \(w[j]) against \(truth[j])") }
    }

    /// Per-class offsets to the constant are recovered (their differences: class-balanced weighting
    /// moves every class's constant alike), and folding them into the cost centres adds exactly
    /// each class's offset to its log-odds.
    @Test func classOffsetsAreRecoveredAndFoldIntoTheCostCentres() {
        var rng = SeededGenerator(seed: 13)
        let truth: [Double] = [0.5, -2, -1, -0.5], offsets: [Double] = [-1, 0, 1.5]
        var data: [([Float], Bool)] = []
        for i in 0..<30000 {
            let c = i % 3
            var x: [Float] = [1, rng.nextGaussian(), abs(rng.nextGaussian()), abs(rng.nextGaussian()), 0, 0, 0]
            let z = zip(truth, x).map { $0 * Double($1) }.reduce(0, +) + offsets[c]
            x[4 + c] = 1
            data.append((x, Double(rng.nextUnit()) < 1 / (1 + exp(-z))))
        }
        let w = SegmentalModel.fitWeights(data)
        for j in 1..<4 { #expect(abs(Double(w[j]) - truth[j]) < 0.15, "weight \(j): \(w[j]) against \(truth[j])") }
        for c in 1..<3 {
            let fitted = Double(w[4 + c] - w[4]), expected = offsets[c] - offsets[0]
            #expect(abs(fitted - expected) < 0.15, "class \(c) offset \(fitted) against \(expected)")
        }

        let plain = SegmentalModel(costMean: [1, 2, 3], costSpread: [0.5, 1, 2], typicalLength: [20, 30, 40],
                                   motion: [0.1, 0.2, 0.3], weights: [0.5, -2, -1, -0.5], samples: [0, 0])
        var folded = plain
        let shift: [Float] = [-1, 0.25, 2]
        folded.fold(offsets: shift)
        for _ in 0..<200 {
            let c = Int(rng.nextUnit() * 3) % 3, d = exp(4 * rng.nextUnit()), n = 5 + Int(rng.nextUnit() * 60)
            let v = rng.nextUnit()
            let before = plain.logOdds(c, cost: d, length: n, movement: v), after = folded.logOdds(c, cost: d, length: n, movement: v)
            #expect(abs(after - (before + shift[c])) < 1e-4, "class \(c): \(after) against \(before) + \(shift[c])")
            #expect(abs(folded.bound(c, cost: d) - (plain.bound(c, cost: d) + shift[c])) < 1e-4)
        }
    }

    /// The movement feature compares how far a candidate moves over its whole length with how far a
    /// template moves: a gesture performed twice as fast scores as the template does, half of a
    /// periodic activity as far off as half the movement. Files saved before (no key) keep the
    /// movement per frame their weights were fitted on, and training sets the key.
    @Test func movementIsSpreadOverATypicalPerformance() throws {
        let per = SegmentalModel(costMean: [0], costSpread: [1], typicalLength: [41], motion: [0.5],
                                 weights: [1, -1, -1, -1], samples: [0, 0], movementPerPerformance: true)
        let e = per.motionFloor
        // 21 frames moving 1.0 a frame: 20 units, as far as a 41-frame template at 0.5 a frame.
        #expect(abs(per.features(0, cost: 1, length: 21, movement: 1).2) < 1e-6)
        // Half the frames at the template's pace: half as far.
        let half = per.features(0, cost: 1, length: 21, movement: 0.5).2
        #expect(abs(half - abs(log((0.25 + e) / (0.5 + e)))) < 1e-6)
        var legacy = per
        legacy.movementPerPerformance = nil
        #expect(abs(legacy.features(0, cost: 1, length: 21, movement: 1).2 - abs(log((1 + e) / (0.5 + e)))) < 1e-6)
        let json = try JSONEncoder().encode(legacy)
        #expect(!String(decoding: json, as: UTF8.self).contains("movementPerPerformance"))
        #expect(try JSONDecoder().decode(SegmentalModel.self, from: json) == legacy)
        #expect(try JSONDecoder().decode(SegmentalModel.self, from: JSONEncoder().encode(per)) == per)
        let trained = try Pipeline.train(TestData.spec(#"{"classifier": {"kind": "dtw"}}"#),
                                         on: SyntheticGestures.dataset(perClass: 4, seed: 3))
        guard case .sequence(let c) = trained.spec.classifier, let dtw = c as? DTWClassifier else {
            Issue.record("not a DTW pipeline")
            return
        }
        #expect(dtw.model?.segmental?.movementPerPerformance == true)
    }

    /// A feature that points the wrong way (higher cost, more likely a gesture) is pinned at zero,
    /// which keeps the decoder's bound on live paths valid.
    @Test func weightsThatWouldRewardCostArePinnedAtZero() {
        var rng = SeededGenerator(seed: 12)
        var data: [([Float], Bool)] = []
        for _ in 0..<4000 {
            let cost = rng.nextGaussian()
            data.append(([1, cost, 0, 0], Double(rng.nextUnit()) < 1 / (1 + exp(-2 * Double(cost)))))
        }
        let w = SegmentalModel.fitWeights(data)
        #expect(w[1] <= 0 && w[2] <= 0 && w[3] <= 0)
    }

    /// Everyday motion mapped onto a set: the set's channel count, rate and per-sensor spread, and
    /// stretches that join the frames on either side exactly.
    @Test func motionIsMappedToTheSetsRateAndScaleAndJoinsItsNeighbours() throws {
        // A 50 Hz source: a sine on every channel, gyroscope ten times the acceleration.
        let n = 5000
        var v = [Float](repeating: 0, count: n * 6)
        for f in 0..<n {
            for k in 0..<6 { v[f * 6 + k] = (k < 3 ? 1 : 10) * sin(Float(f) * 0.05 + Float(k)) }
        }
        let source = TimeSeries(values: v, channelCount: 6, sampleRate: 50)
        let data = try Dataset.load(TestData.basicMotionsTrain)
        let motion = try EverydayMotion.mapped([source], sourceRate: 50, like: data, rate: 10)
        let m = motion.recordings[0]
        #expect(m.channelCount == 6)
        #expect(abs(m.frameCount - n / 5) <= 1)
        let target = Evaluation.channelMoments(data.examples.map(\.series), channels: 6)
        let got = Evaluation.channelMoments([m], channels: 6)
        for g in [0, 3] {
            let want = (g..<(g + 3)).map { target.std[$0] * target.std[$0] }.reduce(0, +)
            let have = (g..<(g + 3)).map { got.std[$0] * got.std[$0] }.reduce(0, +)
            #expect(abs(have / want - 1) < 0.05, "sensor from channel \(g): spread \(have) against \(want)")
        }
        var rng = SeededGenerator(seed: 3)
        let before: [Float] = [1, 2, 3, 4, 5, 6], after: [Float] = [-1, -2, -3, -4, -5, -6]
        let s = motion.stretch(60, before: before[...], after: after[...], using: &rng)
        #expect(s.count == 60 * 6)
        for k in 0..<6 {
            #expect(abs(s[k] - before[k]) < 1e-4)
            #expect(abs(s[59 * 6 + k] - after[k]) < 1e-4)
        }
    }

    /// A segmental DTW pipeline saves what its decoder learned and decides the same after a reload.
    @Test func segmentalModelRoundTripsThroughThePipelineFile() throws {
        let (pipeline, loaded, data, path) = try TestData.savedAndLoaded(
            #"{"classifier": {"kind": "dtw", "decoder": "segmental", "insertionPenalty": 1.5}}"#, file: "segmental.gesture")
        let stream = data.examples.prefix(8).flatMap(\.series.values)
        func decisions(_ p: Pipeline) throws -> [Detection] { try TestData.liveDecisions(p, stream, channels: 6) }
        let a = try decisions(pipeline), b = try decisions(loaded)
        #expect(!a.isEmpty)
        #expect(a == b)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("\"segmental\""))
        #expect(text.contains("\"insertionPenalty\""))
        // `gesture info` names the decoder and its penalty, not the rule stack's thresholds.
        guard case .sequence(let c) = loaded.spec.classifier, let dtw = c as? DTWClassifier else {
            Issue.record("not a DTW pipeline")
            return
        }
        #expect(dtw.summary["spotting"]?.hasPrefix("segmental decoder, insertion penalty 1.5") == true)
    }

    /// The same recording saved twice is learned once: otherwise, in leave-one-out, each copy would
    /// match the other at no cost, and that one log cost at the floor (-27.6) would stretch the cost
    /// spread of every class (it is pooled), as two copies of an Epilepsy recording did.
    @Test func aCopiedExampleIsLearnedOnce() throws {
        let data = SyntheticGestures.dataset(perClass: 6, seed: 4)
        let series = data.examples.map(\.series), labels = data.examples.map { data.classes.firstIndex(of: $0.label!)! }
        var once = DTWClassifier(), twice = DTWClassifier()
        try once.train(series, labels: labels, classes: data.classes)
        try twice.train(series + [series[3]], labels: labels + [labels[3]], classes: data.classes)
        let a = try #require(once.model?.segmental), b = try #require(twice.model?.segmental)
        #expect(a == b)
        #expect(twice.model?.lengths.count == series.count)
        // A copy filed under another class is another example, not a copy.
        var other = DTWClassifier()
        try other.train(series + [series[3]], labels: labels + [(labels[3] + 1) % data.classes.count], classes: data.classes)
        #expect(other.model?.lengths.count == series.count + 1)
    }

    /// A trained file of an earlier version (a `decoder` key, the rule stack's thresholds, no
    /// segmental model) loads with the decoder's model learned from its templates: exactly what
    /// training learns when the templates are the examples (1-NN keeps every example). A spec
    /// that asks for the rule stack is refused, naming the key.
    @Test func filesSavedBeforeTheSegmentalDecoderSpotWithIt() throws {
        let data = SyntheticGestures.dataset(perClass: 6, seed: 4)
        var dtw = DTWClassifier()
        try dtw.train(data.examples.map(\.series), labels: data.examples.map { data.classes.firstIndex(of: $0.label!)! },
                      classes: data.classes)
        let learned = try #require(dtw.model?.segmental)
        var json = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(dtw)) as? [String: Any])
        var trained = try #require(json["trained"] as? [String: Any])
        trained["segmental"] = nil
        trained["spottingMeans"] = trained["rejectionMeans"]
        trained["spottingStds"] = trained["rejectionStds"]
        json["trained"] = trained
        json["decoder"] = "rules"
        let old = try JSONDecoder().decode(DTWClassifier.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(old.model?.segmental == learned)
        #expect(old.makeSpotter() is SegmentalSpotter)
        // Saved again, it keeps the model and drops what it no longer reads.
        let again = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(old)) as? [String: Any])
        #expect(again["decoder"] == nil && (again["trained"] as? [String: Any])?["spottingMeans"] == nil)
        #expect(throws: (any Error).self) { try TestData.spec(#"{"classifier": {"kind": "dtw", "decoder": "rules"}}"#) }
        do {
            _ = try TestData.spec(#"{"classifier": {"kind": "dtw", "decoder": "rules"}}"#)
        } catch {
            #expect("\(error)".contains("decoder"), "\(error)")
        }
        _ = try TestData.spec(#"{"classifier": {"kind": "dtw", "decoder": "segmental"}}"#)
    }

    /// The decoder on real data: UWave gestures amid everyday motion of people it never saw
    /// (HAPT), trained with negatives of other people. At most the issue's 0.5 false reports a
    /// minute of motion, while it still finds once rightly more than half the gestures the
    /// pipeline names rightly when each is classified whole (it does not buy quiet by silence).
    @Test(.enabled(if: TestData.hasShared)) func segmentalDecoderIsQuietAmidEverydayMotion() throws {
        let data = try Dataset.load(TestData.sharedPath("uwave/UWaveGestureLibrary_TRAIN.ts"))
        let hapt = try HAPTFormat.read(TestData.sharedPath("hapt-raw"))
        let all = hapt.recordings.map(\.series)
        func users(_ ids: [Int]) -> [TimeSeries] { Self.recordings(of: ids, in: hapt) }
        let between = try EverydayMotion.mapped(users([14, 15, 16]), sourceRate: 50, like: data, rate: 100, reference: all)
        let negatives = try EverydayMotion.mapped(users([1, 3, 5]), sourceRate: 50, like: data, rate: 100, reference: all)
            .sample(seconds: 300)
        let spec = try TestData.spec(#"{"classifier": {"kind": "dtw"}}"#)
        let s = try Evaluation.everydayReplay(spec, on: data, motion: between, negatives: negatives, partitions: 1, seed: 500)
        #expect(s.gestures == 24)
        #expect((s.falsePerMinute ?? .infinity) <= 0.5, "\(s.text)")
        #expect(2 * s.correct > s.wholeCorrect, "\(s.text)")
    }

    /// Once a segment is reported, no report may overlap it. Cuts found before the report that hold
    /// a segment overlapping it are rebuilt from the report: without that, Epilepsy's walking amid
    /// everyday motion was reported three times over the same frames (2415-2517, 2424-2542,
    /// 2424-2554 in the fourth partition).
    @Test(.enabled(if: TestData.hasShared)) func reportsNeverOverlap() throws {
        let data = try Dataset.load(TestData.sharedPath("epilepsy/Epilepsy_TRAIN.ts"))
        let hapt = try HAPTFormat.read(TestData.sharedPath("hapt-raw"))
        let names = Set([14, 15, 16, 17, 19, 21, 22].map { String(format: "user%02d", $0) })
        let shown = hapt.recordings.filter { $0.user.map(names.contains) == true }.map(\.series)
        let motion = try EverydayMotion.mapped(shown, sourceRate: HAPTFormat.sampleRate, like: data, rate: 16,
                                               reference: hapt.recordings.map(\.series))
        let s = try Evaluation.everydayReplay(TestData.spec(#"{"classifier": {"kind": "dtw"}}"#), on: data, motion: motion,
                                              partitions: 5, seed: 0)
        var reports = 0
        for p in s.partitions {
            let frames = p.outcomes.flatMap(\.reportedFrames).sorted { $0.lowerBound < $1.lowerBound }
            reports += frames.count
            for (a, b) in zip(frames, frames.dropFirst()) { #expect(a.upperBound < b.lowerBound, "\(a) and \(b) overlap") }
        }
        #expect(reports >= 50, "\(s.text)")
    }

    /// A segment shorter than a typical performance may be the first part of a gesture a live path
    /// is still matching, and the window that starts with it is whole only a typical performance
    /// after its start: the fixed lag makes it final no sooner. Without that, UWave's 7.0 at frames 2430-2744 of
    /// the spotting suite's first tuning partition was reported as its first half (4.0 at
    /// 2416-2573) and then its rest (6.0 at 2601-2915); and no short segment's report came later
    /// than a quarter performance after its end.
    @Test(.enabled(if: TestData.hasShared)) func aShortSegmentIsFinalOnlyOnceItsWindowIsWhole() throws {
        let data = try Dataset.load(TestData.sharedPath("uwave/UWaveGestureLibrary_TRAIN.ts"))
        let hapt = try HAPTFormat.read(TestData.sharedPath("hapt-raw"))
        let all = hapt.recordings.map(\.series)
        func users(_ ids: [Int]) -> [TimeSeries] { Self.recordings(of: ids, in: hapt) }
        let between = try EverydayMotion.mapped(users([14, 15, 16, 17, 19, 21, 22]), sourceRate: HAPTFormat.sampleRate,
                                                like: data, rate: 100, reference: all)
        let negatives = try EverydayMotion.mapped(users([1, 3, 5, 6, 7, 8, 11]), sourceRate: HAPTFormat.sampleRate,
                                                  like: data, rate: 100, reference: all).sample(seconds: 600)
        let s = try Evaluation.everydayReplay(TestData.spec(#"{"classifier": {"kind": "dtw"}}"#), on: data, motion: between,
                                              negatives: negatives, partitions: 1, seed: 0)
        let outcomes = try #require(s.partitions.first?.outcomes)
        let g = try #require(outcomes.first { $0.start == 2430 && $0.end == 2744 }, "the replay's stream changed")
        #expect(g.label == "7.0" && g.reported == ["7.0"], "\(g.reported) at \(g.reportedFrames)")
        // A typical UWave gesture is 315 frames, the lag a quarter of it.
        var late = 0
        for o in outcomes { for (f, at) in zip(o.reportedFrames, o.reportedAt) where f.count < 315 && at > f.upperBound + 78 { late += 1 } }
        #expect(late > 0)
    }

    /// A DTW pipeline's rest class plays the negatives' role (the studio's "record not a gesture (rest)" reaches
    /// the spotter this way): its examples teach the decoder what to stay silent on, exactly as
    /// the same recordings given as negatives do, and it is not a class the spotter can report.
    @Test func aRestClassIsWhatTheSpotterLearnsToIgnore() throws {
        var data = SyntheticGestures.dataset(perClass: 6, seed: 8)
        var rng = SeededGenerator(seed: 9)
        let wiggles = (0..<4).map { k in
            TimeSeries(frames: (0..<90).map { i -> [Float] in
                [0.3 * sinf(Float(i) * 0.2 + Float(k)) + 0.02 * rng.nextGaussian(), 0.2 * cosf(Float(i) * 0.15) + 0.02 * rng.nextGaussian()]
            })
        }
        let plain = try Pipeline.train(TestData.spec(#"{"classifier": {"kind": "dtw"}}"#), on: data, negatives: wiggles)
        data.examples += wiggles.map { Example(series: $0, label: "rest") }
        data.classes.append("rest")
        let withRest = try Pipeline.train(TestData.spec(#"{"classifier": {"kind": "dtw"}, "rest": "rest"}"#), on: data)
        #expect(withRest.classes == SyntheticGestures.classes)
        #expect(withRest.spec.rest == nil)
        func model(_ p: Pipeline) -> SegmentalModel? {
            guard case .sequence(let c) = p.spec.classifier, let dtw = c as? DTWClassifier else { return nil }
            return dtw.model?.segmental
        }
        let learned = try #require(model(withRest))
        #expect(learned == model(plain))
        let without = try Pipeline.train(TestData.spec(#"{"classifier": {"kind": "dtw"}}"#), on: SyntheticGestures.dataset(perClass: 6, seed: 8))
        #expect(learned.samples[1] > (model(without)?.samples[1] ?? .max))
    }

    /// `negatives` reach a windowed pipeline as its rest class, named when the spec names none.
    @Test func negativesBecomeTheRestClassOfOtherPipelines() throws {
        var data = try Dataset.load(TestData.basicMotionsTrain)
        data.sampleRate = 10
        let spec = try PipelineSpec.load(TestData.repo.appendingPathComponent("pipelines/basicmotions-live.json").path)
        let noise = TimeSeries(values: (0..<(600 * 6)).map { Float($0 % 7) * 0.01 }, channelCount: 6)
        let pipeline = try Pipeline.train(spec, on: data, negatives: [noise])
        #expect(pipeline.classes.contains(Pipeline.negativeLabel))
        #expect(pipeline.spec.rest == Pipeline.negativeLabel)
        #expect(throws: GestureKitError.self) {
            try Pipeline.train(spec, on: data, negatives: [TimeSeries(values: [1, 2, 3], channelCount: 3)])
        }
    }

    /// The HAPT recordings of the users numbered `ids`.
    static func recordings(of ids: [Int], in hapt: Dataset) -> [TimeSeries] {
        let names = Set(ids.map { String(format: "user%02d", $0) })
        return hapt.recordings.filter { $0.user.map(names.contains) == true }.map(\.series)
    }
}
