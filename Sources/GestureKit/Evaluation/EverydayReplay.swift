/// Continuous everyday motion (walking, stairs, sitting down, standing up, turning) of people who
/// perform no gesture, mapped onto a gesture set's channels, rate and scale: what a spotter hears
/// between gestures in real life, and what it can learn "not a gesture" from.
///
/// The source is a body-worn accelerometer and gyroscope (HAPT's layout: `accX accY accZ gyroX gyroY
/// gyroZ`). A set of three channels takes the acceleration, one of six takes both. Each source channel
/// is resampled (linear interpolation) to the set's rate, centred on the set's channel mean and
/// scaled by one factor per sensor (so a sensor's axes keep their proportions): the ratio of the set's
/// spread over its frames to the source's.
package struct EverydayMotion: Sendable {
    /// The mapped recordings, each in the set's channels, rate and scale.
    package var recordings: [TimeSeries]
    /// Frames per second of the mapped recordings.
    package var sampleRate: Double

    /// Maps `source` (frames of `sourceChannels` at `sourceRate` Hz: acceleration xyz, then gyroscope
    /// xyz when six) onto `data`'s channels at `rate` Hz. `reference` sets the source's spread
    /// (default: `source`), so that two groups of people mapped apart share one scale.
    /// - Throws: when `data` has neither 3 nor 6 channels, the source has fewer than it needs, or a
    ///   rate is not positive.
    package static func mapped(_ source: [TimeSeries], sourceRate: Double, like data: Dataset, rate: Double,
                              reference: [TimeSeries]? = nil) throws -> EverydayMotion {
        let c = data.channelCount
        guard c == 3 || c == 6 else {
            throw GestureKitError("everyday motion maps onto 3 channels (acceleration) or 6 (acceleration, gyroscope); the data has \(c)",
                                  file: data.source, field: "channels")
        }
        guard rate > 0, sourceRate > 0, rate.isFinite, sourceRate.isFinite else {
            throw GestureKitError("sample rates must be positive", field: "rate")
        }
        if let bad = source.first(where: { $0.channelCount < c }) {
            throw GestureKitError("everyday motion has \(bad.channelCount) channels; the data needs \(c)", field: "channels")
        }
        let target = Evaluation.channelMoments(data.examples.map(\.series), channels: c)
        let from = Evaluation.channelMoments(reference ?? source, channels: c)
        // One scale per sensor of three axes: the set's spread over the source's.
        var scale = [Float](repeating: 1, count: c)
        for g in stride(from: 0, to: c, by: 3) {
            let want = (g..<(g + 3)).map { target.std[$0] * target.std[$0] }.reduce(0, +)
            let have = (g..<(g + 3)).map { from.std[$0] * from.std[$0] }.reduce(0, +)
            let s = have > 0 ? (want / have).squareRoot() : 1
            for j in g..<(g + 3) { scale[j] = s }
        }
        let mapped = source.map { s -> TimeSeries in
            let n = s.frameCount
            let out = n < 2 ? 0 : Int((Double(n - 1) * rate / sourceRate).rounded(.down)) + 1
            var v = [Float](repeating: 0, count: out * c)
            for j in 0..<out {
                let x = Double(j) * sourceRate / rate
                let i = min(Int(x), n - 2), w = Float(x - Double(i))
                for k in 0..<c {
                    let a = s.values[i * s.channelCount + k], b = s.values[(i + 1) * s.channelCount + k]
                    v[j * c + k] = target.mean[k] + scale[k] * ((a + w * (b - a)) - from.mean[k])
                }
            }
            return TimeSeries(values: v, channelCount: c, channelNames: data.channelNames, sampleRate: rate)
        }
        return EverydayMotion(recordings: mapped.filter { $0.frameCount > 0 }, sampleRate: rate)
    }

    /// A stretch of `count` frames from a random recording at a random place, shifted by a ramp so
    /// that it begins at `before` and ends at `after` (a frame each, when given): the motion joins
    /// the gestures around it without a jump.
    func stretch(_ count: Int, before: ArraySlice<Float>?, after: ArraySlice<Float>?,
                 using rng: inout SeededGenerator) -> [Float] {
        let long = recordings.filter { $0.frameCount >= count }
        guard count > 0, !long.isEmpty else { return [] }
        let total = long.reduce(0) { $0 + $1.frameCount - count + 1 }
        var pick = Int(rng.next() % UInt64(total))
        var r = 0
        while pick >= long[r].frameCount - count + 1 { pick -= long[r].frameCount - count + 1; r += 1 }
        let s = long[r], c = s.channelCount
        var v = Array(s.values[(pick * c)..<((pick + count) * c)])
        let first = Array(v[0..<c]), last = Array(v[((count - 1) * c)..<(count * c)])
        let b = before.map(Array.init), a = after.map(Array.init)
        for f in 0..<count {
            let w = count > 1 ? Float(f) / Float(count - 1) : 0
            for k in 0..<c {
                let head = b.map { $0[k] - first[k] } ?? (a.map { $0[k] - last[k] } ?? 0)
                let tail = a.map { $0[k] - last[k] } ?? head
                v[f * c + k] += (1 - w) * head + w * tail
            }
        }
        return v
    }

    /// Cuts `seconds` of motion from the recordings, spread evenly across them: negatives for
    /// training that cost a bounded time to learn from.
    package func sample(seconds: Double) -> [TimeSeries] {
        let want = Int(seconds * sampleRate)
        let total = recordings.reduce(0) { $0 + $1.frameCount }
        guard want > 0, total > 0 else { return [] }
        if want >= total { return recordings }
        return recordings.compactMap { s in
            let take = Int(Double(s.frameCount) * Double(want) / Double(total))
            guard take > 0 else { return nil }
            let at = (s.frameCount - take) / 2, c = s.channelCount
            return TimeSeries(values: Array(s.values[(at * c)..<((at + take) * c)]), channelCount: c,
                              channelNames: s.channelNames, sampleRate: s.sampleRate)
        }
    }
}

extension Evaluation {
    /// Per channel, the mean and standard deviation over every finite frame of `series`.
    static func channelMoments(_ series: [TimeSeries], channels c: Int) -> (mean: [Float], std: [Float]) {
        var sum = [Double](repeating: 0, count: c), squares = sum, n = sum
        for s in series where s.channelCount >= c {
            let w = s.channelCount
            for f in 0..<s.frameCount {
                for k in 0..<c {
                    let v = s.values[f * w + k]
                    guard v.isFinite else { continue }
                    sum[k] += Double(v)
                    squares[k] += Double(v) * Double(v)
                    n[k] += 1
                }
            }
        }
        let mean = (0..<c).map { sum[$0] / max(n[$0], 1) }
        let std = (0..<c).map { max(0, squares[$0] / max(n[$0], 1) - mean[$0] * mean[$0]).squareRoot() }
        return (mean.map(Float.init), std.map(Float.init))
    }

    /// A spotting replay amid everyday motion: as ``spottingReplay(_:on:holdout:partitions:gap:seed:still:noise:)``,
    /// but `seconds` of `motion` (another stretch each time, joined to the gestures around it) lie
    /// before, between and after the held-out gestures, and the pipeline is trained with
    /// `negatives` (recordings of no gesture, of other people than `motion`'s). Every detection
    /// that overlaps no gesture is a false report; ``SpottingReplayReport/Partition/motionFrames``
    /// says how many frames of motion they came from.
    /// - Parameters:
    ///   - spec: the pipeline to train and stream.
    ///   - data: isolated labelled gestures.
    ///   - motion: what lies between the gestures (see ``EverydayMotion/mapped(_:sourceRate:like:rate:reference:)``).
    ///   - negatives: recordings of no gesture the pipeline is trained with.
    ///   - seconds: motion before, between and after the gestures.
    ///   - holdout: examples per class held out and streamed in each partition.
    ///   - partitions: seeded partitions, seeds `seed`, `seed + 1`, ...
    ///   - seed: seed of the first partition's split, order and motion stretches.
    ///   - unlearned: instead, leave each class in turn out of training and stream all its
    ///     examples amid the motion (every report on them is wrong).
    /// - Throws: when `seconds` is not positive, a class has no more than `holdout` examples, or a
    ///   trained pipeline cannot decide live.
    package static func everydayReplay(_ spec: PipelineSpec, on data: Dataset, motion: EverydayMotion,
                                      negatives: [TimeSeries] = [], seconds: Double = 6, holdout: Int = 3,
                                      partitions: Int = 5, seed: UInt64 = 0,
                                      unlearned: Bool = false) throws -> SpottingReplayReport {
        guard seconds > 0, seconds.isFinite else { throw GestureKitError("seconds of motion must be positive", field: "seconds") }
        let gap = Int((seconds * motion.sampleRate).rounded())
        var report = SpottingReplayReport(partitions: [], holdout: unlearned ? 0 : holdout, gap: gap)
        report.motionRate = motion.sampleRate
        func run(_ pipeline: Pipeline, _ gestures: [Example], _ s: UInt64) throws -> SpottingReplayReport.Partition {
            var rng = SeededGenerator(seed: s ^ 0xE7E2_DA7)
            return try replay(pipeline, gestures, gap: gap, still: .last, seed: s) { before, after in
                motion.stretch(gap, before: before, after: after, using: &rng)
            }
        }
        if unlearned {
            let labelled = data.examples.filter { $0.label != nil && $0.series.frameCount > 0 }
            let classes = Dataset.classOrder(labelled.compactMap(\.label))
            guard classes.count >= 2 else {
                throw GestureKitError("an unlearned-class replay needs at least two classes", file: data.source, field: "classes")
            }
            for left in classes {
                var rng = SeededGenerator(seed: seed)
                let known = Dataset(examples: labelled.filter { $0.label != left }, channelNames: data.channelNames,
                                    sampleRate: data.sampleRate, source: data.source)
                let unknown = labelled.filter { $0.label == left }.shuffled(using: &rng)
                var p = try run(try trainedLive(spec, on: known, negatives: negatives), unknown, seed)
                p.unlearned = left
                report.partitions.append(p)
            }
            return report
        }
        let members = try classMembers(data, holdout: holdout)
        for p in 0..<partitions {
            let s = seed &+ UInt64(p)
            let (train, held) = partition(members, holdout: holdout, seed: s)
            let pipeline = try trainedLive(spec, on: data.subset(train.sorted()), negatives: negatives)
            report.partitions.append(try run(pipeline, held.map { data.examples[$0] }, s))
        }
        return report
    }
}

extension TimeSeries {
    /// Every frame of a recording file as `gesture stream --input` reads it (CSV with or without
    /// a header, whitespace-separated numbers), in `channelNames`' order when the file has a
    /// header: a negative recording for ``Pipeline/train(_:on:negatives:progress:isCancelled:)``.
    /// - Throws: when the file cannot be read, a line is malformed (naming its line and reason), or
    ///   it holds no frame.
    package static func readFrames(_ path: String, channelNames: [String] = []) throws -> TimeSeries {
        let reader = try FrameReader(.file(path), channelNames: channelNames)
        defer { reader.close() }
        var values: [Float] = []
        while let event = try reader.next(timeout: nil) {
            switch event {
            case .frame(let f): values += f
            case .malformed(let bad): throw GestureKitError(bad.reason, file: path, line: bad.line)
            case .idle: continue
            }
        }
        let c = reader.channelNames.count
        guard c > 0, !values.isEmpty else { throw GestureKitError("no frames", file: path) }
        return TimeSeries(values: values, channelCount: c, channelNames: reader.channelNames)
    }
}
