/// What `gesture info` reports about a dataset: counts, classes, channels, lengths.
package struct DatasetSummary: Sendable, Hashable, Codable {
    /// Frames per example: shortest, median, longest.
    package struct Lengths: Sendable, Hashable, Codable {
        /// Shortest example.
        package var min: Int
        /// Median example length.
        package var median: Double
        /// Longest example.
        package var max: Int
    }

    /// A class name and how many examples it has.
    package struct ClassCount: Sendable, Hashable, Codable {
        /// The class name.
        package var name: String
        /// Examples of the class.
        package var count: Int
    }

    /// The file format read (`csv`, `grt`, `ts`, `hapt`), when known.
    package var format: String?
    /// The path read.
    package var source: String?
    /// Examples in the dataset.
    package var examples: Int
    /// Examples per class name (JSON object name -> count).
    package var classes: [String: Int]
    /// The same counts in class order.
    package var classOrder: [ClassCount]
    /// Examples without a label (null).
    package var nullExamples: Int
    /// Channels per frame.
    package var channels: Int
    /// Channel names in frame order.
    package var channelNames: [String]
    /// Frames per example, `nil` without examples.
    package var length: Lengths?
    /// Distinct sessions named by the examples.
    package var sessions: Int
    /// Distinct users named by the examples.
    package var users: Int
    /// Frames per second, when the format records it.
    package var sampleRate: Double?
    /// Continuous recordings the examples were cut from.
    package var recordings: Int
    /// Frames in all recordings, and how many of them are unlabelled.
    package var recordingFrames: Int
    /// Frames of continuous recordings with no label.
    package var unlabelledFrames: Int

    enum CodingKeys: String, CodingKey {
        case format, source, examples, classes, classOrder, nullExamples, channels, channelNames, length,
             sessions, users, sampleRate, recordings, recordingFrames, unlabelledFrames
    }

    /// Summarises `dataset`. - Complexity: O(examples log examples + recording frames).
    package init(_ dataset: Dataset, format: DatasetFormat? = nil) {
        self.format = format?.rawValue
        source = dataset.source
        examples = dataset.examples.count
        let counts = dataset.classCounts
        classOrder = counts.map { ClassCount(name: $0.label, count: $0.count) }
        classes = Dictionary(counts.map { ($0.label, $0.count) }, uniquingKeysWith: +)
        nullExamples = dataset.examples.filter { $0.label == nil }.count
        channels = dataset.channelCount
        channelNames = dataset.channelNames
        let lengths = dataset.examples.map(\.series.frameCount).sorted()
        if lengths.isEmpty {
            length = nil
        } else {
            let m = lengths.count / 2
            let median = lengths.count % 2 == 1 ? Double(lengths[m]) : Double(lengths[m - 1] + lengths[m]) / 2
            length = Lengths(min: lengths.first!, median: median, max: lengths.last!)
        }
        let sessionIds = Set(dataset.examples.compactMap(\.session) + dataset.recordings.compactMap(\.session))
        let userIds = Set(dataset.examples.compactMap(\.user) + dataset.recordings.compactMap(\.user))
        sessions = sessionIds.count
        users = userIds.count
        sampleRate = dataset.sampleRate
        recordings = dataset.recordings.count
        recordingFrames = dataset.recordings.reduce(0) { $0 + $1.series.frameCount }
        unlabelledFrames = dataset.recordings.reduce(0) { $0 + $1.labels.lazy.filter { $0 == nil }.count }
    }

    package func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(format, forKey: .format)
        try c.encode(source, forKey: .source)
        try c.encode(examples, forKey: .examples)
        try c.encode(classes, forKey: .classes)
        try c.encode(classOrder, forKey: .classOrder)
        try c.encode(nullExamples, forKey: .nullExamples)
        try c.encode(channels, forKey: .channels)
        try c.encode(channelNames, forKey: .channelNames)
        try c.encode(length, forKey: .length)
        try c.encode(sessions, forKey: .sessions)
        try c.encode(users, forKey: .users)
        try c.encode(sampleRate, forKey: .sampleRate)  // null when unknown
        try c.encode(recordings, forKey: .recordings)
        try c.encode(recordingFrames, forKey: .recordingFrames)
        try c.encode(unlabelledFrames, forKey: .unlabelledFrames)
    }

    /// A readable multi-line form of the same facts.
    package var text: String {
        var lines: [String] = []
        if let source { lines.append("source:      \(source)") }
        if let format { lines.append("format:      \(format)") }
        lines.append("examples:    \(examples)\(nullExamples > 0 ? " (\(nullExamples) unlabelled)" : "")")
        lines.append("classes:     \(classOrder.count)")
        let width = classOrder.map(\.name.count).max() ?? 0
        for c in classOrder {
            lines.append("  \(c.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(c.count)")
        }
        lines.append("channels:    \(channels) (\(channelNames.joined(separator: ", ")))")
        if let length {
            let med = length.median == length.median.rounded() ? String(Int(length.median)) : String(length.median)
            lines.append("length:      min \(length.min), median \(med), max \(length.max)")
        }
        lines.append("sessions:    \(sessions)")
        lines.append("users:       \(users)")
        lines.append("sample rate: \(sampleRate.map { "\($0) Hz" } ?? "unknown")")
        if recordings > 0 {
            lines.append("recordings:  \(recordings) (\(recordingFrames) frames, \(unlabelledFrames) unlabelled)")
        }
        return lines.joined(separator: "\n")
    }
}
