import Foundation

/// GRT's labelled text formats (Gesture Recognition Toolkit `.grt` files):
///
/// - `GRT_LABELLED_CLASSIFICATION_DATA_FILE_V1.0`: one labelled vector per row; each row becomes
///   an example of one frame. Class names come from the class table unless `NOT_SET`, in which
///   case the numeric label is the name.
/// - `GRT_LABELLED_TIME_SERIES_CLASSIFICATION_DATA_FILE_V1.0`: one labelled series per block.
/// - `GRT_LABELLED_CONTINUOUS_TIME_SERIES_CLASSIFICATION_FILE_V1.0`: one labelled stream, read as a
///   ``Recording`` (label 0 = null).
///
/// Files are read as GRT does, as a stream of white-space separated tokens (`InfoText:` runs to
/// `NumDimensions:`), and every declared count is checked against the data.
public enum GRTFormat {
    /// The first line of a GRT labelled classification file.
    public static let classificationHeader = "GRT_LABELLED_CLASSIFICATION_DATA_FILE_V1.0"
    /// The first line of a GRT labelled time-series file.
    public static let timeSeriesHeader = "GRT_LABELLED_TIME_SERIES_CLASSIFICATION_DATA_FILE_V1.0"
    /// The first line of a GRT continuous labelled stream.
    public static let continuousHeader = "GRT_LABELLED_CONTINUOUS_TIME_SERIES_CLASSIFICATION_FILE_V1.0"
    static let timeSeriesMarker = "************TIME_SERIES************"
    /// An `InfoText` entry GestureKit writes so class names survive formats whose class table has
    /// no name column (`ClassNames: 1=walk 2=wave`). GRT itself ignores it.
    static let classNamesKey = "ClassNames:"

    /// Reads a `.grt` file. - Complexity: O(file size).
    public static func read(_ path: String, cut: Dataset.Cut = .segments) throws -> Dataset {
        try parse(TextInput(path: path), cut: cut)
    }

    /// Parses `.grt` text held in memory; `name` is used in error messages. - Complexity: O(bytes).
    public static func parse(_ bytes: [UInt8], name: String, cut: Dataset.Cut = .segments) throws -> Dataset {
        try parse(TextInput(bytes: bytes, name: name), cut: cut)
    }

    static func parse(_ input: TextInput, cut: Dataset.Cut) throws -> Dataset {
        return try input.reading(what: "a GRT file") { try input.bytes.withUnsafeBufferPointer { b in
            try DecimalParsing.powersOfTen.withUnsafeBufferPointer { p in
                var t = Tokens(b: b, pow10: p.baseAddress!, input: input)
                return try parse(&t, cut: cut)
            }
        }
        }
    }

    /// A white-space token stream over the file with line numbers for messages.
    struct Tokens {
        let b: UnsafeBufferPointer<UInt8>
        let pow10: UnsafePointer<Double>
        let input: TextInput
        var pos = 0
        var line = 1
        /// Line of the last token returned.
        var tokenLine = 1

        init(b: UnsafeBufferPointer<UInt8>, pow10: UnsafePointer<Double>, input: TextInput) {
            self.b = b
            self.pow10 = pow10
            self.input = input
        }

        /// The next token's byte range, or `nil` at the end.
        mutating func next() -> Range<Int>? {
            while pos < b.count, b[pos] <= 32 {
                if b[pos] == 10 { line += 1 }
                pos += 1
            }
            guard pos < b.count else { return nil }
            let s = pos
            while pos < b.count, b[pos] > 32 { pos += 1 }
            tokenLine = line
            return s..<pos
        }

        func string(_ r: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: b[r]), as: UTF8.self) }

        func error(_ message: String, field: String? = nil) -> GestureKitError {
            input.error(message, line: tokenLine, field: field)
        }

        mutating func token(_ what: String) throws -> Range<Int> {
            guard let r = next() else { throw input.error("file ends early, expected \(what)", line: line) }
            return r
        }

        /// Requires the next token to be one of `keywords` (exactly, case-sensitive).
        @discardableResult
        mutating func expect(_ keywords: String...) throws -> String {
            let r = try token(keywords[0])
            let s = string(r)
            guard keywords.contains(s) else {
                throw error("expected \(keywords.map { "'\($0)'" }.joined(separator: " or ")), found \(TextInput.quote(b[r]))")
            }
            return s
        }

        mutating func count(_ field: String) throws -> Int {
            let r = try token("a count after \(field)")
            guard let v = DecimalParsing.parseUInt(b.baseAddress! + r.lowerBound, r.count) else {
                throw error("expected a whole number, found \(TextInput.quote(b[r]))", field: field)
            }
            // No count can exceed the bytes of the file; checking keeps reservations sane.
            guard v <= b.count else { throw error("\(v) is more than a \(b.count)-byte file can hold", field: field) }
            return v
        }

        mutating func value(_ field: String) throws -> Float {
            let r = try token("a number (\(field))")
            guard let v = DecimalParsing.parseFloat(b.baseAddress! + r.lowerBound, r.count, pow10) else {
                throw error("expected a number, found \(TextInput.quote(b[r]))", field: field)
            }
            guard v.isFinite else { throw error("\(TextInput.quote(b[r])) is not a finite number", field: field) }
            return v
        }

        /// Reads `count` values into `out`.
        mutating func values(_ count: Int, into out: inout [Float], field: String) throws {
            for _ in 0..<count { out.append(try value(field)) }
        }
    }

    struct Header {
        var datasetName = ""
        var info: [String] = []
        var dimensions = 0
    }

    static func parse(_ t: inout Tokens, cut: Dataset.Cut) throws -> Dataset {
        guard let first = t.next() else { throw t.input.error("empty file, expected a GRT file") }
        let format = t.string(first)
        switch format {
        case classificationHeader, timeSeriesHeader, continuousHeader: break
        case "GRT_LABELLED_REGRESSION_DATA_FILE_V1.0", "GRT_UNLABELLED_DATA_FILE_V1.0",
             "GRT_UNLABELLED_CLASSIFICATION_DATA_FILE_V1.0":
            throw t.error("\(format) holds no class labels; only GRT classification, time-series and continuous files are supported")
        default:
            throw t.error("unknown GRT format \(TextInput.quote(t.b[first])), expected \(classificationHeader), \(timeSeriesHeader) or \(continuousHeader)")
        }
        var h = Header()
        try t.expect("DatasetName:")
        h.datasetName = t.string(try t.token("a dataset name"))
        try t.expect("InfoText:")
        while true {
            let r = try t.token("NumDimensions:")
            let s = t.string(r)
            if s == "NumDimensions:" { break }
            h.info.append(s)
        }
        h.dimensions = try t.count("NumDimensions")
        guard h.dimensions > 0 else { throw t.error("must be at least 1", field: "NumDimensions") }
        let source = (t.input.name as NSString).lastPathComponent
        switch format {
        case classificationHeader: return try readClassification(&t, h, source: source)
        case timeSeriesHeader: return try readTimeSeries(&t, h, source: source)
        default: return try readContinuous(&t, h, cut: cut, source: source)
        }
    }

    /// Names given in InfoText by `ClassNames: 1=walk 2=wave`.
    static func infoNames(_ info: [String]) -> [Int: String] {
        guard let k = info.firstIndex(of: classNamesKey) else { return [:] }
        var out: [Int: String] = [:]
        for token in info[(k + 1)...] {
            let parts = token.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let id = Int(parts[0]) else { break }
            out[id] = String(parts[1])
        }
        return out
    }

    static func externalRanges(_ t: inout Tokens, _ d: Int) throws {
        try t.expect("UseExternalRanges:")
        let use = try t.count("UseExternalRanges")
        guard use <= 1 else { throw t.error("expected 0 or 1, found \(use)", field: "UseExternalRanges") }
        if use == 1 {
            var ignored: [Float] = []
            try t.values(2 * d, into: &ignored, field: "external ranges")
        }
    }

    static func readClassification(_ t: inout Tokens, _ h: Header, source: String) throws -> Dataset {
        try t.expect("TotalNumTrainingExamples:", "TotalNumExamples:")
        let n = try t.count("TotalNumTrainingExamples")
        try t.expect("NumberOfClasses:")
        let k = try t.count("NumberOfClasses")
        try t.expect("ClassIDsAndCounters:")
        var table: [(id: Int, count: Int, name: String)] = []
        for _ in 0..<k {
            let id = try t.count("class label")
            let count = try t.count("class counter")
            let nameToken = try t.token("a class name")
            let name = t.string(nameToken)
            if table.contains(where: { $0.id == id }) { throw t.error("class \(id) is listed twice", field: "ClassIDsAndCounters") }
            table.append((id, count, name == "NOT_SET" ? String(id) : name))
        }
        try externalRanges(&t, h.dimensions)
        try t.expect("LabelledTrainingData:", "Data:")
        let nameOf = Dictionary(uniqueKeysWithValues: table.map { ($0.id, $0.name) })
        var seen: [Int: Int] = [:]
        var examples: [Example] = []
        examples.reserveCapacity(n)
        var frame: [Float] = []
        for _ in 0..<n {
            let id = try t.count("class label")
            guard let name = nameOf[id] else { throw t.error("class \(id) is not in ClassIDsAndCounters", field: "class label") }
            seen[id, default: 0] += 1
            frame.removeAll(keepingCapacity: true)
            try t.values(h.dimensions, into: &frame, field: "value")
            examples.append(Example(series: TimeSeries(values: frame, channelCount: h.dimensions), label: name))
        }
        try checkEnd(&t, declared: n)
        try checkCounts(t, table.map { ($0.id, $0.count) }, seen)
        return Dataset(examples: examples, classes: table.sorted { $0.id < $1.id }.map(\.name),
                       channelNames: TimeSeries.defaultNames(h.dimensions), source: source)
    }

    static func readTimeSeries(_ t: inout Tokens, _ h: Header, source: String) throws -> Dataset {
        try t.expect("TotalNumTrainingExamples:")
        let n = try t.count("TotalNumTrainingExamples")
        try t.expect("NumberOfClasses:")
        let k = try t.count("NumberOfClasses")
        try t.expect("ClassIDsAndCounters:")
        var table: [(id: Int, count: Int)] = []
        for _ in 0..<k {
            let id = try t.count("class label")
            if table.contains(where: { $0.id == id }) { throw t.error("class \(id) is listed twice", field: "ClassIDsAndCounters") }
            table.append((id, try t.count("class counter")))
        }
        try externalRanges(&t, h.dimensions)
        try t.expect("LabelledTimeSeriesTrainingData:")
        let names = infoNames(h.info)
        let ids = Set(table.map(\.id))
        var seen: [Int: Int] = [:]
        var examples: [Example] = []
        for _ in 0..<n {
            try t.expect(timeSeriesMarker)
            try t.expect("ClassID:")
            let id = try t.count("ClassID")
            guard ids.contains(id) else { throw t.error("class \(id) is not in ClassIDsAndCounters", field: "ClassID") }
            seen[id, default: 0] += 1
            try t.expect("TimeSeriesLength:")
            let length = try t.count("TimeSeriesLength")
            guard length <= t.b.count / h.dimensions else {
                throw t.error("\(length) frames of \(h.dimensions) values are more than the file holds", field: "TimeSeriesLength")
            }
            try t.expect("TimeSeriesData:")
            var values: [Float] = []
            values.reserveCapacity(length * h.dimensions)
            try t.values(length * h.dimensions, into: &values, field: "value")
            examples.append(Example(series: TimeSeries(values: values, channelCount: h.dimensions),
                                    label: names[id] ?? String(id)))
        }
        try checkEnd(&t, declared: n)
        try checkCounts(t, table, seen)
        return Dataset(examples: examples, classes: table.map(\.id).sorted().map { names[$0] ?? String($0) },
                       channelNames: TimeSeries.defaultNames(h.dimensions), source: source)
    }

    static func readContinuous(_ t: inout Tokens, _ h: Header, cut: Dataset.Cut, source: String) throws -> Dataset {
        try t.expect("TotalNumSamples:")
        let n = try t.count("TotalNumSamples")
        guard n <= t.b.count / h.dimensions else {
            throw t.error("\(n) samples of \(h.dimensions) values are more than the file holds", field: "TotalNumSamples")
        }
        try t.expect("NumberOfClasses:")
        let k = try t.count("NumberOfClasses")
        try t.expect("ClassIDsAndCounters:")
        var table: [(id: Int, count: Int)] = []
        for _ in 0..<k {
            let id = try t.count("class label")
            if table.contains(where: { $0.id == id }) { throw t.error("class \(id) is listed twice", field: "ClassIDsAndCounters") }
            table.append((id, try t.count("class counter")))
        }
        try t.expect("NumberOfPositionTrackers:")
        let p = try t.count("NumberOfPositionTrackers")
        try t.expect("TimeSeriesPositionTrackers:")
        var trackers: [(id: Int, start: Int, end: Int)] = []
        for _ in 0..<p {
            trackers.append((try t.count("tracker class label"), try t.count("tracker start"), try t.count("tracker end")))
        }
        try externalRanges(&t, h.dimensions)
        try t.expect("LabelledContinuousTimeSeriesClassificationData:")
        let names = infoNames(h.info)
        let ids = Set(table.map(\.id)).union([0])
        var ints: [Int] = []
        ints.reserveCapacity(n)
        var values: [Float] = []
        values.reserveCapacity(n * h.dimensions)
        for _ in 0..<n {
            let id = try t.count("class label")
            guard ids.contains(id) else { throw t.error("class \(id) is not in ClassIDsAndCounters", field: "class label") }
            ints.append(id)
            try t.values(h.dimensions, into: &values, field: "value")
        }
        try checkEnd(&t, declared: n)
        // Counters are segment counts when GRT writes them; accept sample counts too.
        var samples: [Int: Int] = [:], runs: [Int: Int] = [:]
        for (i, id) in ints.enumerated() {
            samples[id, default: 0] += 1
            if i == 0 || ints[i - 1] != id { runs[id, default: 0] += 1 }
        }
        for (id, count) in table where count != (samples[id] ?? 0) && count != (runs[id] ?? 0) {
            throw t.input.error("class \(id) is declared with \(count) but the data hold \(runs[id] ?? 0) segments (\(samples[id] ?? 0) samples)", field: "ClassIDsAndCounters")
        }
        for tr in trackers where tr.start > tr.end || tr.end >= n {
            throw t.input.error("tracker \(tr.id) \(tr.start) \(tr.end) lies outside the \(n) samples", field: "TimeSeriesPositionTrackers")
        }
        let labels: [String?] = ints.map { $0 == 0 ? nil : names[$0] ?? String($0) }
        let recording = Recording(series: TimeSeries(values: values, channelCount: h.dimensions), labels: labels)
        let classes = table.map(\.id).filter { $0 != 0 }.sorted().map { names[$0] ?? String($0) }
        return Dataset(recordings: [recording], cut: cut, classes: classes, source: source)
    }

    static func checkEnd(_ t: inout Tokens, declared n: Int) throws {
        if let extra = t.next() {
            throw t.error("unexpected \(TextInput.quote(t.b[extra])) after the \(n) declared examples")
        }
    }

    static func checkCounts(_ t: Tokens, _ table: [(id: Int, count: Int)], _ seen: [Int: Int]) throws {
        for (id, count) in table where (seen[id] ?? 0) != count {
            throw t.input.error("class \(id) is declared with \(count) examples but the data hold \(seen[id] ?? 0)", field: "ClassIDsAndCounters")
        }
    }

    // MARK: Writing

    /// Writes `dataset` in the GRT format that fits: the continuous format for one recording,
    /// the classification format when every example is one frame, else the time-series format.
    /// Class names that are positive whole numbers are written as those labels; other names are
    /// numbered 1... in class order and kept in the class table (classification) or InfoText.
    /// - Throws: when the dataset has several recordings, null examples or names with spaces.
    /// - Complexity: O(values).
    public static func write(_ dataset: Dataset, to path: String) throws {
        try writeAtomically(try encode(dataset, name: path), to: path)
    }

    /// The `.grt` text ``write(_:to:)`` writes; `name` is used in error messages.
    /// - Complexity: O(values).
    public static func encode(_ dataset: Dataset, name: String = "dataset.grt") throws -> [UInt8] {
        let examplesAreRecordings = dataset.recordings.count == dataset.examples.count && zip(dataset.recordings, dataset.examples).allSatisfy { r, e in
            r.labels.allSatisfy { $0 != nil && $0 == e.label } && r.series == e.series
        }
        let continuous = !dataset.recordings.isEmpty && !examplesAreRecordings
        if continuous, dataset.recordings.count != 1 {
            throw GestureKitError("a GRT continuous file holds one recording, this dataset has \(dataset.recordings.count); write .csv instead", file: name)
        }
        var labels = dataset.classes
        let used = continuous ? dataset.recordings[0].labels.compactMap { $0 } : dataset.examples.compactMap(\.label)
        for l in Dataset.classOrder(used) where !labels.contains(l) { labels.append(l) }
        if !continuous, dataset.examples.contains(where: { $0.label == nil }) {
            throw GestureKitError("GRT files cannot hold unlabelled (null) examples", file: name)
        }
        for l in labels where l.isEmpty || l.contains(where: { $0.isWhitespace }) {
            throw GestureKitError("class name \"\(l)\" is empty or contains spaces, which GRT cannot store", file: name)
        }
        let numeric = labels.allSatisfy { l in Int(l).map { $0 > 0 && String($0) == l } ?? false }
        let idOf: [String: Int] = Dictionary(uniqueKeysWithValues: labels.enumerated().map { i, l in (l, numeric ? Int(l)! : i + 1) })
        let namedInfo = numeric ? "" : " \(classNamesKey) " + labels.map { "\(idOf[$0]!)=\($0)" }.joined(separator: " ")
        let dims = dataset.channelCount
        let datasetName = ((dataset.source ?? "NOT_SET") as NSString).deletingPathExtension
            .replacingOccurrences(of: " ", with: "_")
        var out: [UInt8] = []
        func header(_ format: String) {
            out.append("\(format)\nDatasetName: \(datasetName.isEmpty ? "NOT_SET" : datasetName)\n")
            out.append("InfoText: Written by GestureKit.\(namedInfo)\nNumDimensions: \(dims)\n")
        }
        func row(_ frame: ArraySlice<Float>) {
            var first = true
            for v in frame {
                if !first { out.append(9) }
                first = false
                out.append(DecimalParsing.format(v))
            }
            out.append(10)
        }
        if continuous {
            let r = dataset.recordings[0]
            let ids = r.labels.map { $0.map { idOf[$0]! } ?? 0 }
            var order: [Int] = [], runs: [Int: Int] = [:], trackers: [(Int, Int, Int)] = []
            for (i, id) in ids.enumerated() where i == 0 || ids[i - 1] != id {
                if runs[id] == nil { order.append(id) }
                runs[id, default: 0] += 1
                var end = i
                while end + 1 < ids.count, ids[end + 1] == id { end += 1 }
                trackers.append((id, i, end))
            }
            header(continuousHeader)
            out.append("TotalNumSamples: \(ids.count)\nNumberOfClasses: \(order.count)\nClassIDsAndCounters: \n")
            for id in order { out.append("\(id)\t\(runs[id]!)\n") }
            out.append("NumberOfPositionTrackers: \(trackers.count)\nTimeSeriesPositionTrackers: \n")
            for (id, s, e) in trackers { out.append("\(id)\t\(s)\t\(e)\n") }
            out.append("UseExternalRanges: 0\nLabelledContinuousTimeSeriesClassificationData:\n")
            for (i, id) in ids.enumerated() {
                out.append(String(id))
                out.append(9)
                row(r.series.frame(i))
            }
            return out
        }
        var counts: [String: Int] = [:]
        for e in dataset.examples { counts[e.label!, default: 0] += 1 }
        let present = labels.filter { counts[$0] != nil }
        if dataset.examples.allSatisfy({ $0.series.frameCount == 1 }) {
            header(classificationHeader)
            out.append("TotalNumTrainingExamples: \(dataset.examples.count)\nNumberOfClasses: \(present.count)\nClassIDsAndCounters: \n")
            for l in present { out.append("\(idOf[l]!)\t\(counts[l]!)\t\(numeric ? "NOT_SET" : l)\n") }
            out.append("UseExternalRanges: 0\nLabelledTrainingData:\n")
            for e in dataset.examples {
                out.append(String(idOf[e.label!]!))
                out.append(9)
                row(e.series.values[...])
            }
        } else {
            header(timeSeriesHeader)
            out.append("TotalNumTrainingExamples: \(dataset.examples.count)\nNumberOfClasses: \(present.count)\nClassIDsAndCounters: \n")
            for l in present { out.append("\(idOf[l]!)\t\(counts[l]!)\n") }
            out.append("UseExternalRanges: 0\nLabelledTimeSeriesTrainingData:\n")
            for e in dataset.examples {
                out.append("\(timeSeriesMarker)\nClassID: \(idOf[e.label!]!)\nTimeSeriesLength: \(e.series.frameCount)\nTimeSeriesData: \n")
                for f in 0..<e.series.frameCount { row(e.series.frame(f)) }
            }
        }
        return out
    }
}
