/// A multichannel series: `frameCount` frames of `channelCount` values, stored row-major in one
/// contiguous `[Float]` (frame 0 channel 0, frame 0 channel 1, ...).
public struct TimeSeries: Sendable, Hashable, Codable {
    /// Row-major values, `frameCount * channelCount` of them.
    public var values: [Float]
    /// Values per frame.
    public let channelCount: Int
    /// One name per channel (may be generated, e.g. `ch0`).
    public var channelNames: [String]
    /// Samples per second, when known.
    public var sampleRate: Double?

    /// A series of `values.count / channelCount` frames, row-major; channel names default to `ch0`, `ch1`, ...
    public init(values: [Float], channelCount: Int, channelNames: [String]? = nil, sampleRate: Double? = nil) {
        precondition(channelCount > 0, "TimeSeries: channelCount must be positive")
        precondition(values.count % channelCount == 0, "TimeSeries: \(values.count) values for \(channelCount) channels")
        self.values = values
        self.channelCount = channelCount
        self.channelNames = channelNames ?? TimeSeries.defaultNames(channelCount)
        precondition(self.channelNames.count == channelCount, "TimeSeries: channel names do not match channel count")
        self.sampleRate = sampleRate
    }

    /// Builds a series from frames given as arrays (all the same length).
    public init(frames: [[Float]], channelNames: [String]? = nil, sampleRate: Double? = nil) {
        let c = frames.first?.count ?? channelNames?.count ?? 1
        var v = [Float]()
        v.reserveCapacity(frames.count * c)
        for f in frames {
            precondition(f.count == c, "TimeSeries: ragged frames")
            v.append(contentsOf: f)
        }
        self.init(values: v, channelCount: c, channelNames: channelNames, sampleRate: sampleRate)
    }

    /// Builds a series from one array per channel (all the same length).
    public init(channels: [[Float]], channelNames: [String]? = nil, sampleRate: Double? = nil) {
        let c = channels.count
        let n = channels.first?.count ?? 0
        var v = [Float](repeating: 0, count: n * c)
        for (j, ch) in channels.enumerated() {
            precondition(ch.count == n, "TimeSeries: channels of different lengths")
            for i in 0..<n { v[i * c + j] = ch[i] }
        }
        self.init(values: v, channelCount: c, channelNames: channelNames, sampleRate: sampleRate)
    }

    /// `ch0`, `ch1`, ... for `count` channels.
    public static func defaultNames(_ count: Int) -> [String] { (0..<count).map { "ch\($0)" } }

    /// Frames in the series.
    public var frameCount: Int { values.count / channelCount }
    /// Whether the series has no frame.
    public var isEmpty: Bool { values.isEmpty }

    /// The value of `channel` at `frame`.
    /// - Complexity: O(1).
    public subscript(frame: Int, channel: Int) -> Float {
        get { values[frame * channelCount + channel] }
        set { values[frame * channelCount + channel] = newValue }
    }

    /// The values of one frame.
    public func frame(_ i: Int) -> ArraySlice<Float> {
        values[(i * channelCount)..<((i + 1) * channelCount)]
    }

    /// The values of one channel, in time order. - Complexity: O(frameCount).
    public func channel(_ c: Int) -> [Float] {
        (0..<frameCount).map { values[$0 * channelCount + c] }
    }

    /// The frames in `range`, as a new series with the same names and rate.
    public func frames(_ range: Range<Int>) -> TimeSeries {
        TimeSeries(values: Array(values[(range.lowerBound * channelCount)..<(range.upperBound * channelCount)]),
                   channelCount: channelCount, channelNames: channelNames, sampleRate: sampleRate)
    }

    /// Appends one frame. - Complexity: amortised O(channelCount).
    public mutating func append<C: Collection>(frame: C) where C.Element == Float {
        precondition(frame.count == channelCount, "TimeSeries: frame of \(frame.count) values for \(channelCount) channels")
        values.append(contentsOf: frame)
    }

    /// Whether every value is finite.
    public var isFinite: Bool { values.allSatisfy { $0.isFinite } }
}
