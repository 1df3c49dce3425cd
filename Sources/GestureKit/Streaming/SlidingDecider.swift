/// A windowed decider whose ring of frames can be read (to weigh each window's activity).
protocol RingDecider: Decider {
    var ring: WindowRing { get }
}

extension WindowedVectorDecider: RingDecider {}
extension WindowedSequenceDecider: RingDecider {}

/// Whole-example classifier over sliding windows, one report per gesture (see ``LiveWindow``).
struct SlidingExampleDecider<Inner: RingDecider>: Decider {
    /// A recent decision's class (`nil`: rest, rejected or still) and last frame.
    struct Seen {
        var label: Int?
        var end: Int
    }

    var inner: Inner
    let live: LiveWindow
    let restIndex: Int?
    /// Half a window: how long a candidate waits for a better one.
    let reach: Int
    var recent: [Seen] = []
    var candidate: (decision: Decision, label: Int, activity: Float)?
    var quietUntil = Int.min

    init(inner: Inner, live: LiveWindow, restIndex: Int?) {
        self.inner = inner
        self.live = live
        self.restIndex = restIndex
        reach = max(1, live.window / 2)
        recent.reserveCapacity(2 * reach / live.hop + 2)
    }

    mutating func reset() {
        inner.reset()
        recent.removeAll(keepingCapacity: true)
        candidate = nil
        quietUntil = Int.min
    }

    mutating func push(_ frame: UnsafeBufferPointer<Float>, at n: Int) -> Decision? {
        guard let d = inner.push(frame, at: n) else { return nil }
        let ring = inner.ring
        let range = ring.held
        let activity = ring.values.withUnsafeBufferPointer {
            LiveWindow.activity(of: UnsafeBufferPointer(rebasing: $0[range]), frames: range.count / ring.channels,
                                channels: ring.channels)
        }
        let label = activity >= live.activityFloor ? d.prediction.classIndex.flatMap { $0 == restIndex ? nil : $0 } : nil
        let oldest = d.end - 2 * reach
        recent.removeAll { $0.end < oldest }
        recent.append(Seen(label: label, end: d.end))
        if let label, d.end >= quietUntil {
            let confidence = d.prediction.confidence
            if candidate.map({ confidence > $0.decision.prediction.confidence
                || (confidence == $0.decision.prediction.confidence && activity > $0.activity) }) ?? true {
                candidate = (d, label, activity)
            }
        }
        guard let c = candidate, d.end - c.decision.end >= reach else { return nil }
        candidate = nil
        var support = 0, ends = 0
        for r in recent where r.label == c.label && abs(r.end - c.decision.end) <= reach {
            support += 1
            ends += r.end
        }
        guard support >= live.minRun else { return nil }
        // The windows naming the class centre on the gesture better than the most confident one
        // alone (kNN's vote fractions tie).
        let end = ends / support
        quietUntil = end + live.window + reach
        return Decision(prediction: c.decision.prediction, start: end - live.window + 1, end: end)
    }

    mutating func classifyHeld() -> Prediction? { inner.classifyHeld() }
}
