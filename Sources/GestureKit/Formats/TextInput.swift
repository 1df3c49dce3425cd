import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#else
import Glibc
#endif

/// A whole text file in memory, with helpers the readers share: errors that name the file and
/// line, a short quotation of bad cells, and a guard against binary files.
struct TextInput {
    let bytes: [UInt8]
    /// The file name used in messages (the last path component).
    let name: String

    init(bytes: [UInt8], name: String) {
        self.bytes = bytes
        self.name = name
    }

    /// Reads `path`, failing with a ``GestureKitError`` naming it when it cannot be read.
    /// Messages name the file by the path as given.
    init(path: String) throws {
        let name = path
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw GestureKitError("no such file", file: path)
        }
        if isDir.boolValue { throw GestureKitError("is a folder, expected a file", file: path) }
        guard let bytes = TextInput.readAll(path) else {
            throw GestureKitError("cannot read the file", file: path)
        }
        self.init(bytes: bytes, name: name)
    }

    /// The whole file read straight into an array (no intermediate `Data` copy).
    static func readAll(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        let size = Int(st.st_size)
        var failed = false
        var bytes = [UInt8](unsafeUninitializedCapacity: size) { buf, count in
            var done = 0
            while done < size {
                let r = read(fd, buf.baseAddress! + done, size - done)
                if r < 0 { if errno == EINTR { continue }; failed = true; break }
                if r == 0 { break }
                done += r
            }
            count = done
        }
        if failed { return nil }
        // Files that report no size (pipes, /proc) are read to the end in blocks.
        if size == 0 {
            var block = [UInt8](repeating: 0, count: 65536)
            while true {
                let r = block.withUnsafeMutableBytes { read(fd, $0.baseAddress!, 65536) }
                if r < 0 { if errno == EINTR { continue }; return nil }
                if r == 0 { break }
                bytes.append(contentsOf: block[0..<r])
            }
        }
        return bytes
    }

    func error(_ message: String, line: Int? = nil, field: String? = nil) -> GestureKitError {
        GestureKitError(message, file: name, line: line, field: field)
    }

    /// Runs a reader; when it fails on a file that is not text at all, reports that instead, so
    /// the check costs nothing on good files.
    func reading<T>(what: String, _ body: () throws -> T) throws -> T {
        if bytes.isEmpty { throw error("empty file, expected \(what)", line: 1) }
        do {
            return try body()
        } catch {
            try checkText(what: what)
            throw error
        }
    }

    /// Throws when the file is empty, or holds NUL bytes or other control characters that text
    /// formats never contain (a binary file given by mistake).
    func checkText(what: String) throws {
        if bytes.isEmpty { throw error("empty file, expected \(what)", line: 1) }
        var line = 1
        for b in bytes {
            if b == 10 { line += 1; continue }
            if b < 32, b != 9, b != 13 {
                throw error("binary data (byte 0x\(String(b, radix: 16))), expected \(what)", line: line)
            }
        }
    }

    /// 1-based line number of byte `offset`. - Complexity: O(offset).
    func line(at offset: Int) -> Int {
        var n = 1
        for i in 0..<min(offset, bytes.count) where bytes[i] == 10 { n += 1 }
        return n
    }

    /// A name cut to 40 characters for a message.
    static func short(_ s: String) -> String { s.count > 40 ? String(s.prefix(40)) + "..." : s }

    /// A quotation of bytes for a message, cut to 40 characters so a huge cell stays one short line.
    static func quote<C: Collection>(_ cell: C) -> String where C.Element == UInt8 {
        let s = String(decoding: cell.prefix(40), as: UTF8.self)
        return "\"\(s)\(cell.count > 40 ? "..." : "")\""
    }
}

/// Writes `bytes` to `path` through a temporary file and a rename, so a failed write never leaves
/// half a file. The same writer as pipeline files: Foundation's `.atomic` temporary has a name no
/// later save looks for, so one left by a kill -9 stayed; ours goes with the next save.
func writeAtomically(_ bytes: [UInt8], to path: String) throws {
    try writeAtomically(Data(bytes), to: path)
}

extension Array where Element == UInt8 {
    mutating func append(_ s: String) { append(contentsOf: s.utf8) }
}
