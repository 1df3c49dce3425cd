import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Appending to a recording CSV (`session,label,<channels>`), shared by `gesture record` and the
/// studio so both write the same bytes the reader expects.
package enum RecordingAppend {
    /// One write(2) for the whole buffer (on an O_APPEND descriptor it lands at the end as one
    /// piece); loops only if the kernel accepted part of it.
    /// - Complexity: O(bytes).
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], file: String) throws {
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw GestureKitError("write failed: \(String(cString: strerror(errno)))", file: file)
                }
                offset += n
            }
        }
    }

    /// The channels of an existing non-empty recording, or nil when the file is missing or empty.
    /// - Throws: when the header is not `session,label,<channels>` (nothing should be appended).
    /// - Complexity: reads at most the first MiB and the last byte.
    package static func existingLayout(_ path: String) throws -> (channels: [String], endsWithNewline: Bool)? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let head = try handle.read(upToCount: 1 << 20) ?? Data()
        if head.isEmpty { return nil }
        guard let nl = head.firstIndex(of: UInt8(ascii: "\n")) else {
            throw GestureKitError("no complete header line; refusing to append (nothing was written)", file: path, line: 1)
        }
        var text = String(decoding: head[head.startIndex..<nl], as: UTF8.self)
        if text.hasSuffix("\r") { text.removeLast() }
        let fields = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard fields.count >= 3, fields[0] == "session", fields[1] == "label" else {
            throw GestureKitError("header \"\(text.prefix(80))\" is not session,label,<channels>; refusing to append (nothing was written)",
                                  file: path, line: 1)
        }
        let end = try handle.seekToEnd()
        try handle.seek(toOffset: end - 1)
        let last = try handle.read(upToCount: 1) ?? Data()
        return (Array(fields.dropFirst(2)), last.first == UInt8(ascii: "\n"))
    }

    /// Why `value` cannot be a session or label cell, or nil when it can: the rows are written
    /// unquoted, so commas, quotes and line breaks would split or shift columns.
    package static func problem(with value: String) -> String? {
        if value.isEmpty { return "must not be empty" }
        if value.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) { return "must not contain commas, quotes or newlines" }
        return nil
    }

    /// Appends `frames` (row-major, `channels.count` values each) as rows `session,label,...`,
    /// writing the header first when the file is new or empty. All rows go out in one write.
    /// - Throws: when the file's header names other channels (nothing is written), or on I/O errors.
    /// - Complexity: O(values).
    package static func append(_ frames: [Float], channels: [String], label: String, session: String, to path: String) throws {
        precondition(!channels.isEmpty && frames.count % channels.count == 0, "frames must be whole rows")
        if let bad = problem(with: label) { throw GestureKitError("label \"\(label)\" \(bad)", field: "label") }
        if let bad = problem(with: session) { throw GestureKitError("session \"\(session)\" \(bad)", field: "session") }
        let existing = try existingLayout(path)
        if let existing, existing.channels != channels {
            throw GestureKitError("the file has channels \(existing.channels.joined(separator: ",")) but the frames have \(channels.joined(separator: ",")); refusing to mix layouts (nothing was written)", file: path)
        }
        var out: [UInt8] = []
        out.reserveCapacity(frames.count * 10 + 64)
        if existing == nil { out += Array(("session,label," + channels.joined(separator: ",") + "\n").utf8) }
        else if existing?.endsWithNewline == false { out.append(10) }
        let prefix = Array("\(session),\(label),".utf8)
        var i = 0
        while i < frames.count {
            out += prefix
            for c in 0..<channels.count {
                if c > 0 { out.append(UInt8(ascii: ",")) }
                // `description` is the shortest text that reads back to the same Float.
                out += Array(frames[i + c].description.utf8)
            }
            out.append(10)
            i += channels.count
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw GestureKitError("cannot open for appending: \(String(cString: strerror(errno)))", file: path) }
        defer { close(fd) }
        try writeAll(fd, out, file: path)
    }
}
