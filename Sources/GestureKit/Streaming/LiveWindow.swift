/// How a whole-example pipeline whose classifier cannot spot (kNN, centroid, ridge, LSTM on whole
/// examples) decides while a stream runs: it classifies the last `window` frames every `hop`, and
/// names each gesture once, from the window that saw it best.
///
/// Fitted by ``Pipeline/train(_:on:negatives:progress:isCancelled:)`` from the training examples, saved in the
/// pipeline file under `liveWindow`:
/// - `window`: the median training example length (pre-processed frames), so a window sees about
///   one gesture, as the classifier was trained to;
/// - `hop`: `window / 8` (at least 1): the best-aligned window is at most `hop / 2` frames off;
/// - `minRun`: windows around the reported one that must name its class too: a window that sees only
///   part of a gesture names another class now and then, rarely together with its neighbours;
/// - `activityFloor`: a window whose activity (square root of the mean over channels of the
///   within-window variance) is below it is rest, whatever the classifier says: half the 10th
///   percentile of the training examples' activity, so a sensor held still never fires, nor a
///   window that holds only the edge of a gesture.
///
/// A window that is rest or rejected (null, the rest class) names nothing. The most confident
/// window (ties: the more active) names the class once half a window has passed without a better
/// one, if at least `minRun` windows within half a window of it named its class too; the report
/// spans the window at the mean position of those, and no window that ends within one and a half
/// windows of it is reported (windows that see the edge of the same gesture name a class too), so
/// two gestures are told apart when half a window apart. So each gesture is reported once, half a
/// window after the window that saw it best: latency about one and a half windows from its start.
public struct LiveWindow: Sendable, Hashable, Codable {
    /// Frames each decision sees.
    public var window: Int
    /// Frames between decisions.
    public var hop: Int
    /// Windows within half a window of the reported one that must name its class (itself included).
    public var minRun: Int
    /// Windows less active than this are rest.
    public var activityFloor: Float

    /// Every parameter is the property of the same name.
    public init(window: Int, hop: Int, minRun: Int, activityFloor: Float) {
        self.window = window
        self.hop = hop
        self.minRun = minRun
        self.activityFloor = activityFloor
    }

    /// Windows that must agree before a class counts.
    static let defaultMinRun = 3
    /// Fraction of the training examples' low activity (their 10th percentile) below which a window is rest.
    static let floorFraction: Float = 0.5

    /// The live window for pre-processed training examples, or `nil` when there are none.
    static func fitted(to examples: [TimeSeries]) -> LiveWindow? {
        let lengths = examples.map(\.frameCount).filter { $0 > 0 }.sorted()
        guard !lengths.isEmpty else { return nil }
        let window = lengths[lengths.count / 2]
        let activities = examples.filter { $0.frameCount > 0 }.map { s in
            s.values.withUnsafeBufferPointer { activity(of: $0, frames: s.frameCount, channels: s.channelCount) }
        }.sorted()
        let low = activities[Int(Double(activities.count - 1) * 0.1)]
        return LiveWindow(window: window, hop: max(1, window / 8), minRun: defaultMinRun, activityFloor: floorFraction * low)
    }

    /// Square root of the mean over channels of each channel's population variance over `frames`.
    /// - Complexity: O(frames * channels), Double accumulation, no allocation.
    static func activity(of values: UnsafeBufferPointer<Float>, frames: Int, channels: Int) -> Float {
        guard frames > 0, channels > 0 else { return 0 }
        var total = 0.0
        for j in 0..<channels {
            var sum = 0.0, sq = 0.0
            for i in 0..<frames {
                let v = Double(values[i * channels + j])
                sum += v
                sq += v * v
            }
            let mean = sum / Double(frames)
            total += max(0, sq / Double(frames) - mean * mean)
        }
        return Float((total / Double(channels)).squareRoot())
    }
}
