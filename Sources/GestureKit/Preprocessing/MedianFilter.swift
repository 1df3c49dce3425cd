/// Running median of the last `window` frames, per channel: removes isolated spikes that a moving
/// average would only smear (an impulse shorter than half the window disappears entirely).
///
/// JSON: `{"kind": "median", "window": 5}`. Keys: `window` (default 5, at least 1; an even window
/// averages the two middle values); `channels` (learned).
/// See ``FilterSupport`` for start-up and non-finite input.
/// - Complexity: O(channels * window) per frame (one sorted window per channel, updated by moving
///   the leaving value's slot to where the new value belongs), no allocation.
public struct MedianFilter: WindowedFilter {
    public static let kind = "median"
    var config: WindowedFilterConfig

    /// Frames in arrival order (ring), `window * channels`.
    private var ring: [Float] = []
    /// Per channel, the same values sorted: channel j owns `sorted[j*window ..< (j+1)*window]`.
    private var sorted: [Float] = []
    private var last: [Float] = []
    private var position = 0
    private var primed = false

    public var window: Int {
        get { config.window }
        set { config.window = newValue }
    }

    public init(window: Int = 5) { config = WindowedFilterConfig(window: window) }
    init(config: WindowedFilterConfig) { self.config = config }

    public mutating func reset() {
        let c = channels ?? 0, w = max(window, 1)
        ring = [Float](repeating: 0, count: w * c)
        sorted = [Float](repeating: 0, count: w * c)
        last = [Float](repeating: 0, count: c)
        position = 0
        primed = false
    }

    public mutating func process(_ frame: UnsafeMutableBufferPointer<Float>) {
        let c = frame.count
        if last.count != c || ring.count != max(window, 1) * c { config.channels = c; reset() }
        let w = max(window, 1)
        let pos = position, wasPrimed = primed
        ring.withUnsafeMutableBufferPointer { ring in
            sorted.withUnsafeMutableBufferPointer { sorted in
                last.withUnsafeMutableBufferPointer { last in
                    for j in 0..<c {
                        let x = FilterSupport.held(frame[j], previous: last[j])
                        last[j] = x
                        let base = j * w
                        if !wasPrimed {
                            for k in 0..<w { ring[k * c + j] = x; sorted[base + k] = x }
                        } else {
                            let old = ring[pos * c + j]
                            ring[pos * c + j] = x
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
                        }
                        frame[j] = w % 2 == 1
                            ? sorted[base + w / 2]
                            : (sorted[base + w / 2 - 1] + sorted[base + w / 2]) / 2
                    }
                }
            }
        }
        primed = true
        position = pos == w - 1 ? 0 : pos + 1
    }
}
