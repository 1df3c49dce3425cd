import Foundation

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
    init(path: String) throws {
        let name = (path as NSString).lastPathComponent
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw GestureKitError("no such file", file: path)
        }
        if isDir.boolValue { throw GestureKitError("is a folder, expected a file", file: path) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw GestureKitError("cannot read the file", file: path)
        }
        self.init(bytes: [UInt8](data), name: name)
    }

    func error(_ message: String, line: Int? = nil, field: String? = nil) -> GestureKitError {
        GestureKitError(message, file: name, line: line, field: field)
    }

    /// Throws when the file is empty, or holds NUL bytes or other control characters that text
    /// formats never contain (a binary file given by mistake).
    func checkText(what: String) throws {
        if bytes.isEmpty { throw error("empty file, expected \(what)") }
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

    /// A quotation of bytes for a message, cut to 40 characters so a huge cell stays one short line.
    static func quote<C: Collection>(_ cell: C) -> String where C.Element == UInt8 {
        let s = String(decoding: cell.prefix(40), as: UTF8.self)
        return "\"\(s)\(cell.count > 40 ? "..." : "")\""
    }
}

/// Writes `bytes` to `path` through a temporary file and a rename, so a failed write never leaves
/// half a file.
func writeAtomically(_ bytes: [UInt8], to path: String) throws {
    do {
        try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
        throw GestureKitError("cannot write: \(error.localizedDescription)", file: path)
    }
}

extension Array where Element == UInt8 {
    mutating func append(_ s: String) { append(contentsOf: s.utf8) }
}
