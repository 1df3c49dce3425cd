import Foundation
import GestureKit

/// One saved example as the page lists it.
public struct ExampleInfo: Sendable, Codable, Hashable {
    /// The example's session id in the recording CSV (each example is its own session).
    public var id: String
    public var label: String
    public var frames: Int
    /// Each channel reduced to at most ``ExampleInfo/previewPoints`` values, for a small plot.
    public var preview: [[Float]]

    public static let previewPoints = 48

    init(id: String, label: String, series: TimeSeries) {
        self.id = id
        self.label = label
        frames = series.frameCount
        let n = series.frameCount, step = max(1, (n + ExampleInfo.previewPoints - 1) / ExampleInfo.previewPoints)
        preview = (0..<series.channelCount).map { c in
            stride(from: 0, to: n, by: step).map { series[$0, c] }
        }
    }
}

/// A studio project: a folder holding `recording.csv` (the `gesture record` format:
/// `session,label,<channels>`, one session per example, so `gesture train` reads it as is) and
/// `studio.gesture`, the last pipeline trained.
public struct ProjectStore: Sendable {
    public let directory: String

    public init(directory: String) throws {
        self.directory = directory
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDir) {
            guard isDir.boolValue else { throw GestureKitError("--project must be a folder", file: directory) }
        } else {
            do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
                throw GestureKitError("cannot create the project folder: \(error.localizedDescription)", file: directory)
            }
        }
    }

    public var recordingPath: String { (directory as NSString).appendingPathComponent("recording.csv") }
    public var pipelinePath: String { (directory as NSString).appendingPathComponent("studio.gesture") }

    /// The recording's channels, or nil when nothing is recorded yet.
    public func channels() throws -> [String]? { try RecordingAppend.existingLayout(recordingPath)?.channels }

    /// Every saved example, in file order. - Complexity: O(file size).
    public func examples() throws -> [ExampleInfo] {
        guard try channels() != nil else { return [] }
        return try CSVFormat.readRecordings(recordingPath).enumerated().map { i, r in
            ExampleInfo(id: r.session ?? String(i), label: ProjectStore.majorityLabel(r.labels) ?? "", series: r.series)
        }
    }

    /// One saved example's frames, or nil when there is no such example. - Complexity: O(file size).
    public func series(id: String) throws -> (label: String, series: TimeSeries)? {
        guard try channels() != nil else { return nil }
        guard let r = try CSVFormat.readRecordings(recordingPath).first(where: { $0.session == id }) else { return nil }
        return (ProjectStore.majorityLabel(r.labels) ?? "", r.series)
    }

    /// Appends one example as its own session. - Complexity: O(values).
    public func append(_ frames: [Float], channels: [String], label: String, id: String) throws -> ExampleInfo {
        try RecordingAppend.append(frames, channels: channels, label: label, session: id, to: recordingPath)
        return ExampleInfo(id: id, label: label, series: TimeSeries(values: frames, channelCount: channels.count, channelNames: channels))
    }

    /// Rewrites the recording without session `id` (a temporary file renamed over the old one).
    /// - Returns: false when there is no such example.
    /// - Complexity: O(file size).
    public func delete(id: String) throws -> Bool {
        guard try channels() != nil else { return false }
        let recordings = try CSVFormat.readRecordings(recordingPath)
        let kept = recordings.filter { $0.session != id }
        guard kept.count < recordings.count else { return false }
        if kept.isEmpty {
            try FileManager.default.removeItem(atPath: recordingPath)
        } else {
            try CSVFormat.write(Dataset(recordings: kept), to: recordingPath)
        }
        return true
    }

    /// The recording as training data: labelled segments, or windows when `window` is given.
    /// - Complexity: O(file size).
    public func dataset(window: PipelineSpec.Window?) throws -> Dataset {
        let data = try Dataset.load(recordingPath)
        guard let window, !data.recordings.isEmpty else { return data }
        return Dataset(recordings: data.recordings, cut: .windows(size: window.size, hop: window.hop, labelling: window.labelling),
                       classes: data.classes, source: data.source)
    }

    static func majorityLabel(_ labels: [String?]) -> String? {
        var counts: [String: Int] = [:]
        for l in labels { if let l { counts[l, default: 0] += 1 } }
        return counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
    }
}
