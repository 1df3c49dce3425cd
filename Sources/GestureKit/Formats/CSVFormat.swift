import Foundation

/// Recording CSV files: one row per frame, a header row naming the columns (or names given in
/// ``DatasetLoadOptions/columns``), a label column, an optional session column and numeric channels.
///
/// ```
/// session,label,accX,accY,accZ
/// s1,,0.01,-0.98,0.02        <- empty label = unlabelled (null)
/// s1,wave,0.4,-0.7,0.1
/// ```
/// Rows of one session form one ``Recording`` (labels may change within it); a file without a
/// session column is one session named after the file. A folder of CSV files is one dataset whose
/// user ids are the file-name prefixes before the first `-` (`anna-01.csv` -> `anna`).
///
/// Parsing works on bytes: cells are never turned into `String`s except labels and session ids,
/// which are made once per change, and numbers use `DecimalParsing`.
public enum CSVFormat {
    static let labelNames = ["label", "activity", "class"]
    static let sessionNames = ["session", "sessionid", "session_id"]
    static let userNames = ["user", "userid", "user_id"]

    /// Reads a CSV file or a folder of CSV files (in name order) as a dataset cut by `options.cut`.
    /// - Complexity: O(file size).
    public static func read(_ path: String, options: DatasetLoadOptions = .init()) throws -> Dataset {
        var isDir: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDir)
        var recordings: [Recording] = []
        var classes: [String] = []
        if isDir.boolValue {
            let files = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
                .filter { $0.lowercased().hasSuffix(".csv") }.sorted()
            guard !files.isEmpty else { throw GestureKitError("folder holds no .csv files", file: path) }
            for f in files {
                let stem = (f as NSString).deletingPathExtension
                let user = stem.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
                let input = try TextInput(path: (path as NSString).appendingPathComponent(f))
                let (more, moreClasses) = try parse(input, options: options, defaultSession: stem, user: user)
                for c in moreClasses where !classes.contains(c) { classes.append(c) }
                if let first = recordings.first, let next = more.first,
                   first.series.channelNames != next.series.channelNames {
                    throw input.error("channels \(next.series.channelNames.map(TextInput.short)) differ from \(first.series.channelNames.map(TextInput.short)) in the other files")
                }
                recordings += more
            }
        } else {
            let input = try TextInput(path: path)
            (recordings, classes) = try parse(input, options: options,
                                              defaultSession: (input.name as NSString).deletingPathExtension, user: nil)
        }
        return Dataset(recordings: recordings, cut: options.cut, classes: classes,
                       source: (path as NSString).lastPathComponent)
    }

    /// Reads one CSV file as its recordings, one per session in order of first appearance.
    /// - Complexity: O(file size).
    public static func readRecordings(_ path: String, options: DatasetLoadOptions = .init()) throws -> [Recording] {
        let input = try TextInput(path: path)
        return try parse(input, options: options, defaultSession: (input.name as NSString).deletingPathExtension, user: nil).recordings
    }

    /// Parses CSV text held in memory; `name` is used in error messages. - Complexity: O(bytes).
    public static func parseRecordings(_ bytes: [UInt8], name: String,
                                       options: DatasetLoadOptions = .init()) throws -> [Recording] {
        try parse(TextInput(bytes: bytes, name: name), options: options,
                  defaultSession: (name as NSString).deletingPathExtension, user: nil).recordings
    }

    // MARK: Reading

    private enum Role { case skip, session, label, user, channel(Int) }

    /// A cell: byte range in the file, already trimmed of spaces; `quoted` when it was in quotes.
    private struct Cell { var start: Int; var end: Int; var quoted: Bool }

    static func parse(_ input: TextInput, options: DatasetLoadOptions, defaultSession: String,
                      user fileUser: String?) throws -> (recordings: [Recording], classes: [String]) {
        if let rate = options.sampleRate, !(rate > 0 && rate.isFinite) {
            throw GestureKitError("must be a positive number, got \(rate)", field: "sampleRate")
        }
        return try input.reading(what: "CSV text") { try input.bytes.withUnsafeBufferPointer { buf in
            try DecimalParsing.powersOfTen.withUnsafeBufferPointer { pow10 in
                try parse(buf, pow10.baseAddress!, input, options, defaultSession, fileUser)
            }
        }
        }
    }

    /// Splits one line `[start, end)` into cells, handling quotes. Used for the header and for
    /// rows with quotes; plain rows go through the fast loop in `parse`.
    private static func splitCells(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int,
                                    _ delimiter: UInt8) -> [Cell] {
        var cells: [Cell] = []
        var i = start
        while true {
            while i < end, b[i] == 32 || b[i] == 9, b[i] != delimiter { i += 1 }
            if i < end, b[i] == UInt8(ascii: "\"") {
                let s = i + 1
                var j = s
                while j < end {
                    if b[j] == UInt8(ascii: "\"") {
                        if j + 1 < end, b[j + 1] == UInt8(ascii: "\"") { j += 2; continue }
                        break
                    }
                    j += 1
                }
                cells.append(Cell(start: s, end: j, quoted: true))
                i = j + 1
                while i < end, b[i] != delimiter { i += 1 }
            } else {
                let s = i
                while i < end, b[i] != delimiter { i += 1 }
                var e = i
                while e > s, b[e - 1] == 32 || b[e - 1] == 9 { e -= 1 }
                cells.append(Cell(start: s, end: e, quoted: false))
            }
            if i >= end { break }
            i += 1  // past the delimiter
        }
        return cells
    }

    private static func text(_ b: UnsafeBufferPointer<UInt8>, _ c: Cell) -> String {
        let raw = UnsafeBufferPointer(rebasing: b[c.start..<c.end])
        guard c.quoted else { return String(decoding: raw, as: UTF8.self) }
        // Undouble quotes byte by byte: a String search misses `""` when a combining mark
        // follows, since `"` plus the mark is one Character.
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        while i < raw.count {
            out.append(raw[i])
            i += raw[i] == 34 && i + 1 < raw.count && raw[i + 1] == 34 ? 2 : 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func find(_ names: [String], in columns: [String]) -> Int? {
        for n in names {
            if let i = columns.firstIndex(where: { $0.lowercased() == n }) { return i }
        }
        return nil
    }

    private static func column(_ name: String, in columns: [String], _ input: TextInput, what: String) throws -> Int {
        if let i = columns.firstIndex(of: name) ?? columns.firstIndex(where: { $0.lowercased() == name.lowercased() }) {
            return i
        }
        throw input.error("no \(what) column named \"\(TextInput.short(name))\" (columns: \(columns.prefix(20).map(TextInput.short).joined(separator: ", "))\(columns.count > 20 ? ", ..." : ""))", line: 1)
    }

    /// What the header says: the columns, their roles and the delimiter, and where the data starts.
    private struct Layout {
        var columns: [String]
        var delimiter: UInt8
        var sessionIndex: Int?
        var userIndex: Int?
        var channelNames: [String]
        /// Per column, as small ints for the hot loop: -1 skip, -2 session, -3 label, -4 user, k channel.
        var codes: [Int]
        /// Byte offset and line number of the first data row.
        var dataStart: Int
        var dataLine: Int
    }

    private static func lineEnd(_ b: UnsafeBufferPointer<UInt8>, _ from: Int) -> Int {
        var e = from
        while e < b.count, b[e] != 10 { e += 1 }
        return e
    }

    private static func trimCR(_ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int) -> Int {
        e > s && b[e - 1] == 13 ? e - 1 : e
    }

    /// Reads the header (or takes the names given), guesses the delimiter and gives each column its role.
    private static func layout(_ b: UnsafeBufferPointer<UInt8>, _ pow10: UnsafePointer<Double>,
                               _ input: TextInput, _ options: DatasetLoadOptions) throws -> Layout {
        var pos = 0
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { pos = 3 }  // UTF-8 byte order mark
        var line = 1
        let columns: [String]
        var firstLine = (pos, trimCR(b, pos, lineEnd(b, pos)))
        let sample = UnsafeBufferPointer(rebasing: b[firstLine.0..<firstLine.1])
        let delimiter: UInt8 = sample.contains(UInt8(ascii: ",")) ? UInt8(ascii: ",")
            : sample.contains(9) ? 9 : sample.contains(UInt8(ascii: ";")) ? UInt8(ascii: ";") : UInt8(ascii: ",")
        if let given = options.columns {
            guard !given.isEmpty else { throw input.error("--columns names no columns") }
            columns = given
        } else {
            let cells = splitCells(b, firstLine.0, firstLine.1, delimiter)
            columns = cells.map { text(b, $0) }
            if cells.allSatisfy({ c in !c.quoted && DecimalParsing.parseFloat(b.baseAddress! + c.start, c.end - c.start, pow10) != nil }) {
                throw input.error("the first line looks like data, not a header; name the columns (--columns)", line: 1)
            }
            pos = min(b.count, lineEnd(b, pos) + 1)
            line = 2
            firstLine = (pos, trimCR(b, pos, lineEnd(b, pos)))
        }

        let labelIndex: Int
        if let name = options.labelColumn {
            labelIndex = try column(name, in: columns, input, what: "label")
        } else if let i = find(labelNames, in: columns) {
            labelIndex = i
        } else if options.columns == nil, columns.contains(where: { DecimalParsing.parseFloat(Array($0.utf8)) != nil }) {
            throw input.error("the first line looks like data, not a header; name the columns (--columns)", line: 1)
        } else {
            throw input.error("no label column (looked for label, activity, class); name it with --label-column", line: 1)
        }
        let sessionIndex = try options.sessionColumn.map { try column($0, in: columns, input, what: "session") }
            ?? find(sessionNames, in: columns)
        let userIndex = find(userNames, in: columns).flatMap { $0 == labelIndex || $0 == sessionIndex ? nil : $0 }
        var roles = [Role](repeating: .skip, count: columns.count)
        if let sessionIndex { roles[sessionIndex] = .session }
        if let userIndex { roles[userIndex] = .user }
        roles[labelIndex] = .label
        var channelNames: [String] = []
        if let picked = options.channels {
            guard !picked.isEmpty else { throw input.error("--channels names no columns") }
            for name in picked {
                let i = try column(name, in: columns, input, what: "channel")
                guard case .skip = roles[i] else {
                    throw input.error("column \"\(TextInput.short(name))\" is the label/session column, it cannot be a channel", line: 1)
                }
                roles[i] = .channel(channelNames.count)
                channelNames.append(columns[i])
            }
        } else {
            // Other columns are channels when numeric in the first data row.
            let cells = firstLine.0 < firstLine.1 ? splitCells(b, firstLine.0, firstLine.1, delimiter) : []
            for i in columns.indices {
                guard case .skip = roles[i] else { continue }
                if i < cells.count {
                    let c = cells[i]
                    if DecimalParsing.parseFloat(b.baseAddress! + c.start, c.end - c.start, pow10) == nil { continue }
                }
                roles[i] = .channel(channelNames.count)
                channelNames.append(columns[i])
            }
        }
        guard !channelNames.isEmpty else { throw input.error("no numeric channel columns besides the label/session columns", line: 1) }
        let codes: [Int] = roles.map {
            switch $0 { case .skip: -1; case .session: -2; case .label: -3; case .user: -4; case let .channel(k): k }
        }
        return Layout(columns: columns, delimiter: delimiter, sessionIndex: sessionIndex, userIndex: userIndex,
                      channelNames: channelNames, codes: codes, dataStart: pos, dataLine: line)
    }

    /// One row's cells: byte ranges of every column and the parsed channel values, in buffers sized once.
    private struct RowCells {
        let base: UnsafePointer<UInt8>
        let n: Int
        let ncols: Int
        let delimiter: UInt8
        let pow10: UnsafePointer<Double>
        let codes: UnsafeMutablePointer<Int>
        let starts: UnsafeMutablePointer<Int>
        let ends: UnsafeMutablePointer<Int>
        let frame: UnsafeMutablePointer<Float>
        /// The row's cells when it had quotes (their text needs unquoting), else nil.
        var quoted: [Cell]?

        init(_ b: UnsafeBufferPointer<UInt8>, _ layout: Layout, _ pow10: UnsafePointer<Double>) {
            base = b.baseAddress!
            n = b.count
            ncols = layout.columns.count
            delimiter = layout.delimiter
            self.pow10 = pow10
            codes = .allocate(capacity: ncols)
            starts = .allocate(capacity: ncols)
            ends = .allocate(capacity: ncols)
            frame = .allocate(capacity: layout.channelNames.count)
            for k in 0..<ncols { codes[k] = layout.codes[k] }
        }

        func deallocate() {
            codes.deallocate(); starts.deallocate(); ends.deallocate(); frame.deallocate()
        }

        /// Cell `k` as text (session ids, labels).
        func text(_ k: Int, in b: UnsafeBufferPointer<UInt8>) -> String {
            if let quoted { return CSVFormat.text(b, quoted[k]) }
            return String(decoding: UnsafeBufferPointer(start: base + starts[k], count: ends[k] - starts[k]), as: UTF8.self)
        }

        /// The fast path: one pass over a plain row, numbers parsed where they stand.
        /// - Returns: where the row ends (its newline or the end of the bytes), or nil when anything is
        ///   unusual (quotes, a bad cell, a wrong cell count, a blank line): ``scanCarefully`` then
        ///   finds and reports the problem.
        @inline(__always)
        mutating func scanPlain(_ pos: Int) -> Int? {
            quoted = nil
            var i = pos
            for k in 0..<ncols {
                while i < n, base[i] == 32 || base[i] == 9 { i += 1 }
                let s = i
                let c = codes[k]
                if c >= 0, let (v, e) = DecimalParsing.scanFloat(base, i, n, pow10) {
                    frame[c] = v
                    i = e
                    starts[k] = s
                    ends[k] = e
                } else {
                    if i < n, base[i] == 34 { return nil }
                    while i < n {
                        let ch = base[i]
                        if ch == delimiter || ch == 10 { break }
                        i += 1
                    }
                    var e = i
                    while e > s, base[e - 1] == 32 || base[e - 1] == 9 || base[e - 1] == 13 { e -= 1 }
                    starts[k] = s
                    ends[k] = e
                    if c >= 0 {
                        guard let v = DecimalParsing.parseFloat(base + s, e - s, pow10), v.isFinite else { return nil }
                        frame[c] = v
                    }
                }
                while i < n, base[i] == 32 || base[i] == 9 || base[i] == 13 { i += 1 }
                if k < ncols - 1 {
                    guard i < n, base[i] == delimiter else { return nil }
                    i += 1
                } else {
                    guard i >= n || base[i] == 10 else { return nil }
                }
            }
            return i
        }

        /// The careful path for a row the fast path left: quotes, blank lines and errors.
        /// - Returns: where the row ends, and whether it was blank (to be skipped).
        /// - Throws: naming the line and the column at fault.
        mutating func scanCarefully(_ pos: Int, line: Int, _ b: UnsafeBufferPointer<UInt8>, _ columns: [String],
                                    _ input: TextInput) throws -> (end: Int, blank: Bool) {
            var end = pos
            var hasQuote = false
            while end < n, base[end] != 10 { if base[end] == 34 { hasQuote = true }; end += 1 }
            let lineStop = end > pos && base[end - 1] == 13 ? end - 1 : end
            var blank = true
            for k in pos..<lineStop where base[k] != 32 && base[k] != 9 { blank = false; break }
            if blank { return (end, true) }
            let cells = splitCells(b, pos, lineStop, delimiter)
            guard cells.count == ncols else {
                throw input.error("expected \(ncols) columns, found \(cells.count)", line: line)
            }
            for (k, c) in cells.enumerated() { starts[k] = c.start; ends[k] = c.end }
            quoted = hasQuote ? cells : nil
            for k in 0..<ncols where codes[k] >= 0 {
                let s = starts[k], e = ends[k]
                guard let v = DecimalParsing.parseFloat(base + s, e - s, pow10), v.isFinite else {
                    let cell = UnsafeBufferPointer(start: base + s, count: e - s)
                    if s == e { throw input.error("empty value (missing values are not supported)", line: line, field: columns[k]) }
                    if DecimalParsing.parseFloat(cell) != nil {
                        throw input.error("\(TextInput.quote(cell)) is not a finite number", line: line, field: columns[k])
                    }
                    throw input.error("expected a number, found \(TextInput.quote(cell))", line: line, field: columns[k])
                }
                frame[codes[k]] = v
            }
            return (end, false)
        }
    }

    /// Frames and labels gathered per session, in order of first appearance; rows may switch back
    /// and forth between sessions.
    private struct SessionRecordings {
        struct Builder { var values: [Float]; var labels: [String?]; var session: String; var user: String? }
        let channels: Int
        let fileUser: String?
        /// Rows to reserve for the first session.
        let estimate: Int
        var builders: [Builder] = []
        var sessionOf: [String: Int] = [:]
        var current = -1
        /// The current session's frames and labels, out of `builders` while it is being filled.
        var values: [Float] = []
        var labels: [String?] = []

        mutating func switchTo(_ key: String, user: String?) {
            if current >= 0 {
                builders[current].values = values
                builders[current].labels = labels
            }
            if let i = sessionOf[key] {
                current = i
                values = builders[i].values
                labels = builders[i].labels
                builders[i].values = []
                builders[i].labels = []
            } else {
                current = builders.count
                sessionOf[key] = current
                // Sessions tend to be alike in length: reserve what the previous one needed.
                let rows = builders.last.map { max(1024, $0.labels.count) } ?? estimate
                builders.append(Builder(values: [], labels: [], session: key, user: user ?? fileUser))
                values = []
                labels = []
                values.reserveCapacity(rows * channels)
                labels.reserveCapacity(rows)
            }
        }

        mutating func recordings(channelNames: [String], sampleRate: Double?) -> [Recording] {
            if current >= 0 {
                builders[current].values = values
                builders[current].labels = labels
            }
            return builders.filter { !$0.labels.isEmpty }.map { bld in
                Recording(series: TimeSeries(values: bld.values, channelCount: channels, channelNames: channelNames,
                                             sampleRate: sampleRate),
                          labels: bld.labels, session: bld.session, user: bld.user)
            }
        }
    }

    /// One pass over the bytes: the header, then every row into the recording of its session.
    private static func parse(_ b: UnsafeBufferPointer<UInt8>, _ pow10: UnsafePointer<Double>,
                              _ input: TextInput, _ options: DatasetLoadOptions,
                              _ defaultSession: String, _ fileUser: String?) throws -> (recordings: [Recording], classes: [String]) {
        let layout = try layout(b, pow10, input, options)
        let n = b.count, base = b.baseAddress!
        var pos = layout.dataStart, line = layout.dataLine
        let nch = layout.channelNames.count
        var sessions = SessionRecordings(channels: nch, fileUser: fileUser,
                                         estimate: max(16, (n - pos) / max(1, layout.columns.count * 8)))
        if layout.sessionIndex == nil { sessions.switchTo(defaultSession, user: nil) }
        var cells = RowCells(b, layout, pow10)
        defer { cells.deallocate() }
        var prevSession = (start: 0, end: -1)   // no previous row yet
        var prevLabel = (start: 0, end: -1)
        var prevLabelValue: String? = nil
        var classSeen = Set<String>()
        var classOrder: [String] = []
        var userTaken = false
        func same(_ a: (start: Int, end: Int), _ s: Int, _ e: Int) -> Bool {
            guard a.end - a.start == e - s else { return false }
            return memcmp(base + a.start, base + s, e - s) == 0
        }

        while pos < n {
            let end: Int
            if let e = cells.scanPlain(pos) {
                end = e
            } else {
                let row = try cells.scanCarefully(pos, line: line, b, layout.columns, input)
                if row.blank { pos = row.end + 1; line += 1; continue }
                end = row.end
            }
            defer { pos = end + 1; line += 1 }
            // Session first, so the frame goes to the right recording.
            if let si = layout.sessionIndex {
                let s = cells.starts[si], e = cells.ends[si]
                if !same(prevSession, s, e) {
                    let key = cells.text(si, in: b)
                    if key.isEmpty { throw input.error("empty session id", line: line, field: layout.columns[si]) }
                    sessions.switchTo(key, user: layout.userIndex.map { cells.text($0, in: b) })
                    prevSession = (s, e)
                }
            } else if let ui = layout.userIndex, !userTaken {
                // Without sessions the file is one recording: its user is the first row's.
                sessions.builders[sessions.current].user = cells.text(ui, in: b)
                userTaken = true
            }
            for k in 0..<layout.columns.count where cells.codes[k] == -3 {
                let s = cells.starts[k], e = cells.ends[k]
                if !same(prevLabel, s, e) {
                    prevLabelValue = s == e ? nil : cells.text(k, in: b)
                    prevLabel = cells.quoted == nil ? (s, e) : (0, -1)
                    if let l = prevLabelValue, classSeen.insert(l).inserted { classOrder.append(l) }
                }
                sessions.labels.append(prevLabelValue)
            }
            sessions.values.append(contentsOf: UnsafeBufferPointer(start: cells.frame, count: nch))
        }
        let recordings = sessions.recordings(channelNames: layout.channelNames, sampleRate: options.sampleRate)
        guard !recordings.isEmpty else { throw input.error("no data rows", line: line - 1) }
        return (recordings, classOrder)
    }

    // MARK: Writing

    /// Writes `dataset` as a recording CSV: columns `session,label[,user],<channels>`. With
    /// recordings, each is written in order with its per-frame labels (null = empty cell);
    /// otherwise each example is its own session, named by its index, so reading the file back
    /// gives the same examples in the same order.
    /// - Complexity: O(values).
    public static func write(_ dataset: Dataset, to path: String) throws {
        try writeAtomically(encode(dataset), to: path)
    }

    /// The CSV text ``write(_:to:)`` writes. - Complexity: O(values).
    public static func encode(_ dataset: Dataset) -> [UInt8] {
        let withUser = dataset.recordings.isEmpty ? dataset.examples.contains { $0.user != nil }
            : dataset.recordings.contains { $0.user != nil }
        var out: [UInt8] = []
        let names = ["session", "label"] + (withUser ? ["user"] : []) + dataset.channelNames
        out.append(names.map(escape).joined(separator: ","))
        out.append(10)
        func row(_ session: String, _ label: String?, _ user: String?, _ frame: ArraySlice<Float>) {
            out.append(escape(session))
            out.append(44)
            out.append(escape(label ?? ""))
            if withUser { out.append(44); out.append(escape(user ?? "")) }
            for v in frame {
                out.append(44)
                out.append(DecimalParsing.format(v))
            }
            out.append(10)
        }
        if dataset.recordings.isEmpty {
            for (i, e) in dataset.examples.enumerated() {
                for f in 0..<e.series.frameCount { row(String(i), e.label, e.user, e.series.frame(f)) }
            }
        } else {
            var used = Set<String>()
            for (i, r) in dataset.recordings.enumerated() {
                // Rows group by session id when read back, so ids must not repeat across recordings.
                var id = r.session ?? String(i)
                if !used.insert(id).inserted { id += "#\(i)"; used.insert(id) }
                for f in 0..<r.series.frameCount { row(id, r.labels[f], r.user, r.series.frame(f)) }
            }
        }
        return out
    }

    /// Quotes a cell when needed. Works on UTF-8 bytes, as the reader does: compared as
    /// Characters, a `"` or `,` followed by a combining mark would go out unquoted or undoubled.
    static func escape(_ s: String) -> String {
        let u = s.utf8
        guard u.contains(where: { $0 == 44 || $0 == 34 || $0 == 10 || $0 == 13 || $0 == 59 || $0 == 9 })
            || u.first == 32 || u.last == 32 else { return s }
        var out: [UInt8] = [34]
        for c in u {
            out.append(c)
            if c == 34 { out.append(34) }
        }
        out.append(34)
        return String(decoding: out, as: UTF8.self)
    }
}
