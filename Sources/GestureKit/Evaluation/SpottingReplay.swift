/// What stands between the gestures of a spotting replay: the user holding still.
package enum StillFrames: String, Sendable, Codable, CaseIterable {
    /// The previous gesture's last frame held (before the first gesture: its first frame).
    case last
    /// The next gesture's first frame held (after the last gesture: its last frame).
    case first
    /// Every channel 0.
    case zeros
}

/// How a pipeline spotted held-out isolated gestures streamed with still stretches between them.
package struct SpottingReplayReport: Sendable, Codable, Hashable {
    /// One replay: one seed's held-out gestures streamed with one kind of still frames.
    package struct Partition: Sendable, Codable, Hashable {
        /// Seed of the held-out choice and of the shuffled order.
        package var seed: UInt64
        /// What filled the stretches between gestures.
        package var still: StillFrames
        /// Gestures streamed.
        package var gestures = 0
        /// Reported exactly once, with the right label.
        package var correct = 0
        /// No detection overlaps the gesture.
        package var missed = 0
        /// The gesture's first detection names another class.
        package var wrongLabel = 0
        /// Detections beyond the first on one gesture.
        package var repeated = 0
        /// Detections that overlap no gesture (reported during stillness).
        package var falseDetections = 0
        /// Gestures the pipeline names by their own label when each is classified whole, cut at its
        /// true boundaries: what the classifier gets right with the spotting out of the way (0 in
        /// an unlearned-class replay, whose gestures have no learned label).
        package var wholeCorrect = 0

        /// The same counts per class of the gestures streamed (false detections belong to no
        /// gesture), and what the wrongly labelled ones were first named.
        package var perClass: [String: ClassTally] = [:]
        /// In an unlearned-class replay (``Evaluation/unlearnedReplay(_:on:gap:seed:still:noise:)``),
        /// the class left out of training, whose gestures were streamed; `nil` otherwise.
        package var unlearned: String? = nil
        /// Each gesture streamed, in stream order, then each false detection: where the counts
        /// come from, for tracing a miss back to its frames.
        package var outcomes: [Outcome] = []
        /// Frames of everyday motion streamed around the gestures (0 when still frames lay there).
        package var motionFrames = 0

        /// Every gesture reported once with its label, nothing else.
        package var perfect: Bool { correct == gestures && repeated == 0 && falseDetections == 0 }

        /// Counts `t` (one gesture's outcome, or several) into the totals and into class `label`.
        mutating func add(_ t: ClassTally, of label: String) {
            gestures += t.gestures
            correct += t.correct
            missed += t.missed
            wrongLabel += t.wrongLabel
            repeated += t.repeated
            perClass[label, default: ClassTally()].add(t)
        }
    }

    /// One gesture of a replay's stream and what was reported over it, or one report over none.
    package struct Outcome: Sendable, Codable, Hashable {
        /// The gesture's label; `nil` for a report that overlaps no gesture (a false detection).
        package var label: String?
        /// The gesture's first frame in the stream (for a false detection, the report's).
        package var start: Int
        /// The gesture's last frame in the stream (for a false detection, the report's).
        package var end: Int
        /// The labels reported over it, in order ("null" for a report without one); empty: missed.
        package var reported: [String] = []
        /// The stream frames of each report in `reported`, in the same order.
        package var reportedFrames: [ClosedRange<Int>] = []
        /// The stream frame at which each report in `reported` was made (the frame pushed when the
        /// recogniser returned it; the stream's length for a report made when it ended).
        package var reportedAt: [Int] = []
        /// What the pipeline names the gesture classified whole at its true boundaries ("null":
        /// rejected); `nil` for a false detection or a gesture of a class it never learned.
        package var whole: String? = nil

        /// Reported once, with the gesture's own label.
        package var isCorrect: Bool { label.map { reported == [$0] } ?? false }
    }

    /// One class's gestures in a replay.
    package struct ClassTally: Sendable, Codable, Hashable {
        /// Gestures of the class streamed.
        package var gestures = 0
        /// Reported exactly once, with the right label.
        package var correct = 0
        /// No detection overlaps the gesture.
        package var missed = 0
        /// The gesture's first detection names another class.
        package var wrongLabel = 0
        /// Detections beyond the first on one gesture.
        package var repeated = 0
        /// The labels the wrongly labelled gestures were first given, and how often.
        package var namedAs: [String: Int] = [:]

        mutating func add(_ o: ClassTally) {
            gestures += o.gestures
            correct += o.correct
            missed += o.missed
            wrongLabel += o.wrongLabel
            repeated += o.repeated
            namedAs.merge(o.namedAs, uniquingKeysWith: +)
        }
    }

    /// Each replay, in seed order.
    package var partitions: [Partition]
    /// Examples per class held out and streamed in each partition.
    package var holdout: Int
    /// Still frames before, between and after the gestures.
    package var gap: Int
    /// Gaussian noise added to each still frame, as a fraction of each channel's standard
    /// deviation over the data (0: the still frames are exact copies).
    package var noise: Float = 0
    /// Frames per second of the everyday motion between the gestures; `nil` when still frames lay there.
    package var motionRate: Double? = nil

    /// False reports per minute of everyday motion (`nil` without motion).
    package var falsePerMinute: Double? {
        guard let rate = motionRate else { return nil }
        let minutes = Double(partitions.reduce(0) { $0 + $1.motionFrames }) / rate / 60
        return minutes > 0 ? Double(falseDetections) / minutes : 0
    }

    /// Frames from each rightly reported gesture's last frame to the frame its report was made on
    /// (negative when reported before the gesture ended), over all partitions, in stream order.
    package var latencies: [Int] {
        partitions.flatMap { p in p.outcomes.filter(\.isCorrect).compactMap { o in o.reportedAt.first.map { $0 - o.end } } }
    }

    /// The median and 95th percentile of ``latencies`` (`nil` when nothing was reported rightly).
    package var latencyPercentiles: (median: Int, p95: Int)? {
        let l = latencies.sorted()
        guard !l.isEmpty else { return nil }
        return (l[l.count / 2], l[min(l.count - 1, Int((Double(l.count) * 0.95).rounded(.up)) - 1)])
    }

    /// Partitions in which every gesture was reported once, rightly, and nothing else.
    package var perfectPartitions: Int { partitions.filter(\.perfect).count }
    /// Gestures streamed, over all partitions.
    package var gestures: Int { partitions.reduce(0) { $0 + $1.gestures } }
    /// Gestures reported once with the right label, over all partitions.
    package var correct: Int { partitions.reduce(0) { $0 + $1.correct } }
    /// Gestures no detection overlapped, over all partitions.
    package var missed: Int { partitions.reduce(0) { $0 + $1.missed } }
    /// Gestures first reported as another class, over all partitions.
    package var wrongLabel: Int { partitions.reduce(0) { $0 + $1.wrongLabel } }
    /// Extra detections on one gesture, over all partitions.
    package var repeated: Int { partitions.reduce(0) { $0 + $1.repeated } }
    /// Detections during stillness, over all partitions.
    package var falseDetections: Int { partitions.reduce(0) { $0 + $1.falseDetections } }
    /// Gestures named rightly when classified whole at their true boundaries, over all partitions.
    package var wholeCorrect: Int { partitions.reduce(0) { $0 + $1.wholeCorrect } }
    /// Each class's counts over all partitions: which gestures a set's failures come from.
    package var perClass: [String: ClassTally] {
        var all: [String: ClassTally] = [:]
        for p in partitions { for (label, t) in p.perClass { all[label, default: ClassTally()].add(t) } }
        return all
    }

    /// Gestures of classes the pipeline never learned that nothing was reported on (in an
    /// unlearned-class replay every report on a gesture is wrong).
    package var rejected: Int { missed }

    /// One line per partition and a total, for the CLI.
    package var text: String {
        if partitions.contains(where: { $0.unlearned != nil }) { return unlearnedText }
        var s = noise > 0 ? "still frames with Gaussian noise, \(noise) of each channel's standard deviation\n" : ""
        s += "seed  still  gestures  correct  missed  wrong  repeated  false    whole  \n"
        for p in partitions {
            s += "\(p.seed)".padding(toLength: 6, withPad: " ", startingAt: 0)
                + (p.motionFrames > 0 ? "motion" : p.still.rawValue).padding(toLength: 7, withPad: " ", startingAt: 0)
                + [p.gestures, p.correct, p.missed, p.wrongLabel, p.repeated, p.falseDetections, p.wholeCorrect]
                    .map { "\($0)".padding(toLength: 9, withPad: " ", startingAt: 0) }.joined()
                + (p.perfect ? "perfect" : "") + "\n"
        }
        s += "total: \(correct) of \(gestures) reported once with the right label; \(missed) missed, "
            + "\(wrongLabel) wrong label, \(repeated) repeated, \(falseDetections) false detections; "
            + "\(perfectPartitions) of \(partitions.count) partitions perfect\n"
            + "classified whole at their true boundaries (column whole): \(wholeCorrect) of \(gestures) named rightly\n"
        if let perMinute = falsePerMinute { s += motionLine(perMinute) }
        if let l = latencyPercentiles {
            s += "latency from a gesture's end to its report: median \(l.median) frames, 95th percentile \(l.p95)"
                + (motionRate.map { String(format: " (%.2f s, %.2f s)", Double(l.median) / $0, Double(l.p95) / $0) } ?? "") + "\n"
        }
        let classes = perClass
        guard classes.values.contains(where: { $0.correct < $0.gestures || $0.repeated > 0 }) else { return s }
        let width = max(5, classes.keys.map(\.count).max() ?? 0) + 2
        s += "per class:\n" + "class".padding(toLength: width, withPad: " ", startingAt: 0)
            + "gestures  correct  missed   wrong    repeated  wrong ones named\n"
        for label in classes.keys.sorted() {
            let t = classes[label]!
            s += label.padding(toLength: width, withPad: " ", startingAt: 0)
                + [t.gestures, t.correct, t.missed, t.wrongLabel, t.repeated]
                    .map { "\($0)".padding(toLength: 9, withPad: " ", startingAt: 0) }.joined()
                + " " + Self.names(t.namedAs)
                + "\n"
        }
        return s
    }

    /// Every gesture not reported once with its own label (in an unlearned-class replay: every one
    /// reported at all) and every false detection, one line each, partition by partition: the
    /// stream frames to look at, what was reported over them and what the pipeline names the
    /// gesture classified whole.
    package var traceText: String {
        var s = ""
        for p in partitions {
            let tag = "seed \(p.seed) \(p.still.rawValue)" + (p.unlearned.map { " unlearned \($0)" } ?? "")
            for (i, o) in p.outcomes.enumerated() where p.unlearned == nil ? !o.isCorrect : !o.reported.isEmpty {
                let reported = o.reported.isEmpty ? "missed" : "reported " + zip(o.reported, o.reportedFrames)
                    .map { "\($0) at \($1.lowerBound)-\($1.upperBound)" }.joined(separator: ", ")
                if let label = o.label {
                    s += "\(tag): gesture \(i + 1) of \(p.gestures), \(label), frames \(o.start)-\(o.end): \(reported)"
                        + (o.whole.map { "; classified whole: \($0)" } ?? "") + "\n"
                } else {
                    s += "\(tag): false detection, frames \(o.start)-\(o.end): \(reported)\n"
                }
            }
        }
        return s.isEmpty ? "nothing to trace: every gesture as it should be (reported once with its label, or rejected if unlearned), no false detection\n" : s
    }

    /// The false reports' rate over the minutes of everyday motion streamed.
    func motionLine(_ perMinute: Double) -> String {
        let minutes = Double(partitions.reduce(0) { $0 + $1.motionFrames }) / (motionRate ?? 1) / 60
        return "everyday motion: " + String(format: "%.1f minutes, %.2f false reports per minute", minutes, perMinute) + "\n"
    }

    /// Counted names, most frequent first: "Walking 3, Running 1".
    static func names(_ counts: [String: Int]) -> String {
        counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }

    /// One line per class left out and still kind, and a total.
    var unlearnedText: String {
        var s = noise > 0 ? "still frames with Gaussian noise, \(noise) of each channel's standard deviation\n" : ""
        let width = max(9, partitions.compactMap { $0.unlearned?.count }.max() ?? 0) + 2
        s += "unlearned".padding(toLength: width, withPad: " ", startingAt: 0) + "still  gestures  rejected  reported  false    reported as\n"
        for p in partitions {
            let named = p.perClass.values.reduce(into: [String: Int]()) { $0.merge($1.namedAs, uniquingKeysWith: +) }
            s += (p.unlearned ?? "").padding(toLength: width, withPad: " ", startingAt: 0)
                + p.still.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)
                + [p.gestures, p.missed, p.wrongLabel, p.falseDetections]
                    .map { "\($0)".padding(toLength: 10, withPad: " ", startingAt: 0) }.joined()
                + Self.names(named)
                + "\n"
        }
        s += "total: \(rejected) of \(gestures) gestures of unlearned classes rejected; \(wrongLabel) reported as a learned "
            + "class (\(repeated) more reports on them), \(falseDetections) false detections\n"
        if let perMinute = falsePerMinute { s += motionLine(perMinute) }
        return s
    }
}

extension Evaluation {
    /// How a pipeline rejects gestures it never learned: for each class in turn, the pipeline is
    /// trained on the other classes' examples, and every example of the class left out is streamed
    /// (in a seeded shuffled order) as ``spottingReplay(_:on:holdout:partitions:gap:seed:still:noise:)``
    /// streams held-out gestures, with `gap` still frames before, between and after them. Nothing
    /// should be reported: each gesture with no detection is rejected, one with a detection is
    /// reported as a learned class (counted as `wrongLabel`, its extra detections as `repeated`).
    /// One partition per class and still kind, its ``SpottingReplayReport/Partition/unlearned``
    /// naming the class.
    /// - Throws: when the data has fewer than two classes, `noise` is negative or not finite, or
    ///   a trained pipeline cannot decide live.
    /// - Complexity: one training per class plus one ``Recognizer/push(_:)`` per streamed frame.
    package static func unlearnedReplay(_ spec: PipelineSpec, on data: Dataset, gap: Int = 200, seed: UInt64 = 0,
                                       still: [StillFrames] = [.last], noise: Float = 0) throws -> SpottingReplayReport {
        guard gap >= 0 else { throw GestureKitError("gap must be non-negative", field: "gap") }
        let noiseLevels = try stillNoise(noise, of: data)
        let labelled = data.examples.filter { $0.label != nil && $0.series.frameCount > 0 }
        let classes = Dataset.classOrder(labelled.compactMap(\.label))
        guard classes.count >= 2 else {
            throw GestureKitError("an unlearned-class replay needs at least two classes (one to leave out, one to learn)",
                                  file: data.source, field: "classes")
        }
        var report = SpottingReplayReport(partitions: [], holdout: 0, gap: gap, noise: noise)
        for left in classes {
            var rng = SeededGenerator(seed: seed)
            let known = Dataset(examples: labelled.filter { $0.label != left }, channelNames: data.channelNames,
                                sampleRate: data.sampleRate, source: data.source)
            let unknown = labelled.filter { $0.label == left }.shuffled(using: &rng)
            let pipeline = try trainedLive(spec, on: known)
            for mode in still {
                var p = try replay(pipeline, unknown, gap: gap, still: mode, seed: seed, noise: noiseLevels)
                p.unlearned = left
                report.partitions.append(p)
            }
        }
        return report
    }

    /// Replays isolated gestures as a live stream: for each partition, `holdout` examples of every
    /// class are held out (seeded shuffle), a pipeline is trained on the rest, and the held-out
    /// examples are streamed in a shuffled order through ``Pipeline/recognizer()`` with `gap`
    /// still frames before, between and after them. Each detection is charged to the gesture it
    /// overlaps most (none: a false detection).
    ///
    /// Partition `p` uses seed `seed + p` for both the split and the order. `noise` adds Gaussian
    /// noise to every still frame, that fraction of each channel's standard deviation over the data,
    /// since a real sensor at rest is never exactly constant (seeded from the partition's seed).
    /// - Throws: when the data has no labelled examples, a class has no more than `holdout`
    ///   examples, `noise` is negative or not finite, or the trained pipeline cannot decide live.
    /// - Complexity: `partitions` trainings plus one ``Recognizer/push(_:)`` per streamed frame.
    package static func spottingReplay(_ spec: PipelineSpec, on data: Dataset, holdout: Int = 3, partitions: Int = 5,
                                      gap: Int = 200, seed: UInt64 = 0, still: [StillFrames] = [.last],
                                      noise: Float = 0) throws -> SpottingReplayReport {
        guard holdout >= 1, partitions >= 1, gap >= 0 else {
            throw GestureKitError("holdout and partitions must be positive, gap non-negative", field: "holdout")
        }
        let noiseLevels = try stillNoise(noise, of: data)
        let members = try classMembers(data, holdout: holdout)
        var report = SpottingReplayReport(partitions: [], holdout: holdout, gap: gap, noise: noise)
        for p in 0..<partitions {
            let s = seed &+ UInt64(p)
            let (train, held) = partition(members, holdout: holdout, seed: s)
            let pipeline = try trainedLive(spec, on: data.subset(train.sorted()))
            for mode in still {
                report.partitions.append(try replay(pipeline, held.map { data.examples[$0] }, gap: gap, still: mode, seed: s,
                                                    noise: noiseLevels))
            }
        }
        return report
    }

    /// Example indices per class, refused when a class has no more than `holdout` to train on.
    static func classMembers(_ data: Dataset, holdout: Int) throws -> [[Int]] {
        let classes = data.classes
        var members = [[Int]](repeating: [], count: classes.count)
        for (i, e) in data.examples.enumerated() {
            if let l = e.label, let c = classes.firstIndex(of: l), e.series.frameCount > 0 { members[c].append(i) }
        }
        for (c, m) in members.enumerated() where m.count <= holdout {
            throw GestureKitError("class \(classes[c]) has \(m.count) examples: need more than --holdout \(holdout) to train on the rest",
                                  file: data.source, field: "holdout")
        }
        return members
    }

    /// One partition of the replay: `holdout` examples of each class (`members`: example indices per
    /// class) held out at random for `seed`, shuffled into the order they are streamed in.
    static func partition(_ members: [[Int]], holdout: Int, seed: UInt64) -> (train: [Int], held: [Int]) {
        var rng = SeededGenerator(seed: seed)
        var train: [Int] = [], held: [Int] = []
        for m in members {
            let shuffled = m.shuffled(using: &rng)
            held += shuffled.prefix(holdout)
            train += shuffled.dropFirst(holdout)
        }
        held.shuffle(using: &rng)
        return (train, held)
    }

    /// Per channel, the standard deviation of the Gaussian noise on still frames: `noise` times the
    /// channel's spread over `data` (empty for none).
    static func stillNoise(_ noise: Float, of data: Dataset) throws -> [Float] {
        guard noise.isFinite, noise >= 0 else {
            throw GestureKitError("still-frame noise must be a non-negative fraction of each channel's spread", field: "noise")
        }
        return noise > 0 ? channelSpread(data).map { $0 * noise } : []
    }

    /// `spec` trained on `data`, refused unless it decides while a stream runs.
    static func trainedLive(_ spec: PipelineSpec, on data: Dataset, negatives: [TimeSeries] = []) throws -> Pipeline {
        let pipeline = try Pipeline.train(spec, on: data, negatives: negatives)
        guard pipeline.decidesLive else {
            throw GestureKitError("the pipeline classifies whole examples and cannot decide while a stream runs", field: "classifier")
        }
        return pipeline
    }

    /// Each channel's standard deviation over every frame of the data (non-finite samples skipped,
    /// so one bad sample does not make every still frame not a number).
    static func channelSpread(_ data: Dataset) -> [Float] {
        guard let c = data.examples.first?.series.channelCount else { return [] }
        var sum = [Double](repeating: 0, count: c), squares = sum, n = sum
        for e in data.examples where e.series.channelCount == c {
            for (i, v) in e.series.values.enumerated() where v.isFinite {
                sum[i % c] += Double(v)
                squares[i % c] += Double(v) * Double(v)
                n[i % c] += 1
            }
        }
        return (0..<c).map { j in
            let k = max(n[j], 1), mean = sum[j] / k
            return Float(max(0, squares[j] / k - mean * mean).squareRoot())
        }
    }

    /// `noise`: per channel, the standard deviation of the Gaussian noise on still frames (empty: none).
    /// `fill`: what lies before, between and after the gestures instead of still frames, given the
    /// frames on either side (`nil` at the stream's ends).
    static func replay(_ pipeline: Pipeline, _ gestures: [Example], gap: Int, still: StillFrames, seed: UInt64,
                       noise: [Float] = [],
                       fill: ((ArraySlice<Float>?, ArraySlice<Float>?) -> [Float])? = nil) throws -> SpottingReplayReport.Partition {
        let c = pipeline.channelCount
        var frames: [Float] = []
        var spans: [(range: ClosedRange<Int>, label: String)] = []
        // The same noise for every kind of still frame, so the kinds differ only in what is held.
        var rng = SeededGenerator(seed: seed ^ 0x5EED_0F_5711)
        func hold(_ frame: ArraySlice<Float>) {
            for _ in 0..<gap {
                let held = still == .zeros ? [Float](repeating: 0, count: c) : Array(frame)
                frames += noise.count == c ? held.indices.map { held[$0] + noise[$0] * rng.nextGaussian() } : held
            }
        }
        var motionFrames = 0
        for (k, g) in gestures.enumerated() {
            let s = g.series
            guard s.channelCount == c else {
                throw GestureKitError("example has \(s.channelCount) channels, the pipeline expects \(c)", field: "channels")
            }
            let previousLast = k > 0 ? gestures[k - 1].series.frame(gestures[k - 1].series.frameCount - 1) : s.frame(0)
            if let fill {
                let between = fill(k > 0 ? previousLast : nil, s.frame(0))
                frames += between
                motionFrames += between.count / c
            } else {
                hold(still == .first ? s.frame(0) : previousLast)
            }
            let begin = frames.count / c
            frames += s.values
            spans.append((begin...(frames.count / c - 1), g.label ?? ""))
        }
        if let g = gestures.last {
            if let fill {
                let after = fill(g.series.frame(g.series.frameCount - 1), nil)
                frames += after
                motionFrames += after.count / c
            } else {
                hold(g.series.frame(g.series.frameCount - 1))
            }
        }

        var live = pipeline.recognizer()
        var detections: [Detection] = []
        var reportedAt: [Int] = []
        try frames.withUnsafeBufferPointer { all in
            for f in 0..<(all.count / c) {
                if let d = try live.push(UnsafeBufferPointer(rebasing: all[(f * c)..<((f + 1) * c)])) {
                    detections.append(d)
                    reportedAt.append(f)
                }
            }
        }
        let flushed = live.flush()
        detections += flushed
        reportedAt += flushed.map { _ in frames.count / c }
        var result = SpottingReplayReport.Partition(seed: seed, still: still)
        result.motionFrames = motionFrames
        var charged = [[Detection]](repeating: [], count: spans.count)
        var chargedAt = [[Int]](repeating: [], count: spans.count)
        var strays: [SpottingReplayReport.Outcome] = []
        for (d, at) in zip(detections, reportedAt) {
            let overlaps = spans.map { $0.range.overlapCount(d.start, d.end) }
            guard let best = overlaps.indices.max(by: { overlaps[$0] < overlaps[$1] }), overlaps[best] > 0 else {
                result.falseDetections += 1
                strays.append(.init(label: nil, start: d.start, end: d.end, reported: [d.label ?? "null"],
                                    reportedFrames: [d.start...d.end]))
                continue
            }
            charged[best].append(d)
            chargedAt[best].append(at)
        }
        for (i, ds) in charged.enumerated() {
            var t = SpottingReplayReport.ClassTally(gestures: 1)
            if let first = ds.first {
                t.repeated = ds.count - 1
                if first.label != spans[i].label {
                    t.wrongLabel = 1
                    t.namedAs[first.label ?? "null"] = 1
                } else if ds.count == 1 {
                    t.correct = 1
                }
            } else {
                t.missed = 1
            }
            result.add(t, of: spans[i].label)
            result.outcomes.append(.init(label: spans[i].label, start: spans[i].range.lowerBound, end: spans[i].range.upperBound,
                                         reported: ds.map { $0.label ?? "null" }, reportedFrames: ds.map { $0.start...$0.end },
                                         reportedAt: chargedAt[i]))
        }
        // A gesture of a class the pipeline never learned cannot be right: not classified (unlearned replays).
        for (i, g) in gestures.enumerated() where g.label.map(pipeline.classes.contains) == true {
            let named = try pipeline.label(of: pipeline.predict(g.series))
            result.outcomes[i].whole = named ?? "null"
            if named == g.label { result.wholeCorrect += 1 }
        }
        result.outcomes += strays
        return result
    }
}
