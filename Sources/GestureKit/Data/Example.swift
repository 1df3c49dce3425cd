/// A labelled series: one gesture or one window of an activity.
public struct Example: Sendable, Hashable {
    /// The frames.
    public var series: TimeSeries
    /// Class name; `nil` marks a null (unlabelled) example, used only when evaluating rejection.
    public var label: String?
    /// The recording session it came from, when known.
    public var session: String?
    /// The person who performed it, when known.
    public var user: String?

    /// An example of `label` (`nil`: unlabelled).
    public init(series: TimeSeries, label: String?, session: String? = nil, user: String? = nil) {
        self.series = series
        self.label = label
        self.session = session
        self.user = user
    }
}

/// A continuous recording with one label per frame (`nil` = unlabelled, the null class).
public struct Recording: Sendable, Hashable {
    /// The frames.
    public var series: TimeSeries
    /// One label per frame, `nil` for unlabelled frames.
    public var labels: [String?]
    /// The session name, when known.
    public var session: String?
    /// The person recorded, when known.
    public var user: String?

    /// A recording; `labels` has one entry per frame of `series`.
    public init(series: TimeSeries, labels: [String?], session: String? = nil, user: String? = nil) {
        precondition(labels.count == series.frameCount, "Recording: \(labels.count) labels for \(series.frameCount) frames")
        self.series = series
        self.labels = labels
        self.session = session
        self.user = user
    }

    /// A maximal run of frames sharing one label.
    public struct Segment: Sendable, Hashable {
        /// The run's label, `nil` for unlabelled.
        public var label: String?
        /// The run's frames.
        public var range: Range<Int>
        /// A run of `label` over `range`.
        public init(label: String?, range: Range<Int>) {
            self.label = label
            self.range = range
        }
    }

    /// Every contiguous run of one label, null runs included, in time order. - Complexity: O(frames).
    public var segments: [Segment] {
        var out: [Segment] = []
        guard !labels.isEmpty else { return out }  // the loop below reads labels[1] otherwise
        var start = 0
        for i in 1...labels.count where i == labels.count || labels[i] != labels[start] {
            if i <= labels.count, start < labels.count { out.append(Segment(label: labels[start], range: start..<i)) }
            start = i
        }
        return out
    }

    /// The labelled segments as examples (null runs are skipped unless `nullLabel` names them).
    public func segmentExamples(nullLabel: String? = nil) -> [Example] {
        segments.compactMap { s in
            guard let label = s.label ?? nullLabel else { return nil }
            return Example(series: series.frames(s.range), label: label, session: session, user: user)
        }
    }

    /// How a fixed window takes its label.
    public enum WindowLabelling: Sendable, Hashable {
        /// The most frequent label in the window (null counts as a label; ties go to the earliest).
        case majority
        /// The label of the frame at this fraction of the window (0 its first frame, 0.5 its
        /// centre, 1 its last, rounded to the nearest frame). A live decision names the frames after its window, so a
        /// label taken late in the window teaches the classifier to name a new activity sooner than
        /// the majority label, which lags half a window behind every change; taken at the very end
        /// it asks for a short event before the window has seen much of it.
        case at(Double)
    }

    /// Fixed windows of `size` frames every `hop` frames. Windows whose label is null are kept with a
    /// `nil` label unless `nullLabel` names them, or dropped when `dropNull` is set.
    /// - Complexity: O(frames / hop * size).
    public func windows(size: Int, hop: Int, labelling: WindowLabelling = .majority,
                        nullLabel: String? = nil, dropNull: Bool = true) -> [Example] {
        precondition(size > 0 && hop > 0, "windows: size and hop must be positive")
        var out: [Example] = []
        var start = 0
        while start + size <= labels.count {
            let label: String?
            switch labelling {
            case .at(let fraction):
                label = labels[start + Int((Double(size - 1) * min(max(fraction, 0), 1)).rounded())]
            case .majority:
                var counts: [String?: Int] = [:]
                var order: [String?] = []
                for l in labels[start..<(start + size)] {
                    if counts[l] == nil { order.append(l) }
                    counts[l, default: 0] += 1
                }
                let best = counts.values.max() ?? 0
                label = order.first { counts[$0] == best } ?? nil
            }
            let resolved = label ?? nullLabel
            if resolved != nil || !dropNull {
                out.append(Example(series: series.frames(start..<(start + size)), label: resolved,
                                   session: session, user: user))
            }
            start += hop
        }
        return out
    }
}
