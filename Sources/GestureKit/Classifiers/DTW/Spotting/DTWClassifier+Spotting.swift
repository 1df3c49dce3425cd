/// DTW pipelines run live by spotting: subsequence DTW of every template against the stream.
extension DTWClassifier: SpottingClassifier, NegativeLearning {
    /// `nil` unless the model keeps the stream's time scale and units and has spotting thresholds (see
    /// ``DTWSpotter/init(classifier:)``).
    public func makeSpotter() -> (any Spotter)? {
        if decoder == .segmental, canSpot, let model, let segmental = model.segmental {
            return SegmentalSpotter(model: model, segmental: segmental,
                                    penalty: insertionPenalty ?? SegmentalSpotter.defaultPenalty)
        }
        guard let inner = try? DTWSpotter(classifier: self) else { return nil }
        return DTWSpotterStage(inner: inner, classifier: self)
    }
}

/// ``DTWSpotter`` as a pipeline ``Spotter``, in two stages. The spotter proposes a stretch of the
/// stream (a subsequence match within its class's threshold, final once nothing overlapping can beat
/// it); the whole-example classifier then labels that stretch (the variant and band the pipeline
/// trained, every template), which tells close classes apart better than the one template whose
/// subsequence matched cheapest. The stretch is the spotter's: frames the classifier sees are
/// frames the spotter already matched (causal). A match that covers less than ``coverFraction`` of
/// the frames that moved in the stretch of movement around it is a fragment of that gesture, and
/// those frames are labelled instead (when they last no longer than one performance of the class
/// named), so a report waits for its stretch to close (a quarter of a typical performance of
/// stillness after it), and comes at most 2 longest templates after the match began.
///
/// A second chance for gestures whose subsequence match missed its threshold (close classes make
/// those thresholds tight: RacketSports' swings, UWave): a ``MotionSegmenter`` finds each stretch
/// of movement between still stretches, and one that no report overlaps by ``patience`` longest
/// templates after its end, at a plausible length, is labelled by the classifier as a whole example
/// (or, refused, its frames that moved) and reported if it lies within ``accept`` of its class
/// (whole-example null rejection at the same K as the spotting thresholds). Gestures performed
/// back to back form one long stretch: there the runs of moving frames no report covers get the
/// same second chance (``fillGaps(_:)``), and a run refused whole is cut into gestures
/// (``split(_:)``); while such a stretch stays open, its runs get that chance as each report
/// comes (``fillOpen(before:)``) and a fragment is named by the window around it
/// (``widened(_:)``). A match that barely moved (see ``stillFraction``), that runs on from a
/// report over the held frames after it (``shareFraction``), or that pauses far
/// longer than its class's performances do (``pauseFactor``: the end of one gesture, the stillness
/// after it and the start of the next), is dropped, which leaves its stretches to the second chance.
///
/// The prediction's confidence is how far inside its class's spotting threshold the subsequence match
/// fell (1 at distance 0, 0 at the threshold); its scores are the classifier's on the stretch. A
/// second-chance report is the classifier's prediction on the moving stretch.
struct DTWSpotterStage: Spotter {
    var inner: DTWSpotter
    let classifier: DTWClassifier
    /// The last frames pushed, enough to hold any match when it becomes final (see ``capacity``).
    var ring: [Float]
    let capacity: Int
    var frames = 0

    /// A match is longer than ``DTWSpotter/maxWarp`` times the longest template at most and becomes
    /// final at most that long after the paths that could beat it started, so four such lengths hold
    /// every match when it is reported.
    static func capacity(maxLength: Int) -> Int { 4 * DTWSpotter.maxWarp * max(maxLength, 1) + 1 }

    /// Stretches of movement, for the second chance below; `nil` when the templates do not move.
    var motion: MotionSegmenter?
    /// A moving stretch no match overlapped, labelled by the classifier, reported at `deadline`
    /// unless a match overlaps it first.
    var pending: [(range: ClosedRange<Int>, prediction: Prediction, deadline: Int)] = []
    /// Spans of the recent reports, each with the class named when it is a spotter match as
    /// accepted (`nil` for second chances, relabelled stretches and widened windows).
    var reported: [(span: ClosedRange<Int>, match: Int?)] = []
    let shortest: Int
    let longest: Int
    /// Per class, the most a second-chance stretch may lie from its nearest template: GRT's
    /// whole-example null rejection at the spotter's K (`mean + K * std` of the class's leave-one-out
    /// distances), on even when the pipeline's whole-example rejection is off. Without it, letters of
    /// a class the pipeline never learned were reported as the others (39 of 45).
    let accept: [Float]
    /// Per class, the mean movement of its stillest template.
    let stillest: [Float]
    /// Per class, the least share of its templates' frames that moved half the segmenter's floor
    /// or more (the measure of ``movingShare(_:_:excluding:)``); empty without a segmenter.
    var leastShares: [Float] = []
    /// A match that overlaps an earlier report, or begins within the segmenter's smoothing after
    /// one ends, and moves on less than this fraction of its class's ``leastShares`` is not
    /// reported: it is that gesture's last frames and the stillness after them, though the gesture's
    /// end lifts its mean movement over the ``stillFraction`` bar (BasicMotions' Standing matched
    /// after a walk's last steps: 13 repeats in 360). Such a match away from every report is kept:
    /// it can be the only match on a gesture, which ``settle(_:)`` then names by its stretch. Chosen
    /// on the spotting-replay tuning family (aeon's sets seeds 0-4, letters 0-19, the others 0-9,
    /// all still kinds; with 200 still frames / back to back / 1 % noise on the still frames):
    /// off BasicMotions 333 / 306 / 167 of 360 / 360 / 180, UWave with noise 327 of 360; 0.5
    /// BasicMotions 340 / 306 / 170 (repeats 13 -> 0 with 200 still frames), UWave 328, every other
    /// set unchanged; the cut sets (5 / 6 / 8 a class, tuning cuts) 3137 -> 3162 of 3780; unlearned
    /// gestures rejected unchanged. The fraction without the report condition, at 0.25 / 0.4 / 0.5 /
    /// 0.6 / 0.75: BasicMotions 340 / 340 / 340 / 339 / 337 with 200 still frames, Epilepsy back to
    /// back 282 at most 0.6 and 273 at 0.75; at 0.5 the cut sets 3172, but it dropped a gesture's
    /// only match where first differences were off (the test `aLoneStretchIsLabelledByTheFramesThatMoved`).
    static let shareFraction: Float = 0.5
    /// A match that moved less than this fraction of its class's ``stillest`` is not reported: it
    /// lies mostly on frames held after a gesture (BasicMotions' Standing matched after every
    /// activity). Chosen on the spotting-replay tuning seeds (last / first / zero still frames, of
    /// 360): 0 gave 319 / 319 / 310, 0.5 325 (last), 0.75 330 / 330 / 326, 1 331 / 331 / 332;
    /// 1.25 and 1.5 lost letters (169, 119 of 180). 0.75 keeps a margin below that edge.
    var stillFraction: Float = 0.75
    /// A match under ``stillFraction`` is kept when at least this share of its frames move (above
    /// half the segmenter's floor in force) and it moves at least ``steadyFraction`` of its class's
    /// ``stillest``: held frames do not move at all, while a class performed almost still
    /// (BasicMotions' Standing) can be performed stiller than every template of it, moving a little
    /// on every frame. A match that runs on from a gesture over held frames moves on few of its
    /// frames. Chosen on the spotting-replay tuning seeds (BasicMotions 0-9, all still kinds; the
    /// full family unchanged elsewhere): off 327 / 300 / 165 of 360 / 360 / 180 (200 still frames,
    /// back to back, 1 % noise on the still frames); share 0.6 333 / 312 / 163 (repeats 13 -> 16);
    /// 0.7 333 / 312 / 164; 0.8 and 0.9 333 / 306 / 167; 0.95 no change. Unlearned gestures
    /// rejected (`--unlearned`) at 0.9: JapaneseVowels 308 -> 299 of 810, RacketSports 20 -> 17 of
    /// 453, the rest unchanged (at ``steadyFraction`` 0.25: BasicMotions 70 -> 66 of 120 too).
    var steadyShare: Float = 0.9
    /// See ``steadyShare``: 0.5 and 0.25 gave the same held-out counts.
    var steadyFraction: Float = 0.5
    /// Whether that movement leaves out frames an earlier report covers, so a match that runs on
    /// from a reported gesture over the still frames after it is judged on its own movement. On the
    /// tuning seeds (with the end-of-stream flush): 335 / 335 / 329 without, 339 / 339 / 331 with.
    var ownMovement = true
    /// A report covering less than this fraction of the frames that moved in the stretch around it
    /// is a fragment of the gesture: the whole of them is labelled instead (see ``settle(_:)``). On
    /// the tuning seeds (last / first / zeros): 0 gave 339 / 339 / 331, 0.5 340 / 342 / 335, 0.65
    /// 343 / 348 / 343, 0.8 343 / 345 / 342, 0.9 343 / - / 344, 1 345 / - / 344. Measured against
    /// the smoothed stretch (still frames at each end) instead, 0.6 and above relabelled whole
    /// letters by their padding (151 of 180 at 0.6 with zeros held).
    var coverFraction: Float = 0.65
    /// A fragment's stretch (``coverFraction``) is labelled instead only when it lies within this many
    /// times its class's ``accept``: with zeros held between gestures, the stretch takes in the jump
    /// to and from them and lies far from every class, nearest to none in particular (GRT's
    /// HMMTrainingData with 3 % noise on the held zeros, seeds 0 and 3: 8 relabels at 13 to 84 times
    /// the gate, 6 of them wrong; UWave, noiseless, seeds 0-2: the right relabels at most 1.5 times it).
    /// Chosen on the spotting-replay tuning seeds (letters 0-19, the other four sets 0-9, all still
    /// kinds, of 2340; noise 0 / 1 % / 3 %): off 2140 / 2144 / 2122; 1: 2129 / 2131 / 2113 (UWave
    /// lost 10); 2 and 4: 2140 / 2144 / 2125 (letters 537 -> 540 at 3 %); HMMTrainingData seeds
    /// 0-9, of 450: 450 / 450 / 448 with either. 4 keeps room above the right relabels.
    static let relabelReach: Float = 4

    /// Per class, how long its performances pause: the 90th percentile of its templates' longest
    /// pause (see ``templatePauses(_:floor:lag:)``; one odd template must not excuse every pause).
    var pauses: [Int] = []
    /// A match that pauses longer than this many times its class's ``pauses`` (plus the segmenter's
    /// smoothing) spans the end of one gesture, the stillness after it and the start of the next:
    /// it is not reported, and each gesture's own moving stretch goes to the second chance. Chosen
    /// on the spotting-replay tuning seeds (letters 0-19, the other four sets 0-9; last / first /
    /// zero still frames, of 780): off 703 / 720 / 713; the longest pause of the class (not its
    /// 90th percentile) at 2: 708 / 720 / 718; the 90th percentile at 1 or 2: 712 / 719-720 / 720,
    /// the median at 1 or 2: 712 / 718-719 / 718-720. Back to back (`--gap 0`): 586 either way.
    /// 2 (``DTWSpotter/maxWarp``: a gesture performed twice as slowly pauses twice as long) leaves
    /// the most room to real pauses among the ties. (Measured with movement from the frame before,
    /// before ``motionLag(typical:)``.)
    var pauseFactor: Float = Float(DTWSpotter.maxWarp)
    /// The least share of a typical performance (of the class it is labelled as) a run of moving
    /// frames no report covers must last to be labelled in a stretch that has reports
    /// (``fillGaps(_:)``; `.infinity`: never). Chosen on the spotting-replay tuning seeds (letters
    /// 0-19, the other four sets 0-9, of 2340), back to back (`--gap 0`) and with 200 still frames
    /// (noiseless / 3 % noise, all still kinds): off 1764 and 2139 / 2123; 0.5: 1785; 0.75: 1824
    /// and 2140 / 2122 (1 % noise: 2144 either way); 1: 1809. Shorter runs are the rest of a
    /// gesture whose match covered most of it.
    var fillFraction: Float = 0.75
    /// Whether a moving stretch that one spotter match alone claims, and that lasts no longer than
    /// one performance of the class it names (``DTWSpotter/continuationLength`` typical ones), holds
    /// that gesture only: the runs the match left out are its start or end, given no second chance
    /// (``fillGaps(_:)``). PickupGestureWiimoteZ's match often began after a still moment early in
    /// the gesture, and the run before it was reported as a short class. Tuning replays (aeon's
    /// sets seeds 0-4, letters 0-19, the others 0-9, all still kinds): PickupGestureWiimoteZ 214 ->
    /// 221 of 450 (repeats 24 -> 16), back to back 108 -> 111, with 1 % noise on the still frames
    /// 72 -> 73 of 150; every other set, the cut sets (3190 of 3780) and the unlearned gestures
    /// rejected unchanged.
    var oneGestureStretches = true
    /// Whether a stretch shorter than a typical performance of the class it is named is labelled by
    /// the typical-length window around it nearest a template (``nearestWindow(_:_:)``). Tuning
    /// replays, seeds 0-4 (aeon's gesture sets; all still kinds): GunPoint 54 -> 60 of 90,
    /// JapaneseVowels 365 -> 367 of 405, PickupGestureWiimoteZ 202 -> 201 of 450; the full-set family
    /// (letters seeds 0-19, the others 0-9, all still kinds) 2618 -> 2621 of 2790 (UWave 627 -> 631,
    /// RacketSports 331 -> 330, the rest unchanged); back to back (`--gap 0`) 645 -> 649 of 780.
    var typicalWindows = true
    /// The most windows ``nearestWindow(_:_:)`` labels per stretch: UWave's 315-frame gestures can
    /// leave a hundred offsets, and labelling every one gave the same tuning counts for 2.6 times
    /// the replay time.
    static let windowPositions = 16
    /// Whether a lone moving stretch the gate refused is labelled again by its first through last
    /// frame that moved (``moved(_:)``), without the still frames the smoothed movement takes in at
    /// each end. Those are the level held before the gesture: after a jump to the gesture's own
    /// starting level they cost more than the whole-example gate allows (GunPoint's right labels
    /// lay at twice it). Only as a fallback: labelled by its moved frames alone, the start of short
    /// swings was cut off (cut-set tuning: Epilepsy 505 -> 487, RacketSports 472 -> 460 of 720).
    /// Chosen on the spotting-replay tuning sets (see the README's spotting table): the full-set
    /// family, the cut sets 4066 -> 4077 of 5040, GunPoint seeds 0-4 46 -> 54 of 90.
    var labelMovedFrames = true
    /// Whether, in a moving stretch already longer than one gesture can last, the runs before
    /// each new report get their second chance at once (``fillOpen(before:)``) instead of when the
    /// stretch closes: gestures back to back may never close it, and the ring forgets its start.
    /// Tuning replays back to back: the full-set family 2322 -> 2349 of 2790 (RacketSports 237 ->
    /// 255, UWave 546 -> 552), unlearned UWave gestures rejected 69 -> 63 of 360 (the other sets
    /// unchanged); with 200 still frames and on the cut sets, unchanged.
    var fillOpenStretch = true
    /// Whether a fragment whose stretch stays open past its deadline is named and spanned by the
    /// window of one typical performance around it (``widened(_:)``). Tuning replays back to back:
    /// the full-set family 2349 -> 2385 of 2790 (UWave 552 -> 579, BasicMotions 282 -> 291,
    /// RacketSports 255 -> 261, Epilepsy 270 -> 264), unlearned gestures rejected UWave 63 -> 72 of
    /// 360 and Epilepsy 186 -> 192 of 411 (the others unchanged); with 200 still frames and on
    /// the cut sets, unchanged.
    var widenFragments = true
    /// Whether a run of moving frames refused as one gesture is cut into gestures back to back
    /// (``split(_:)``): two gestures with no stillness between them form one run, too long for
    /// one performance and far from every class. Tuning replays back to back (`--gap 0`): the
    /// full-set family 2298 -> 2322 of 2790 (RacketSports 225 -> 237), GunPoint seeds 0-4 24 -> 48
    /// of 90; with 200 still frames, noiseless, with 3 % noise and the cut sets, unchanged.
    var splitRuns = true
    /// The longest run ``split(_:)`` cuts, in longest templates (the ring holds eight).
    static let splitLimit = 6
    /// Each piece of a cut run lies within this fraction of its class's ``accept``: a search over
    /// many cuttings finds pieces that fit a close class by chance. Chosen on the tuning replays
    /// back to back, held-out gestures reported rightly (full-set family and GunPoint) against
    /// unlearned ones rejected (`--unlearned --gap 0`): 1 gave +63 and RacketSports' unlearned
    /// swings 306 -> 168 of 453 rejected; 0.75 +63 and 207; 0.5 +48 and 306 (every other set's
    /// unlearned count unchanged at each).
    static let splitReach: Float = 0.5
    /// Spotter reports waiting for the moving stretch around them to close, until `deadline`.
    var waiting: [(match: SpotMatch, deadline: Int)] = []
    /// Reports ready, returned one a frame.
    var outbox: [SpotMatch] = []
    /// The moving stretches closed last: a match can become final after its stretch closed.
    var closed: [ClosedRange<Int>] = []
    /// The last frame of the open stretch whose runs had their second chance (``fillOpen(before:)``).
    var filledThrough = -1

    /// `lag` overrides ``motionLag(typical:)``.
    init(inner: DTWSpotter, classifier: DTWClassifier, lag: Int? = nil) {
        self.inner = inner
        self.classifier = classifier
        let maxLength = inner.lengths.max() ?? 0
        capacity = Self.capacity(maxLength: maxLength)
        ring = [Float](repeating: 0, count: capacity * inner.channels)
        shortest = inner.lengths.min() ?? 0
        longest = maxLength
        var rejection = classifier.model?.rejection ?? NullRejection(k: nil, classCount: 0)
        rejection.k = classifier.nullRejection ?? SpottingCalibration.defaultK
        accept = rejection.thresholds
        guard let model = classifier.model else {
            stillest = []
            return
        }
        let lag = lag ?? Self.motionLag(typical: inner.typicalLengths)
        let motions = Self.templateMotions(model, lag: lag)
        stillest = Self.perClass(model, motions) { $0.min() ?? 0 }
        motion = Self.segmenter(motions: motions, channels: model.channels, typical: inner.typicalLengths, lag: lag)
        if let m = motion {
            leastShares = Self.perClass(model, Self.templateShares(model, floor: 0.5 * m.floor, lag: lag)) { $0.min() ?? 0 }
        }
        pauses = Self.perClass(model, Self.templatePauses(model, floor: motion?.floor ?? 0, lag: lag)) { own in
            own.isEmpty ? 0 : own.sorted()[Int(Double(own.count - 1) * 0.9)]
        }
        // A stretch must not close inside a pause the gestures themselves make: GunPoint's arm held
        // up to point (39-70 frames, hang 37) cut each performance in two, too short to be labelled.
        if let m = motion, let pause = pauses.max(), pause > m.hang {
            motion = Self.segmenter(motions: motions, channels: model.channels, typical: inner.typicalLengths, lag: lag,
                                    hangAtLeast: pause)
        }
    }

    /// `measure` of each template (its channel-major values and frame count); `empty` for a
    /// template the values do not hold.
    static func perTemplate<T>(_ model: DTWClassifier.Model, empty: T,
                               _ measure: (UnsafeBufferPointer<Float>, Int) -> T) -> [T] {
        var at = 0
        return model.templates.withUnsafeBufferPointer { t in
            model.lengths.map { n in
                defer { at += n * model.channels }
                guard at + n * model.channels <= t.count else { return empty }
                return measure(UnsafeBufferPointer(rebasing: t[at..<(at + n * model.channels)]), n)
            }
        }
    }

    /// Per class, `combine` of its templates' `values`.
    static func perClass<T>(_ model: DTWClassifier.Model, _ values: [T], _ combine: ([T]) -> T) -> [T] {
        (0..<model.classes.count).map { c in combine(model.labels.indices.filter { model.labels[$0] == c }.map { values[$0] }) }
    }

    /// Each template's longest pause: the longest run of frames that moved (over `lag` frames) less
    /// than `floor` between its first and last frame that moved more.
    static func templatePauses(_ model: DTWClassifier.Model, floor: Float, lag: Int) -> [Int] {
        perTemplateChange(model, lag: lag, empty: 0) { n, change in
            Self.longestPause(frames: 1..<max(n, 1), floor: floor, change: change)
        }
    }

    /// `measure` of each template given its frame count and the movement at each of its frames
    /// (over `lag` frames, ``MotionSegmenter/change(_:lag:_:_:)``); `empty` for a template the
    /// store does not hold whole.
    static func perTemplateChange<T>(_ model: DTWClassifier.Model, lag: Int, empty: T,
                                     _ measure: (Int, (Int) -> Double) -> T) -> [T] {
        perTemplate(model, empty: empty) { x, n in
            measure(n) { f in MotionSegmenter.change(model.channels, lag: lag, f) { x[$0 * n + f] - x[$0 * n + $1] } }
        }
    }

    /// Each template's share of frames (after the first) that moved (over `lag` frames) `floor` or more.
    static func templateShares(_ model: DTWClassifier.Model, floor: Float, lag: Int) -> [Float] {
        perTemplateChange(model, lag: lag, empty: 0) { n, change in
            n > 1 ? Float((1..<n).filter { change($0) >= Double(floor) }.count) / Float(n - 1) : 0
        }
    }

    /// The longest run of frames in `frames` whose `change` stays below `floor`, between the first
    /// and the last that reach it.
    static func longestPause(frames: Range<Int>, floor: Float, change: (Int) -> Double) -> Int {
        var longest = 0, run = 0, moved = false
        for f in frames {
            if change(f) >= Double(floor) {
                if moved { longest = max(longest, run) }
                moved = true
                run = 0
            } else {
                run += 1
            }
        }
        return longest
    }

    /// Each template's mean movement (``MotionSegmenter/meanMotion(_:frames:channels:lag:)``).
    static func templateMotions(_ model: DTWClassifier.Model, lag: Int) -> [Float] {
        perTemplate(model, empty: 0) { MotionSegmenter.meanMotion($0, frames: $1, channels: model.channels, lag: lag) }
    }

    /// Frames the segmenter averages movement over: an eighth of the shortest typical performance.
    static func smoothing(typical: [Int]) -> Int {
        max(2, (typical.filter { $0 > 0 }.min() ?? 0) / 8)
    }

    /// Frames over which movement is measured (``MotionSegmenter/change(_:lag:_:_:)``): half the
    /// smoothing. Frame-to-frame changes of smooth recordings (UWave's) are as small as sensor
    /// noise at rest, so with noise added to the still frames (1% and 3% of each channel's spread)
    /// the stream looked always moving: UWave, tuning seeds 0-4, 86 and 88 of 120 reported rightly,
    /// BasicMotions 34 false detections at 3%. Chosen on the tuning seeds, noiseless (letters 0-19,
    /// the other four sets 0-9, last / first / zero still frames, of 780 each) and noisy (seeds 0-4,
    /// last frame plus noise at 1% and 3%, of 690): lag 1 (the frame before) 712 / 720 / 720 and 566;
    /// half the smoothing 713 / 712 / 714 and 623 (2 false detections); the whole smoothing
    /// 713 / 696 / 721 and 623 (16).
    static func motionLag(typical: [Int]) -> Int {
        max(1, smoothing(typical: typical) / 2)
    }

    /// The segmenter for templates of mean movement `motions` (measured over `lag` frames): moving
    /// above `floorFraction` of their low movement (their 10th percentile), averaged over
    /// ``smoothing(typical:)`` frames, a stretch ending after `hangFraction` of the median typical
    /// performance without it, or after `hangAtLeast` frames when that is longer (the longest of
    /// ``pauses``: the spotting-replay tuning family and the cut sets gave the same counts with it,
    /// GunPoint seeds 0-4 40 -> 46 of 90).
    static func segmenter(motions unsorted: [Float], channels: Int, typical: [Int], lag: Int,
                          hangAtLeast: Int = 0) -> MotionSegmenter? {
        let motions = unsorted.sorted()
        let lengths = typical.filter { $0 > 0 }.sorted()
        guard !motions.isEmpty, !lengths.isEmpty else { return nil }
        let low = motions[Int(Double(motions.count - 1) * 0.1)]
        guard low > 0 else { return nil }
        let smoothing = Self.smoothing(typical: typical)
        return MotionSegmenter(channels: channels, floor: floorFraction * low, smoothing: smoothing,
                               hang: max(smoothing, hangAtLeast, Int(Double(lengths[lengths.count / 2]) * hangFraction)), lag: lag,
                               noiseFactor: noiseFactor, noiseWindow: noiseWindow * lengths[lengths.count - 1], noiseCap: low)
    }

    /// Chosen on the spotting-replay tuning seeds (letters 0-19, the other four sets 0-2; last,
    /// first and zero still frames): 0.1, 0.25 and 0.5 gave 320, 319 and 316 of 360 reported once
    /// with the right label; 0.25 for a margin over sensor noise at rest.
    static let floorFraction: Float = 0.25
    /// 0.25 and 0.5 gave the same counts.
    static let hangFraction = 0.25
    /// The segmenter's floor rises to this multiple of the stream's own noise at rest (its least
    /// average movement over the last ``noiseWindow`` longest typical performances), at most the
    /// templates' low movement: sensor noise live is not the recordings'. Chosen on the
    /// spotting-replay tuning seeds (letters 0-19, the other four sets 0-9, all still kinds, of 2340)
    /// with Gaussian noise of 0 / 1 % / 3 % of each channel's spread on the still frames, and back to
    /// back (`--gap 0`): off 2139 / 2144 / 2068 / 1749; 2: 2139 / 2144 / 2123 / 1764; 3: 2139 / 2139
    /// / 2113 / 1764 (without the sustained edges of ``moved(_:)``: off 2139 / 2153 / 2035 / 1749, 2:
    /// 2139 / 2153 / 2099 / 1764, 4: 2139 / 2138 / 2095). The gains are BasicMotions' (3 %: 254 ->
    /// 309, false detections 44 -> 23; every false one there is Standing, which noise at rest
    /// resembles) and back-to-back swings, where the floor rises with the movement around them.
    static let noiseFactor: Float = 2
    /// Not tuned: long enough to hold a still stretch between gestures performed a few seconds apart.
    static let noiseWindow = 4
    /// How long after its end, in longest templates, a moving stretch waits for a match: a match
    /// becomes final up to ``DTWSpotter/maxWarp`` template lengths after it starts. 1 reported
    /// RacketSports swings twice (the match came later); 2 and 3 tied.
    static let patience = 2

    mutating func reset() {
        inner.reset()
        frames = 0
        motion?.reset()
        pending.removeAll(keepingCapacity: true)
        reported.removeAll(keepingCapacity: true)
        waiting.removeAll(keepingCapacity: true)
        outbox.removeAll(keepingCapacity: true)
        closed.removeAll(keepingCapacity: true)
        filledThrough = -1
    }

    mutating func push(_ frame: UnsafeBufferPointer<Float>) -> SpotMatch? {
        let c = inner.channels, base = (frames % capacity) * c
        ring.withUnsafeMutableBufferPointer { r in
            for ch in 0..<c { r[base + ch] = frame[ch] }
        }
        frames += 1
        let moved = motion?.push(frame)
        if let m = inner.push(frame), let a = accepted(m) {
            hold(a, until: a.start + DTWSpotter.maxWarp * longest)
            if fillOpenStretch { fillOpen(before: a.start) }
        }
        reported.removeAll { $0.span.upperBound < frames - capacity }
        if let r = moved {
            settle(r)
            secondChance(r)
            closed.append(r)
            if closed.count > 4 { closed.removeFirst() }
        }
        while let w = waiting.first, frames - 1 >= w.deadline { outbox.append(widened(waiting.removeFirst().match)) }
        while let p = pending.first, frames - 1 >= p.deadline {
            pending.removeFirst()
            reported.append((p.range, nil))
            outbox.append(SpotMatch(prediction: p.prediction, start: p.range.lowerBound, end: p.range.upperBound))
        }
        return outbox.isEmpty ? nil : outbox.removeFirst()
    }

    /// Moving stretch `r` has closed: the reports waiting on it go out, each relabelled by the
    /// frames of `r` that moved when at least half of it lies inside `r` and it covers less than
    /// ``coverFraction`` of them (a fragment that matched cheaper than the gesture). Tuning seeds:
    /// 343 / 348 / 343 when it had to lie wholly inside, 345 / 351 / 346 with half. The spotter
    /// already found a gesture there, so no threshold applies: the classifier only names it (with
    /// the second chance's gate, on the whole smoothed stretch at 0.5, it kept some fragments'
    /// wrong labels: 340 / 344 / 339). A fragment of a stretch that another report already covers
    /// (``coverFraction`` of its moving frames) is dropped: a periodic activity (BasicMotions'
    /// walking) gave one match for the whole and one for a stretch of steps, and both were reported.
    /// Tuning seeds (of 2340; noise 0 / 1 % / 3 %): 2140 / 2144 / 2125 -> 2148 / 2147 / 2128,
    /// BasicMotions' repeats 20 -> 12 of 360 (noiseless).
    mutating func settle(_ r: ClosedRange<Int>) {
        let on = { (w: (match: SpotMatch, deadline: Int)) in w.match.end >= r.lowerBound && w.match.start <= r.upperBound }
        guard waiting.contains(where: on) else { return }
        let core = moved(r) ?? r
        for w in waiting where on(w) {
            var m = w.match
            let span = m.start...m.end
            let covers = { [coverFraction] (s: ClosedRange<Int>) in Float(s.overlapCount(core)) >= coverFraction * Float(core.count) }
            // Mostly inside: a swing's fragment can end a few held frames after the stretch.
            let fragment = 2 * span.overlapCount(r) >= span.count && !covers(span)
            // Another report already covers the stretch: this fragment would name the gesture twice.
            if fragment, reported.contains(where: { $0.span != span && covers($0.span) }) { continue }
            if fragment, core.count <= DTWSpotter.maxWarp * longest, let whole = stretch(core.lowerBound, core.upperBound) {
                let p = classifier.predict(whole)
                // One performance of the class named, not two gestures back to back.
                if let c = p.classIndex, c < inner.typicalLengths.count,
                   Float(core.count) <= DTWSpotter.continuationLength * Float(inner.typicalLengths[c]),
                   let d = p.distance, d <= Self.relabelReach * accept[c] {
                    m = SpotMatch(prediction: p, start: core.lowerBound, end: core.upperBound)
                    reported.append((r, nil))
                }
            }
            outbox.append(m)
        }
        waiting.removeAll(where: on)
    }

    /// Accepted report `a` waits for the moving stretch around it, at most until frame `deadline`
    /// (settled at once when that stretch has already closed).
    mutating func hold(_ a: SpotMatch, until deadline: Int) {
        guard motion != nil else {
            outbox.append(a)
            return
        }
        waiting.append((a, deadline))
        if let r = closed.last(where: { $0.overlaps(a.start...a.end) }) { settle(r) }
    }

    /// The stream has ended: the spotter's last candidate, then the second chances still waiting.
    mutating func flush() -> [SpotMatch] {
        if let m = inner.flush(), let a = accepted(m) { hold(a, until: a.end) }
        if let r = motion?.flush() {
            settle(r)
            secondChance(r)
        }
        var out = pending.map { SpotMatch(prediction: $0.prediction, start: $0.range.lowerBound, end: $0.range.upperBound) }
        reported += out.map { ($0.start...$0.end, nil) }
        out += outbox + waiting.map(\.match)
        pending.removeAll()
        outbox.removeAll()
        waiting.removeAll()
        out.sort { $0.start < $1.start }
        return out
    }

    /// Spotter match `match` labelled, unless it barely moved (see ``stillFraction`` and
    /// ``steadyShare``), is a reported gesture's tail over held frames (``shareFraction``) or pauses
    /// too long (``pauseFactor``); an accepted match takes the moving stretches it overlaps from the
    /// second chance.
    mutating func accepted(_ match: SpotterMatch) -> SpotMatch? {
        let m = labelled(match)
        if let c = m.prediction.classIndex, c < stillest.count {
            let earlier = ownMovement ? reported.map(\.span) : []
            let moved = movement(m.start, m.end, excluding: earlier)
            // Measured at most once, and only when a rule below needs it.
            var measuredShare: Float?
            func share() -> Float {
                if let s = measuredShare { return s }
                let s = movingShare(m.start, m.end, excluding: earlier)
                measuredShare = s
                return s
            }
            if moved < stillFraction * stillest[c], moved < steadyFraction * stillest[c] || share() < steadyShare {
                return nil
            }
            if c < leastShares.count, let smoothing = motion?.smoothing,
               earlier.contains(where: { $0.overlaps((m.start - smoothing)...m.end) }),
               share() < Self.shareFraction * leastShares[c] {
                return nil
            }
        }
        if let c = m.prediction.classIndex, c < pauses.count, let smoothing = motion?.smoothing,
           Float(pause(m.start, m.end)) > pauseFactor * Float(pauses[c]) + Float(smoothing) {
            return nil
        }
        reported.append((m.start...m.end, m.prediction.classIndex))
        pending.removeAll { $0.range.overlaps(m.start...m.end) }
        return m
    }

    /// Moving stretch `r` has closed: when no report overlaps it and it lasts a plausible time, it
    /// waits (``patience``) labelled, if it lies within ``accept`` of its class (else its moved
    /// frames may, see ``labelMovedFrames``, else its pieces, see ``split(_:)``); when reports
    /// overlap it, the runs they leave uncovered do (``fillGaps(_:)``).
    mutating func secondChance(_ r: ClosedRange<Int>) {
        if reported.contains(where: { $0.span.overlaps(r) }) {
            // The part of the stretch before `filledThrough` already had its second chance.
            let from = max(r.lowerBound, filledThrough + 1)
            if from <= r.upperBound { fillGaps(from...r.upperBound) }
            return
        }
        if plausible(r), offer(r) { return }
        if labelMovedFrames, let core = moved(r), core != r, plausible(core), offer(core) { return }
        if splitRuns { split(moved(r) ?? r) }
    }

    /// Gestures back to back form one moving stretch; each run of its moving frames that no report
    /// covers, lasting at least ``fillFraction`` and at most ``DTWSpotter/continuationLength``
    /// typical performances of the class it is labelled as, within ``accept`` of that class, waits
    /// as a second chance (a gesture between two reported ones whose own match missed); a run
    /// refused whole, or too long for one gesture, is cut into gestures (``split(_:)``).
    mutating func fillGaps(_ r: ClosedRange<Int>) {
        let core = moved(r) ?? r
        let claims = reported.filter { $0.span.overlaps(core) }.sorted { $0.span.lowerBound < $1.span.lowerBound }
        if oneGestureStretches, claims.count == 1, let c = claims[0].match,
           c < inner.typicalLengths.count,
           Float(core.count) <= DTWSpotter.continuationLength * Float(inner.typicalLengths[c]) {
            return
        }
        var gaps: [ClosedRange<Int>] = []
        var from = core.lowerBound
        for (c, _) in claims {
            if c.lowerBound > from { gaps.append(from...(c.lowerBound - 1)) }
            from = max(from, c.upperBound + 1)
        }
        if from <= core.upperBound { gaps.append(from...core.upperBound) }
        let typical = inner.typicalLengths, fill = fillFraction
        for g in gaps where plausible(g) || g.count > DTWSpotter.maxWarp * longest {
            let took = plausible(g) && offer(g) { Self.lasts(g.count, onePerformanceOf: $0, typical: typical, fill: fill) }
            if !took, splitRuns { split(g) }
        }
    }

    /// Run `run` of moving frames, refused as one gesture, cut into gestures back to back (each
    /// waits as a second chance): pieces starting on a grid of an eighth of the shortest typical
    /// performance, covering the run, each within ``splitReach`` of its class's gate, lasting
    /// ``fillFraction`` to ``DTWSpotter/continuationLength`` typical performances of it and moving
    /// as much as a match must (``stillFraction``), with the least sum of distances relative to the
    /// gates (dynamic programming over the cut points). Nothing when no such cutting exists or the
    /// run is longer than ``splitLimit`` longest templates. It runs only on a run refused (when a
    /// stretch closes or a report comes in one still open): at most 38 ms a search on the tuning
    /// replays (Epilepsy, back to back).
    mutating func split(_ run: ClosedRange<Int>) {
        let typical = inner.typicalLengths
        guard let low = typical.min(), let high = typical.max(), low > 0,
              Float(run.count) >= 2 * fillFraction * Float(low), run.count <= Self.splitLimit * longest,
              held(run.lowerBound, run.upperBound) == run else { return }
        // At most 64 cut points, so a cut search stays a few hundred labellings at most.
        let step = max(1, low / 8, (run.count + 63) / 64)
        var points = Array(stride(from: run.lowerBound, to: run.upperBound + 1, by: step))
        if points.last != run.upperBound + 1 { points.append(run.upperBound + 1) }
        // A last piece shorter than half a step joins the one before it.
        if points.count > 2, points[points.count - 1] - points[points.count - 2] < step / 2 {
            points.remove(at: points.count - 2)
        }
        let shortestPiece = fillFraction * Float(low), longestPiece = DTWSpotter.continuationLength * Float(high)
        var best = [Float](repeating: .infinity, count: points.count)
        var from = [Int](repeating: -1, count: points.count)
        var piece = [Prediction?](repeating: nil, count: points.count)
        best[0] = 0
        for i in 1..<points.count {
            for j in 0..<i where best[j].isFinite {
                let length = Float(points[i] - points[j])
                guard length >= shortestPiece, length <= longestPiece,
                      let (p, gated) = onePerformance(points[j], points[i] - 1, reach: Self.splitReach),
                      let c = p.classIndex,
                      c >= stillest.count || movement(points[j], points[i] - 1) >= stillFraction * stillest[c]
                else { continue }
                let cost = best[j] + gated
                if cost < best[i] {
                    best[i] = cost
                    from[i] = j
                    piece[i] = p
                }
            }
        }
        var cuts: [(ClosedRange<Int>, Prediction)] = []
        var i = points.count - 1
        guard best[i].isFinite else { return }
        while i > 0, let p = piece[i] {
            cuts.append((points[from[i]]...(points[i] - 1), p))
            i = from[i]
        }
        guard cuts.count >= 2 else { return }
        for (r, p) in cuts.reversed() { pending.append((r, p, r.upperBound + Self.patience * longest)) }
    }

    /// A report starting at `start` came while a moving stretch is open and already longer than
    /// one gesture lasts: the runs no report covers before it get their second chance now.
    mutating func fillOpen(before start: Int) {
        guard let s = motion?.openSince, frames - s > DTWSpotter.maxWarp * longest else { return }
        let from = max(s, filledThrough + 1)
        guard from < start else { return }
        fillGaps(from...(start - 1))
        filledThrough = start - 1
    }

    /// Report `m`, whose moving stretch has not closed by its deadline: when that stretch is
    /// already longer than one gesture lasts (gestures back to back) and `m` covers less than
    /// ``coverFraction`` of a typical performance of its class, it is a fragment the stretch cannot
    /// settle, and the window of one typical performance around it that lies closest within its
    /// class's gate names and spans it instead.
    mutating func widened(_ m: SpotMatch) -> SpotMatch {
        guard widenFragments, let s = motion?.openSince, frames - s > DTWSpotter.maxWarp * longest,
              let c = m.prediction.classIndex, c < inner.typicalLengths.count,
              Float(m.end - m.start + 1) < coverFraction * Float(inner.typicalLengths[c]),
              let low = inner.typicalLengths.min(), low > 0 else { return m }
        let step = max(1, low / 8)
        var best: (cost: Float, match: SpotMatch)?
        // Sorted: a set's order changes from run to run, and the first of two equal costs wins.
        for length in Set(inner.typicalLengths).sorted() where length > m.end - m.start + 1 {
            guard let starts = windowStarts(length, around: m.start, m.end, from: s) else { continue }
            for start in stride(from: starts.lowerBound, through: starts.upperBound, by: step) {
                guard let (p, cost) = onePerformance(start, start + length - 1, reach: 1) else { continue }
                if best.map({ cost < $0.cost }) ?? true {
                    best = (cost, SpotMatch(prediction: p, start: start, end: start + length - 1))
                }
            }
        }
        guard let w = best?.match else { return m }
        reported.removeAll { $0.span == m.start...m.end }
        reported.append((w.start...w.end, nil))
        return w
    }

    /// The first frames of the windows of `length` frames that contain `start...end`, begin at
    /// `from` or later and lie wholly in the ring; `nil` when there are none.
    func windowStarts(_ length: Int, around start: Int, _ end: Int, from: Int = 0) -> ClosedRange<Int>? {
        let first = max(end - length + 1, from, frames - capacity), last = min(start, frames - length)
        return first <= last ? first...last : nil
    }

    /// Frames `start...end` labelled whole, with their distance relative to the gate of the class
    /// named, when they lie within `reach` of that gate and last one performance of it
    /// (``lastsOnePerformance(_:of:)``); `nil` otherwise.
    func onePerformance(_ start: Int, _ end: Int, reach: Float) -> (prediction: Prediction, cost: Float)? {
        guard let whole = stretch(start, end) else { return nil }
        let p = classifier.predict(whole)
        guard let c = p.classIndex, c < accept.count, let d = p.distance, d <= reach * accept[c],
              lastsOnePerformance(end - start + 1, of: c) else { return nil }
        return (p, accept[c] > 0 ? d / accept[c] : 0)
    }

    /// Whether `length` frames last ``fillFraction`` to ``DTWSpotter/continuationLength`` typical
    /// performances of class `c`.
    func lastsOnePerformance(_ length: Int, of c: Int) -> Bool {
        Self.lasts(length, onePerformanceOf: c, typical: inner.typicalLengths, fill: fillFraction)
    }

    /// Whether `length` frames last `fill` to ``DTWSpotter/continuationLength`` times `typical[c]`.
    static func lasts(_ length: Int, onePerformanceOf c: Int, typical: [Int], fill: Float) -> Bool {
        c < typical.count && Float(length) >= fill * Float(typical[c])
            && Float(length) <= DTWSpotter.continuationLength * Float(typical[c])
    }

    /// Whether `r` lasts as one gesture can: half the shortest template to twice the longest.
    func plausible(_ r: ClosedRange<Int>) -> Bool {
        r.count * DTWSpotter.maxWarp >= shortest && r.count <= DTWSpotter.maxWarp * longest
    }

    /// Frames `r` labelled whole wait (``patience``) as a second chance when they lie within
    /// ``accept`` of the class named and `fits` that class; returns whether they do.
    @discardableResult
    mutating func offer(_ r: ClosedRange<Int>, fits: (Int) -> Bool = { _ in true }) -> Bool {
        guard let p = nearestWindow(r.lowerBound, r.upperBound) else { return false }
        guard let c = p.classIndex, let d = p.distance, d <= accept[c], fits(c) else { return false }
        pending.append((r, p, r.upperBound + Self.patience * longest))
        return true
    }

    /// Frames `start...end` labelled whole; when they last less than a typical performance of the
    /// class named and ``typicalWindows`` is on, also each window of that typical length around them
    /// (frames already streamed, at most ``windowPositions`` evenly spaced), and the one nearest a
    /// template names them. A stretch cut by movement or by a subsequence match leaves out a
    /// gesture's still start or end (GunPoint's hand at rest before the draw), and cut short, the
    /// classifier stretched it over a whole template. Distances of windows and stretch compare: the
    /// warping path is at least a template long either way.
    func nearestWindow(_ start: Int, _ end: Int) -> Prediction? {
        guard let whole = stretch(start, end) else { return nil }
        var p = classifier.predict(whole)
        guard typicalWindows, let c = p.classIndex, c < inner.typicalLengths.count, var best = p.distance else { return p }
        let typical = inner.typicalLengths[c], slack = typical - (end - start + 1)
        guard slack > 0, let starts = windowStarts(typical, around: start, end) else { return p }
        let step = (slack + Self.windowPositions - 2) / (Self.windowPositions - 1)
        for first in stride(from: starts.lowerBound, through: starts.upperBound, by: step) {
            guard let window = stretch(first, first + typical - 1) else { continue }
            let q = classifier.predict(window)
            if let d = q.distance, d < best { (best, p) = (d, q) }
        }
        return p
    }

    /// Match `m` as a report: its stretch labelled by the whole-example classifier.
    func labelled(_ m: SpotterMatch) -> SpotMatch {
        let t = inner.thresholds[m.classIndex]
        let confidence = t.isFinite && t > 0 ? max(0, min(1, 1 - m.distance / t)) : 1
        var scores = [Float](repeating: 0, count: inner.thresholds.count)
        scores[m.classIndex] = confidence
        var label = m.classIndex
        if let p = nearestWindow(m.start, m.end) {
            if let top = p.scores.indices.max(by: { p.scores[$0] < p.scores[$1] }), p.scores[top] > 0 {
                label = top
                scores = p.scores
            }
        }
        return SpotMatch(prediction: Prediction(classIndex: label, confidence: confidence, scores: scores, distance: m.distance),
                         start: m.start, end: m.end)
    }

    /// The frames of `start...end` the ring still holds; `nil` when fewer than two.
    func held(_ start: Int, _ end: Int) -> ClosedRange<Int>? {
        let lo = max(start, frames - capacity, 0), hi = min(end, frames - 1)
        return hi > lo ? lo...hi : nil
    }

    /// The first through the last frame of `r` that moved: the stretch without the still frames its
    /// smoothed movement takes in at each end. A frame moved when its own change and the mean change
    /// over the segmenter's lag from it (for the last: up to it) reach the floor in force, so a lone
    /// noise spike at rest does not stretch the edges (letters with 3 % noise on zero still frames,
    /// tuning seeds: 504 -> 537 of 540 reported rightly; noiseless unchanged, see ``noiseFactor``).
    func moved(_ r: ClosedRange<Int>) -> ClosedRange<Int>? {
        guard let floor = motion?.currentFloor, let h = held(r.lowerBound, r.upperBound) else { return nil }
        let frames = (h.lowerBound + 1)...h.upperBound
        let lag = min(motion?.lag ?? 1, frames.count)
        var sums = [0.0]
        sums.reserveCapacity(frames.count + 1)
        for f in frames { sums.append(sums[sums.count - 1] + change(at: f)) }
        let one = Double(floor), all = Double(floor) * Double(lag)
        func moves(_ i: Int) -> Bool { sums[i + 1] - sums[i] >= one }
        guard let first = (0...(frames.count - lag)).first(where: { moves($0) && sums[$0 + lag] - sums[$0] >= all }),
              let last = ((lag - 1)..<frames.count).last(where: { moves($0) && sums[$0 + 1] - sums[$0 + 1 - lag] >= all }),
              last > first else { return nil }
        return (frames.lowerBound + first)...(frames.lowerBound + last)
    }

    /// The longest pause inside frames `start...end` still held (``longestPause(frames:floor:change:)``
    /// at the segmenter's floor).
    func pause(_ start: Int, _ end: Int) -> Int {
        guard let floor = motion?.currentFloor, let h = held(start, end) else { return 0 }
        return Self.longestPause(frames: (h.lowerBound + 1)..<(h.upperBound + 1), floor: floor, change: change(at:))
    }

    /// The share of frames `start...end` (after the first) that moved at least half the
    /// segmenter's floor in force, frames in `excluding` counted as still (see ``steadyShare``).
    func movingShare(_ start: Int, _ end: Int, excluding: [ClosedRange<Int>] = []) -> Float {
        guard let r = held(start, end), r.count > 1, let floor = motion?.currentFloor else { return 0 }
        var moving = 0
        for f in (r.lowerBound + 1)...r.upperBound where !excluding.contains(where: { $0.contains(f) }) {
            if change(at: f) >= Double(0.5 * floor) { moving += 1 }
        }
        return Float(moving) / Float(r.count - 1)
    }

    /// Mean movement over frames `start...end` still held, frames inside `excluding` counted as
    /// still: a match's own movement, not that of a gesture already reported.
    func movement(_ start: Int, _ end: Int, excluding: [ClosedRange<Int>] = []) -> Float {
        guard let r = held(start, end) else { return 0 }
        let lo = r.lowerBound, hi = r.upperBound
        var total = 0.0
        for f in (lo + 1)...hi where !excluding.contains(where: { $0.contains(f) }) { total += change(at: f) }
        return Float(total / Double(hi - lo))
    }

    /// The movement of held frame `f` since the frame the segmenter's lag before it, per frame
    /// (``MotionSegmenter/change(_:lag:_:_:)``).
    func change(at f: Int) -> Double {
        let c = inner.channels, a = (f % capacity) * c, oldest = max(0, frames - capacity)
        // The frames before `oldest` are gone from the ring: measure from it instead.
        let lag = min(motion?.lag ?? 1, f - oldest)
        guard lag > 0 else { return 0 }
        return MotionSegmenter.change(c, lag: lag, f) { ring[a + $0] - ring[($1 % capacity) * c + $0] }
    }

    /// Frames `start...end` of the stream as a series (clipped to what the ring still holds).
    func stretch(_ start: Int, _ end: Int) -> TimeSeries? {
        let c = inner.channels
        guard let r = held(start, end) else { return nil }
        var v = [Float]()
        v.reserveCapacity(r.count * c)
        for f in r {
            let base = (f % capacity) * c
            v += ring[base..<(base + c)]
        }
        return TimeSeries(values: v, channelCount: c)
    }
}
