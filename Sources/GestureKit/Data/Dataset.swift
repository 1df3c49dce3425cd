/// Labelled examples with their ordered class names, channel names and, when they came from
/// continuous recordings, those recordings.
public struct Dataset: Sendable {
    /// The labelled (or unlabelled) examples.
    public var examples: [Example]
    /// Class names in a fixed order; classifier outputs index into this array.
    public var classes: [String]
    /// Channel names, the same for every example.
    public var channelNames: [String]
    /// Frames per second, when the source records it.
    public var sampleRate: Double?
    /// The continuous recordings the examples were cut from, when the source was continuous
    /// (CSV sessions, GRT continuous files, HAPT streams). Empty for per-example formats.
    public var recordings: [Recording]
    /// Where the data came from (a file or folder name), for messages.
    public var source: String?

    /// A dataset of `examples`; classes default to the labels in order of first appearance, channel names to the first example's.
    public init(examples: [Example], classes: [String]? = nil, channelNames: [String]? = nil,
                sampleRate: Double? = nil, recordings: [Recording] = [], source: String? = nil) {
        self.examples = examples
        self.classes = classes ?? Dataset.classOrder(examples.compactMap(\.label))
        self.channelNames = channelNames ?? examples.first?.series.channelNames
            ?? recordings.first?.series.channelNames ?? []
        self.sampleRate = sampleRate ?? examples.first?.series.sampleRate ?? recordings.first?.series.sampleRate
        self.recordings = recordings
        self.source = source
    }

    /// Labels in order of first appearance.
    public static func classOrder(_ labels: [String]) -> [String] {
        var seen = Set<String>()
        return labels.filter { seen.insert($0).inserted }
    }

    /// Values per frame.
    public var channelCount: Int { channelNames.count }

    /// Examples per class, in class order.
    public var classCounts: [(label: String, count: Int)] {
        var counts: [String: Int] = [:]
        for e in examples { if let l = e.label { counts[l, default: 0] += 1 } }
        return classes.map { ($0, counts[$0] ?? 0) }
    }

    /// Distinct sessions named by the examples, in order of first appearance.
    public var sessions: [String] { Dataset.classOrder(examples.compactMap(\.session)) }
    /// Distinct users named by the examples, in order of first appearance.
    public var users: [String] { Dataset.classOrder(examples.compactMap(\.user)) }

    /// Index of each example's label in ``classes`` (`nil` for null examples or unknown labels).
    public var labelIndices: [Int?] {
        let index = Dictionary(uniqueKeysWithValues: classes.enumerated().map { ($1, $0) })
        return examples.map { $0.label.flatMap { index[$0] } }
    }

    /// The same dataset restricted to the examples at `indices` (classes and channels kept).
    public func subset<S: Sequence>(_ indices: S) -> Dataset where S.Element == Int {
        var d = self
        d.examples = indices.map { examples[$0] }
        let keptSessions = Set(d.examples.compactMap(\.session))
        let keptUsers = Set(d.examples.compactMap(\.user))
        d.recordings = recordings.filter { r in
            (r.session.map { keptSessions.contains($0) } ?? false) || (r.session == nil && (r.user.map { keptUsers.contains($0) } ?? false))
        }
        return d
    }

    /// Builds a dataset from continuous recordings, cutting examples as labelled segments or as
    /// fixed windows.
    public init(recordings: [Recording], cut: Cut = .segments, classes: [String]? = nil, source: String? = nil) {
        var examples: [Example] = []
        for r in recordings {
            switch cut {
            case .segments:
                examples += r.segmentExamples()
            case let .windows(size, hop, labelling):
                examples += r.windows(size: size, hop: hop, labelling: labelling)
            }
        }
        self.init(examples: examples,
                  classes: classes ?? Dataset.classOrder(recordings.flatMap { $0.labels.compactMap { $0 } }),
                  channelNames: recordings.first?.series.channelNames,
                  sampleRate: recordings.first?.series.sampleRate, recordings: recordings, source: source)
    }

    /// How continuous recordings are cut into examples.
    public enum Cut: Sendable, Hashable {
        /// Each contiguous run of one label is an example; null runs are skipped.
        case segments
        /// Fixed windows of `size` frames every `hop` frames, labelled as `labelling` says; null
        /// windows are skipped.
        case windows(size: Int, hop: Int, labelling: Recording.WindowLabelling)
    }
}
