/// Moving average over the last `window` frames, per channel.
///
/// JSON: `{"kind": "movingAverage", "window": 5}`. Keys: `window` (default 5, at least 1);
/// `channels` (learned by `fit`, optional).
///
/// A step from 0 to 1 (after at least `window - 1` frames at 0) ramps linearly to 1 over `window`
/// frames. See `FilterSupport` for start-up and non-finite input.
/// - Complexity: amortised O(channels) per frame: a running sum, recomputed from the buffer each time
///   the ring wraps (O(window * channels) every `window` frames) so rounding never drifts.
public struct MovingAverage: WindowedFilter {
    public static let kind = "movingAverage"
    var config: WindowedFilterConfig

    private var samples = SampleWindow()
    private var sums: [Double] = []

    /// Frames averaged.
    public var window: Int {
        get { config.window }
        set { config.window = newValue }
    }

    /// An average over `window` frames.
    public init(window: Int = 5) { config = WindowedFilterConfig(window: window) }
    init(config: WindowedFilterConfig) { self.config = config }

    public mutating func reset() {
        let c = channels ?? 0
        samples.reset(window: window, channels: c)
        sums = [Double](repeating: 0, count: c)
    }

    /// - Complexity: amortised O(channels).
    public mutating func process(_ frame: UnsafeMutableBufferPointer<Float>) {
        let c = frame.count
        if samples.channels != c || samples.window != max(window, 1) { config.channels = c; reset() }
        let w = samples.window
        sums.withUnsafeMutableBufferPointer { sums in
            samples.push(frame) { j, x, leaving, ring, slot in
                if let leaving {
                    sums[j] += Double(x) - Double(leaving)
                } else {
                    sums[j] = Double(x) * Double(w)
                }
                if slot == w - 1 {
                    // Recompute exactly once per lap so rounding in the running sum cannot accumulate.
                    var s = 0.0
                    for k in 0..<w { s += Double(ring[k * c + j]) }
                    sums[j] = s
                }
                return Float(sums[j] / Double(w))
            }
        }
    }
}
