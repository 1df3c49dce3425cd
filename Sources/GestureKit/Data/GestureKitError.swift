/// An error a user can act on: which file, which line, which field, and what is wrong with it.
///
/// Its ``description`` is the one-line form the CLI prints after `error: `, e.g.
/// `walk.csv:12: accelX: expected a number, found "abc"`.
public struct GestureKitError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String?
    public var line: Int?
    public var field: String?
    public var message: String

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
        return parts.joined(separator: ": ")
    }

    /// The same error attributed to `file` when it did not name one yet.
    public func inFile(_ name: String) -> GestureKitError {
        var e = self
        if e.file == nil { e.file = name }
        return e
    }
}
