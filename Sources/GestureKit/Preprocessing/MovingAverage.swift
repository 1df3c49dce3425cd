/// Moving average over the last `window` frames, per channel.
///
/// JSON: `{"kind": "movingAverage", "window": 5}`. Keys: `window` (default 5, at least 1);
/// `channels` (learned by `fit`, optional).
///
/// A step from 0 to 1 (after at least `window - 1` frames at 0) ramps linearly to 1 over `window`
/// frames. See ``FilterSupport`` for start-up and non-finite input.
/// - Complexity: amortised O(channels) per frame: a running sum, recomputed from the buffer each time
///   the ring wraps (O(window * channels) every `window` frames) so rounding never drifts.
public struct MovingAverage: WindowedFilter {
    public static let kind = "movingAverage"
    var config: WindowedFilterConfig

    private var ring: [Float] = []
    private var sums: [Double] = []
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
        let c = channels ?? 0
        let w = max(window, 1)
        ring = [Float](repeating: 0, count: w * c)
        sums = [Double](repeating: 0, count: c)
        last = [Float](repeating: 0, count: c)
        position = 0
        primed = false
    }

    /// - Complexity: amortised O(channels).
    public mutating func process(_ frame: UnsafeMutableBufferPointer<Float>) {
        let c = frame.count
        if last.count != c || ring.count != max(window, 1) * c { config.channels = c; reset() }
        let w = max(window, 1)
        let pos = position
        let wasPrimed = primed
        ring.withUnsafeMutableBufferPointer { ring in
            sums.withUnsafeMutableBufferPointer { sums in
                last.withUnsafeMutableBufferPointer { last in
                    for j in 0..<c {
                        let x = FilterSupport.held(frame[j], previous: last[j])
                        last[j] = x
                        if !wasPrimed {
                            for k in 0..<w { ring[k * c + j] = x }
                            sums[j] = Double(x) * Double(w)
                        } else {
                            sums[j] += Double(x) - Double(ring[pos * c + j])
                            ring[pos * c + j] = x
                        }
                    }
                    if pos == w - 1 {
                        // Recompute exactly once per lap so rounding in the running sum cannot accumulate.
                        for j in 0..<c {
                            var s = 0.0
                            for k in 0..<w { s += Double(ring[k * c + j]) }
                            sums[j] = s
                        }
                    }
                    for j in 0..<c { frame[j] = Float(sums[j] / Double(w)) }
                }
            }
        }
        primed = true
        position = pos == w - 1 ? 0 : pos + 1
    }
}
