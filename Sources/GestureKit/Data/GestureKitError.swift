/// An error a user can act on: which file, which line, which field, and what is wrong with it.
///
/// Its ``description`` is the one-line form the CLI prints after `error: `, e.g.
/// `walk.csv:12: accelX: expected a number, found "abc"`.
public struct GestureKitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file at fault, when there is one.
    public var file: String?
    /// The 1-based line, when known.
    public var line: Int?
    /// The field or column at fault, when known.
    public var field: String?
    /// What is wrong, in words a user can act on.
    public var message: String

    /// An error saying `message` about `file`, `line` and `field` when given.
    public init(_ message: String, file: String? = nil, line: Int? = nil, field: String? = nil) {
        self.message = message
        self.file = file
        self.line = line
        self.field = field
    }

    public var description: String {
        var parts: [String] = []
        if let file {
            parts.append(line.map { "\(file):\($0)" } ?? file)
        } else if let line {
            parts.append("line \(line)")
        }
        if let field { parts.append(field) }
        parts.append(message)
        return Self.oneLine(parts.joined(separator: ": "))
    }

    /// Messages quote user input (cells, names, file names); a control character in it would
    /// break the one-line error, or drive a terminal, so those are written as escapes.
    static func oneLine(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return s }
        var out = ""
        for u in s.unicodeScalars {
            if u.value < 0x20 || u.value == 0x7F {
                out += u.escaped(asASCII: true)
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// The same error attributed to `file` when it did not name one yet.
    public func inFile(_ name: String) -> GestureKitError {
        var e = self
        if e.file == nil { e.file = name }
        return e
    }
}
