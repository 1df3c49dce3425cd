/// Finds stretches of movement between still stretches in a stream, one frame at a time, for the
/// spotter's second chance (see ``DTWSpotterStage``): a gesture the subsequence match missed is
/// still a stretch where the sensor moved, bounded by stillness.
///
/// Movement at frame t is the root mean square over channels of the change since frame t - `lag`
/// (per frame; see ``change(_:lag:_:_:)``), averaged over the last `smoothing` frames. A stretch
/// opens on the first frame whose average reaches `floor` and closes once the average has stayed
/// below it for `hang` frames; it spans from `smoothing - 1` frames before that first frame (the
/// change that raised the average) to the last frame at or above the floor.
///
/// A sensor at rest is never exactly still, and its noise differs from the recordings the floor was
/// learned on. With `noiseFactor` > 0 the floor in force (``currentFloor``) rises to that multiple
/// of the stream's own noise at rest, the least average movement over the last `noiseWindow` frames
/// (minimum statistics, as noise trackers in voice activity detection), capped at `noiseCap`. Until
/// `smoothing` frames have been averaged the learned floor alone applies.
struct MotionSegmenter: Sendable {
    let channels: Int
    /// The floor learned from the recordings.
    let floor: Float
    let noiseFactor: Float
    let noiseWindow: Int
    let noiseCap: Float
    let smoothing: Int
    let hang: Int
    /// Frames over which a change is measured (see ``change(_:lag:_:_:)``).
    let lag: Int
    /// The last `lag` frames.
    private var previous: [Float]
    private var recent: [Float]
    private var sum: Double = 0
    private var frame = 0
    private var start: Int?
    /// The first frame of the stretch still open, if any.
    var openSince: Int? { start }
    private var lastMoving = 0
    /// Averages of the last `noiseWindow` frames, increasing from `quietest` on (a monotonic queue:
    /// its first live entry is their minimum).
    private var quiet: [(frame: Int, average: Float)] = []
    private var quietest = 0
    /// The floor in force: ``floor``, or `noiseFactor` times the stream's noise at rest when that is
    /// higher (at most `noiseCap`).
    private(set) var currentFloor: Float

    init(channels: Int, floor: Float, smoothing: Int, hang: Int, lag: Int = 1,
         noiseFactor: Float = 0, noiseWindow: Int = 0, noiseCap: Float = .infinity) {
        self.channels = channels
        self.floor = floor
        self.noiseFactor = noiseFactor
        self.noiseWindow = noiseWindow
        self.noiseCap = noiseCap
        currentFloor = floor
        self.smoothing = max(1, smoothing)
        self.hang = max(1, hang)
        self.lag = max(1, lag)
        previous = [Float](repeating: 0, count: channels * max(1, lag))
        recent = [Float](repeating: 0, count: max(1, smoothing))
    }

    mutating func reset() {
        sum = 0
        frame = 0
        start = nil
        for i in recent.indices { recent[i] = 0 }
        quiet.removeAll(keepingCapacity: true)
        quietest = 0
        currentFloor = floor
    }

    /// Pushes the next frame; returns a stretch's first and last frame (counted from the last reset)
    /// when one closes on it.
    mutating func push(_ x: UnsafeBufferPointer<Float>) -> ClosedRange<Int>? {
        let t = frame
        frame += 1
        // Frame t - span sits in the slot frame t takes; before `lag` frames, frame 0 does.
        let span = min(t, lag), at = (t % lag) * channels, from = span == lag ? at : 0
        let motion = span > 0 ? Float(Self.change(channels) { x[$0] - previous[from + $0] } / Double(span)) : 0
        for c in 0..<channels { previous[at + c] = x[c] }
        let slot = t % smoothing
        sum += Double(motion - recent[slot])
        recent[slot] = motion
        let average = Float(sum) / Float(min(t + 1, smoothing))
        if noiseFactor > 0, noiseWindow > 0, t + 1 >= smoothing { track(average, at: t) }
        let moving = average >= currentFloor
        if moving {
            if start == nil { start = max(0, t - smoothing + 1) }
            lastMoving = t
            return nil
        }
        guard let s = start, t - lastMoving >= hang else { return nil }
        start = nil
        return s...lastMoving
    }

    /// Frame `t`'s average joins the window of the noise estimate; the floor follows its minimum.
    private mutating func track(_ average: Float, at t: Int) {
        while quiet.count > quietest, quiet[quiet.count - 1].average >= average { quiet.removeLast() }
        quiet.append((t, average))
        while quiet[quietest].frame <= t - noiseWindow { quietest += 1 }
        if quietest >= 64, 2 * quietest >= quiet.count {
            quiet.removeFirst(quietest)
            quietest = 0
        }
        currentFloor = max(floor, min(noiseCap, noiseFactor * quiet[quietest].average))
    }

    /// The stream has ended: the stretch still open, if any.
    mutating func flush() -> ClosedRange<Int>? {
        guard let s = start else { return nil }
        start = nil
        return s...lastMoving
    }

    /// Mean movement (as above, unsmoothed) of a channel-major series of `frames` frames.
    static func meanMotion(_ values: UnsafeBufferPointer<Float>, frames: Int, channels: Int, lag: Int = 1) -> Float {
        guard frames > 1, channels > 0 else { return 0 }
        var total = 0.0
        for t in 1..<frames { total += change(channels, lag: lag, t) { values[$0 * frames + t] - values[$0 * frames + $1] } }
        return Float(total / Double(frames - 1))
    }

    /// The movement at frame `t` (t >= 1) of `channels` channels: the change since frame `t - lag`
    /// (frame 0 when earlier), per frame. `difference(c, u)` is channel c at frame t minus at
    /// frame u. Over several frames sensor noise at rest stays the size of one frame's noise while
    /// a smooth movement adds up.
    @inline(__always)
    static func change(_ channels: Int, lag: Int, _ t: Int, _ difference: (Int, Int) -> Float) -> Double {
        let u = max(0, t - lag)
        guard u < t else { return 0 }
        return change(channels) { difference($0, u) } / Double(t - u)
    }

    /// Root mean square over `channels` of `difference(c)`; 0 when that is not finite (a sample
    /// that is not a number moves nothing rather than stopping the segmenter for good).
    @inline(__always)
    static func change(_ channels: Int, _ difference: (Int) -> Float) -> Double {
        guard channels > 0 else { return 0 }
        var sum = 0.0
        for c in 0..<channels {
            let d = Double(difference(c))
            sum += d * d
        }
        let rms = (sum / Double(channels)).squareRoot()
        return rms.isFinite ? rms : 0
    }
}
