import Foundation

/// The raw folder of the UCI HAPT dataset ("Smartphone-Based Recognition of Human Activities and
/// Postural Transitions"): `acc_expXX_userYY.txt` and `gyro_expXX_userYY.txt` (three
/// space-separated numbers per 50 Hz sample) and `labels.txt` (`exp user activity start end`,
/// 1-based inclusive sample ranges). Activity names come from `../activity_labels.txt` when present.
///
/// Each experiment becomes one ``Recording`` with channels `accX accY accZ gyroX gyroY gyroZ`,
/// sample rate 50, session `expXX`, user `userYY`; samples outside every labelled range are null.
public enum HAPTFormat {
    /// Accelerometer (g) then gyroscope (rad/s), x y z each.
    public static let channelNames = ["accX", "accY", "accZ", "gyroX", "gyroY", "gyroZ"]
    /// HAPT's sample rate, in Hz.
    public static let sampleRate = 50.0

    /// Whether a folder listing looks like HAPT RawData.
    static func isRawDataFolder(_ names: [String]) -> Bool {
        names.contains("labels.txt") && names.contains { $0.hasPrefix("acc_exp") && $0.hasSuffix(".txt") }
    }

    /// Reads a RawData folder (or its parent holding `RawData/`), one recording per experiment in
    /// experiment order. - Complexity: O(total file size).
    public static func read(_ path: String, cut: Dataset.Cut = .segments) throws -> Dataset {
        var folder = path
        let fm = FileManager.default
        var names = (try? fm.contentsOfDirectory(atPath: folder)) ?? []
        if !isRawDataFolder(names), names.contains("RawData") {
            folder = (path as NSString).appendingPathComponent("RawData")
            names = (try? fm.contentsOfDirectory(atPath: folder)) ?? []
        }
        guard isRawDataFolder(names) else {
            throw GestureKitError("not a HAPT RawData folder (no labels.txt and acc_expXX_userYY.txt files)", file: path)
        }
        let activityNames = try readActivityNames(((folder as NSString).deletingLastPathComponent as NSString)
            .appendingPathComponent("activity_labels.txt"))
        let labelsPath = (folder as NSString).appendingPathComponent("labels.txt")
        let segments = try readLabels(labelsPath)

        struct Experiment { var exp: Int; var user: Int; var acc: String; var gyro: String }
        var experiments: [Experiment] = []
        for f in names where f.hasPrefix("acc_exp") && f.hasSuffix(".txt") {
            let gyro = "gyro" + f.dropFirst(3)
            let parts = f.dropFirst(7).dropLast(4).split(separator: "_")
            guard parts.count == 2, let exp = Int(parts[0]), parts[1].hasPrefix("user"), let user = Int(parts[1].dropFirst(4)) else {
                throw GestureKitError("file name is not acc_expXX_userYY.txt", file: (folder as NSString).appendingPathComponent(f))
            }
            guard names.contains(gyro) else { throw GestureKitError("no matching \(gyro)", file: (folder as NSString).appendingPathComponent(f)) }
            experiments.append(Experiment(exp: exp, user: user, acc: f, gyro: gyro))
        }
        experiments.sort { $0.exp < $1.exp }

        var recordings: [Recording] = []
        for e in experiments {
            let acc = try readTriples((folder as NSString).appendingPathComponent(e.acc))
            let gyro = try readTriples((folder as NSString).appendingPathComponent(e.gyro))
            guard acc.count == gyro.count else {
                throw GestureKitError("\(acc.count / 3) samples but \(e.gyro) has \(gyro.count / 3)", file: (folder as NSString).appendingPathComponent(e.acc))
            }
            let frames = acc.count / 3
            var values = [Float](repeating: 0, count: frames * 6)
            for i in 0..<frames {
                for k in 0..<3 {
                    values[i * 6 + k] = acc[i * 3 + k]
                    values[i * 6 + 3 + k] = gyro[i * 3 + k]
                }
            }
            var labels = [String?](repeating: nil, count: frames)
            for s in segments where s.exp == e.exp {
                guard s.user == e.user else {
                    throw GestureKitError("experiment \(e.exp) belongs to user \(s.user) here but the files say user \(e.user)", file: labelsPath, line: s.line)
                }
                guard s.start >= 1, s.start <= s.end, s.end <= frames else {
                    throw GestureKitError("segment \(s.start)-\(s.end) lies outside the \(frames) samples of \(e.acc)", file: labelsPath, line: s.line)
                }
                let name = activityNames[s.activity] ?? String(s.activity)
                for i in (s.start - 1)..<s.end { labels[i] = name }
            }
            recordings.append(Recording(
                series: TimeSeries(values: values, channelCount: 6, channelNames: channelNames, sampleRate: sampleRate),
                labels: labels, session: String(format: "exp%02d", e.exp), user: String(format: "user%02d", e.user)))
        }
        let ids = Set(segments.map(\.activity)).sorted()
        return Dataset(recordings: recordings, cut: cut, classes: ids.map { activityNames[$0] ?? String($0) },
                       source: (path as NSString).lastPathComponent)
    }

    struct Segment { var exp: Int; var user: Int; var activity: Int; var start: Int; var end: Int; var line: Int }

    /// `labels.txt`: five whole numbers per line.
    static func readLabels(_ path: String) throws -> [Segment] {
        let input = try TextInput(path: path)
        try input.checkText(what: "HAPT labels.txt")
        var out: [Segment] = []
        for (i, l) in String(decoding: input.bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let words = l.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if words.isEmpty { continue }
            let v = words.compactMap { Int($0) }
            guard words.count == 5, v.count == 5 else {
                throw input.error("expected 5 whole numbers (exp user activity start end), found \(TextInput.quote(Array(l.utf8)))", line: i + 1)
            }
            out.append(Segment(exp: v[0], user: v[1], activity: v[2], start: v[3], end: v[4], line: i + 1))
        }
        return out
    }

    /// `activity_labels.txt` (`id NAME`, names padded with spaces); empty when the file is absent.
    static func readActivityNames(_ path: String) throws -> [Int: String] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        let input = try TextInput(path: path)
        var out: [Int: String] = [:]
        for (i, l) in String(decoding: input.bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let words = l.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if words.isEmpty { continue }
            guard words.count == 2, let id = Int(words[0]) else {
                throw input.error("expected \"id NAME\"", line: i + 1)
            }
            out[id] = String(words[1])
        }
        return out
    }

    /// A file of lines holding three white-space separated numbers, as one flat array.
    static func readTriples(_ path: String) throws -> [Float] {
        let input = try TextInput(path: path)
        return try input.reading(what: "3 numbers per line") { try input.bytes.withUnsafeBufferPointer { b in
            try DecimalParsing.powersOfTen.withUnsafeBufferPointer { p in
                let base = b.baseAddress!, n = b.count
                var out: [Float] = []
                out.reserveCapacity(n / 8)
                var pos = 0, line = 1
                while pos < n {
                    var found = 0
                    while pos < n, base[pos] != 10 {
                        while pos < n, base[pos] == 32 || base[pos] == 9 || base[pos] == 13 { pos += 1 }
                        if pos >= n || base[pos] == 10 { break }
                        let s = pos
                        while pos < n, base[pos] > 32 { pos += 1 }
                        guard let v = DecimalParsing.parseFloat(base + s, pos - s, p.baseAddress!), v.isFinite else {
                            throw input.error("expected a number, found \(TextInput.quote(UnsafeBufferPointer(start: base + s, count: pos - s)))", line: line)
                        }
                        found += 1
                        if found > 3 { throw input.error("expected 3 values, found more", line: line) }
                        out.append(v)
                    }
                    if found != 0, found != 3 { throw input.error("expected 3 values, found \(found)", line: line) }
                    pos += 1
                    line += 1
                }
                return out
            }
        }
        }
    }
}
