/// Running median of the last `window` frames, per channel: removes isolated spikes that a moving
/// average would only smear (an impulse shorter than half the window disappears entirely).
///
/// JSON: `{"kind": "median", "window": 5}`. Keys: `window` (default 5, at least 1; an even window
/// averages the two middle values); `channels` (learned).
/// See `FilterSupport` for start-up and non-finite input.
/// - Complexity: O(channels * window) per frame (one sorted window per channel, updated by moving
///   the leaving value's slot to where the new value belongs), no allocation.
public struct MedianFilter: WindowedFilter {
    public static let kind = "median"
    var config: WindowedFilterConfig

    private var samples = SampleWindow()
    /// Per channel, the window's values sorted: channel j owns `sorted[j*window ..< (j+1)*window]`.
    private var sorted: [Float] = []

    /// Frames in the median.
    public var window: Int {
        get { config.window }
        set { config.window = newValue }
    }

    /// A median over `window` frames.
    public init(window: Int = 5) { config = WindowedFilterConfig(window: window) }
    init(config: WindowedFilterConfig) { self.config = config }

    public mutating func reset() {
        let c = channels ?? 0
        samples.reset(window: window, channels: c)
        sorted = [Float](repeating: 0, count: samples.window * c)
    }

    public mutating func process(_ frame: UnsafeMutableBufferPointer<Float>) {
        let c = frame.count
        if samples.channels != c || samples.window != max(window, 1) { config.channels = c; reset() }
        let w = samples.window
        sorted.withUnsafeMutableBufferPointer { sorted in
            samples.push(frame) { j, x, leaving, _, _ in
                let base = j * w
                if let old = leaving {
                    // Find the leaving value (values are finite, so == finds it), then slide
                    // neighbours over until the new value fits.
                    var i = 0
                    while i < w - 1 && sorted[base + i] != old { i += 1 }
                    while i > 0 && sorted[base + i - 1] > x {
                        sorted[base + i] = sorted[base + i - 1]; i -= 1
                    }
                    while i < w - 1 && sorted[base + i + 1] < x {
                        sorted[base + i] = sorted[base + i + 1]; i += 1
                    }
                    sorted[base + i] = x
                } else {
                    for k in 0..<w { sorted[base + k] = x }
                }
                return w % 2 == 1
                    ? sorted[base + w / 2]
                    : (sorted[base + w / 2 - 1] + sorted[base + w / 2]) / 2
            }
        }
    }
}
