#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns text lines of numbers into frames of a known channel layout.
///
/// A line holds comma-separated values (spaces around them allowed) or, when it has no comma,
/// values separated by spaces/tabs. Blank lines and lines starting with `#` are skipped; a UTF-8
/// byte order mark at the start of any line is ignored.
///
/// The first non-blank line is a **header** when none of its fields is a number. With expected
/// channel names, the header picks those columns by name (other columns are ignored, a missing one
/// is an error); without expected names, every header column becomes a channel. Without a header,
/// channels are the first N fields in order (N = the expected names' count, or every field of the
/// first line when no names are given).
///
/// Every later line must have as many fields as the header (or the first data line); a line with a
/// different count, a non-number or a NaN/infinity in a used column is **malformed**: it is reported
/// with a reason and skipped, never fatal. A repeat of the header line (a sender that starts every
/// datagram with it) is skipped silently.
///
/// ```swift
/// var parser = InputLineParser(channelNames: ["ax", "ay"])
/// var frame: [Float] = []
/// _ = try parser.parse("t,ay,ax", into: &frame)   // .header
/// _ = try parser.parse("0.5,2,1", into: &frame)   // .frame, frame == [1, 2]
/// ```
package struct InputLineParser: Sendable {
    /// What one line turned out to be.
    package enum LineKind: Sendable, Hashable {
        /// `frame` holds the values.
        case frame
        /// The header row (or a repeat of it); `channelNames` is now known.
        case header
        /// Blank or `#` comment.
        case skipped
        /// Not usable; the reason says why (e.g. `expected 6 values, found 5`).
        case malformed(String)
    }

    /// The channel names: the expected ones, or those inferred from the first line.
    package private(set) var channelNames: [String]
    /// Fields per line, known after the first header or data line.
    package private(set) var fieldCount: Int?
    /// The header's column names, when the input had a header.
    package private(set) var header: [String]?

    /// Column read for each channel.
    private var columnOfChannel: [Int]
    /// Scratch copy of the line with NUL after each field (strtof needs C strings).
    private var scratch: [UInt8] = []
    private var fieldStart: [Int] = []
    private var fieldEnd: [Int] = []
    private var headerBytes: [UInt8]?

    /// - Parameter channelNames: the channels wanted, in order; empty to take the layout from the
    ///   first line.
    package init(channelNames: [String] = []) {
        self.channelNames = channelNames
        self.columnOfChannel = Array(channelNames.indices)
        scratch.reserveCapacity(256)
        fieldStart.reserveCapacity(32)
        fieldEnd.reserveCapacity(32)
    }

    /// Values per frame.
    package var channelCount: Int { channelNames.count }

    /// Parses one line (without its newline; a trailing `\r` is ignored) into `frame`, which is
    /// resized to the channel count when that changes (once) and otherwise reused in place.
    /// - Throws: ``GestureKitError`` when the header lacks an expected channel (fatal: the input
    ///   cannot provide the layout).
    /// - Complexity: O(line length); no allocation once warmed up, except for malformed reasons.
    package mutating func parse(_ line: UnsafeRawBufferPointer, into frame: inout [Float]) throws -> LineKind {
        // A UTF-8 byte order mark opens many exported files, and lands mid-stream when a sender
        // concatenates them: drop it, so the header or row behind it is read as usual.
        var line = line
        if line.count >= 3, line[0] == 0xEF, line[1] == 0xBB, line[2] == 0xBF {
            line = UnsafeRawBufferPointer(rebasing: line[3...])
        }
        split(line)
        let n = fieldStart.count
        if n == 0 { return .skipped }
        if scratch[fieldStart[0]] == UInt8(ascii: "#") { return .skipped }

        if fieldCount == nil {
            // First meaningful line: header or data?
            var anyNumber = false
            for i in 0..<n where number(field: i) != nil { anyNumber = true; break }
            if !anyNumber {
                try adoptHeader(line)
                return .header
            }
            if channelNames.isEmpty {
                channelNames = TimeSeries.defaultNames(n)
                columnOfChannel = Array(0..<n)
            }
            guard n >= channelNames.count else {
                return .malformed("expected \(channelNames.count) values, found \(n)")
            }
            fieldCount = n
        } else if let headerBytes, isHeaderRepeat(line, headerBytes) {
            return .header
        }

        guard n == fieldCount else {
            return .malformed("expected \(fieldCount!) values, found \(n)")
        }
        if frame.count != channelNames.count {
            frame = [Float](repeating: 0, count: channelNames.count)
        }
        var failed = -1
        frame.withUnsafeMutableBufferPointer { out in
            for c in 0..<out.count {
                guard let v = number(field: columnOfChannel[c]), v.isFinite else { failed = c; return }
                out[c] = v
            }
        }
        if failed >= 0 {
            let col = columnOfChannel[failed]
            let text = fieldText(col)
            let what = number(field: col) == nil ? "expected a number, found \"\(text)\"" : "value is not finite (\(text))"
            return .malformed("column \(col + 1) (\(channelNames[failed])): \(what)")
        }
        return .frame
    }

    /// The same as the raw-bytes form, for a `String` line (tests, small tools).
    package mutating func parse(_ line: String, into frame: inout [Float]) throws -> LineKind {
        var copy = line
        return try copy.withUTF8 { try parse(UnsafeRawBufferPointer($0), into: &frame) }
    }

    // MARK: - Internals

    private mutating func adoptHeader(_ line: UnsafeRawBufferPointer) throws {
        let names = (0..<fieldStart.count).map { Self.unquote(fieldText($0)) }
        if channelNames.isEmpty {
            channelNames = names
            columnOfChannel = Array(names.indices)
        } else {
            var column: [String: Int] = [:]
            for (i, name) in names.enumerated() where column[name] == nil { column[name] = i }
            var map: [Int] = []
            var missing: [String] = []
            for name in channelNames {
                if let i = column[name] { map.append(i) } else { missing.append(name) }
            }
            guard missing.isEmpty else {
                let list = missing.map { "\"\($0)\"" }.joined(separator: ", ")
                throw GestureKitError("input header has no column \(list) (its columns: \(names.joined(separator: ", ")))",
                                      line: nil, field: "header")
            }
            columnOfChannel = map
        }
        header = names
        fieldCount = names.count
        headerBytes = Array(trimmed(line))
    }

    private func isHeaderRepeat(_ line: UnsafeRawBufferPointer, _ header: [UInt8]) -> Bool {
        let t = trimmed(line)
        return t.count == header.count && t.elementsEqual(header)
    }

    private func trimmed(_ line: UnsafeRawBufferPointer) -> Slice<UnsafeRawBufferPointer> {
        var lo = line.startIndex, hi = line.endIndex
        while lo < hi, Self.isSpace(line[lo]) { lo += 1 }
        while hi > lo, Self.isSpace(line[hi - 1]) { hi -= 1 }
        return line[lo..<hi]
    }

    @inline(__always)
    private static func isSpace(_ b: UInt8) -> Bool {
        b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") || b == UInt8(ascii: "\r") || b == UInt8(ascii: "\n")
    }

    /// Copies `line` into `scratch` and records the trimmed bounds of each field, each followed by NUL.
    private mutating func split(_ line: UnsafeRawBufferPointer) {
        fieldStart.removeAll(keepingCapacity: true)
        fieldEnd.removeAll(keepingCapacity: true)
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: line)
        scratch.append(0)
        let count = line.count
        let comma = line.contains(UInt8(ascii: ","))
        scratch.withUnsafeMutableBufferPointer { s in
            var i = 0
            if comma {
                var start = 0
                while i <= count {
                    if i == count || s[i] == UInt8(ascii: ",") {
                        var lo = start, hi = i
                        while lo < hi, Self.isSpace(s[lo]) { lo += 1 }
                        while hi > lo, Self.isSpace(s[hi - 1]) { hi -= 1 }
                        s[hi] = 0
                        fieldStart.append(lo)
                        fieldEnd.append(hi)
                        start = i + 1
                    }
                    i += 1
                }
            } else {
                while i < count {
                    while i < count, Self.isSpace(s[i]) { i += 1 }
                    if i == count { break }
                    let lo = i
                    while i < count, !Self.isSpace(s[i]) { i += 1 }
                    s[i] = 0
                    fieldStart.append(lo)
                    fieldEnd.append(i)
                    i += 1
                }
            }
        }
    }

    /// The field as a Float (surrounding blanks allowed), or nil when it is not entirely a number.
    /// Parsed like the file readers: exactly the value `Float(String)` gives.
    @inline(__always)
    private func number(field i: Int) -> Float? {
        var lo = fieldStart[i], hi = fieldEnd[i]
        return scratch.withUnsafeBufferPointer { s -> Float? in
            while lo < hi, s[lo] == 0x20 || s[lo] == 0x09 { lo += 1 }
            while hi > lo, s[hi - 1] == 0x20 || s[hi - 1] == 0x09 || s[hi - 1] == 0x0D { hi -= 1 }
            if lo == hi { return nil }
            return DecimalParsing.powersOfTen.withUnsafeBufferPointer { p in
                DecimalParsing.parseFloat(s.baseAddress! + lo, hi - lo, p.baseAddress!)
            }
        }
    }

    private func fieldText(_ i: Int) -> String {
        let lo = fieldStart[i], hi = fieldEnd[i]
        let text = String(decoding: scratch[lo..<hi], as: UTF8.self)
        return text.count > 40 ? String(text.prefix(40)) + "…" : text
    }

    private static func unquote(_ s: String) -> String {
        if s.count >= 2, let f = s.first, f == s.last, f == "\"" || f == "'" {
            return String(s.dropFirst().dropLast())
        }
        return s
    }
}
