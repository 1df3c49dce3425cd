import Foundation

/// How ``Dataset/load(_:options:)`` reads a CSV file and cuts continuous recordings into examples.
/// Every field has a default, so `DatasetLoadOptions()` reads the common layouts.
public struct DatasetLoadOptions: Sendable, Hashable {
    /// CSV: the column holding each row's label. Default: a column named `label`, `activity` or
    /// `class` (any case).
    public var labelColumn: String?
    /// CSV: the column holding the session (recording) id. Default: `session`, `sessionId` or
    /// `session_id` (any case); without one, each file is one session.
    public var sessionColumn: String?
    /// CSV: the columns to use as channels, in this order. Default: every other numeric column.
    public var channels: [String]?
    /// CSV without a header row: the names of all columns, in file order.
    public var columns: [String]?
    /// How continuous recordings (CSV, HAPT, GRT continuous files) become examples.
    public var cut: Dataset.Cut = .segments
    /// Samples per second, for sources that do not record it (CSV, .ts, .grt); when set it is
    /// given to every example and recording. `nil` keeps what the file says (HAPT: 50), if anything.
    public var sampleRate: Double?

    /// Options; every parameter is the property of the same name.
    public init(labelColumn: String? = nil, sessionColumn: String? = nil, channels: [String]? = nil,
                columns: [String]? = nil, cut: Dataset.Cut = .segments, sampleRate: Double? = nil) {
        self.labelColumn = labelColumn
        self.sessionColumn = sessionColumn
        self.channels = channels
        self.columns = columns
        self.cut = cut
        self.sampleRate = sampleRate
    }
}

/// The dataset file formats GestureKit reads.
public enum DatasetFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// Recording CSV (one row per frame), a file or a folder of files. See ``CSVFormat``.
    case csv
    /// GRT's text formats (classification, time-series, continuous). See ``GRTFormat``.
    case grt
    /// sktime/aeon `.ts` time-series classification files. See ``TSFormat``.
    case ts
    /// The raw folder of the UCI HAPT dataset (`labels.txt`, `acc_expXX_userYY.txt`, ...). See ``HAPTFormat``.
    case hapt

    /// The format of the file or folder at `path`: by extension (`.csv`, `.grt`, `.ts`), for a
    /// folder by what it holds, otherwise by the first bytes (`GRT_...`, `#`/`@` headers, else CSV).
    /// - Complexity: a directory listing or a read of at most the first 4 KB.
    public static func of(_ path: String) throws -> DatasetFormat {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw GestureKitError("no such file or folder", file: path)
        }
        if isDir.boolValue {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            if HAPTFormat.isRawDataFolder(names) { return .hapt }
            if names.contains(where: { $0.lowercased().hasSuffix(".csv") }) { return .csv }
            if names.contains("RawData"),
               let inner = try? FileManager.default.contentsOfDirectory(atPath: path + "/RawData"),
               HAPTFormat.isRawDataFolder(inner) { return .hapt }
            throw GestureKitError("folder holds no .csv files and is not a HAPT RawData folder", file: path)
        }
        switch (path as NSString).pathExtension.lowercased() {
        case "csv": return .csv
        case "grt": return .grt
        case "ts": return .ts
        default: break
        }
        guard let h = FileHandle(forReadingAtPath: path) else { throw GestureKitError("cannot read the file", file: path) }
        defer { try? h.close() }
        let head = [UInt8]((try? h.read(upToCount: 4096)) ?? Data())
        if head.starts(with: Array("GRT_".utf8)) { return .grt }
        if let first = head.first(where: { $0 != 32 && $0 != 9 && $0 != 10 && $0 != 13 }),
           first == UInt8(ascii: "#") || first == UInt8(ascii: "@") { return .ts }
        return .csv
    }
}

extension Dataset {
    /// Reads a file or folder, format by extension/contents: `.csv`, a folder of `.csv`, `.grt`,
    /// `.ts`, or a HAPT RawData folder.
    ///
    /// Continuous sources (CSV sessions, HAPT experiments, GRT continuous files) fill
    /// ``recordings`` and are cut into examples as `options.cut` says; per-example formats (.ts,
    /// GRT classification and time-series files) have no recordings.
    /// - Throws: ``GestureKitError`` naming the file, 1-based line and field of the first problem.
    /// - Complexity: O(file size); one pass over the bytes, no `String` per numeric cell.
    public static func load(_ path: String, options: DatasetLoadOptions = .init()) throws -> Dataset {
        if let rate = options.sampleRate, !(rate > 0 && rate.isFinite) {
            throw GestureKitError("must be a positive number, got \(rate)", file: path, field: "sampleRate")
        }
        var d: Dataset
        switch try DatasetFormat.of(path) {
        case .csv: d = try CSVFormat.read(path, options: options)
        case .grt: d = try GRTFormat.read(path, cut: options.cut)
        case .ts: d = try TSFormat.read(path)
        case .hapt: d = try HAPTFormat.read(path, cut: options.cut)
        }
        if let rate = options.sampleRate {
            d.sampleRate = rate
            for i in d.examples.indices { d.examples[i].series.sampleRate = rate }
            for i in d.recordings.indices { d.recordings[i].series.sampleRate = rate }
        }
        return d
    }

    /// Writes by extension: `.csv` (a recording CSV with per-row labels), `.grt` (the GRT
    /// classification, time-series or continuous format, whichever fits), `.ts` (per-example
    /// datasets); any other extension is an error. The file is written to a temporary name and
    /// renamed, so a failure never leaves half a file.
    /// - Complexity: O(values).
    public func write(to path: String) throws {
        switch (path as NSString).pathExtension.lowercased() {
        case "csv": try CSVFormat.write(self, to: path)
        case "grt": try GRTFormat.write(self, to: path)
        case "ts": try TSFormat.write(self, to: path)
        case let ext:
            throw GestureKitError("cannot write \(ext.isEmpty ? "a file without extension" : ".\(ext)") files; use .csv, .grt or .ts", file: path)
        }
    }
}
