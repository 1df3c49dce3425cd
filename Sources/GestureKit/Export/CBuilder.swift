import Foundation

/// The pieces of one exported C source as they are gathered stage by stage: the fields of the
/// caller-owned state struct, the constant arrays (flash), helper functions, and the statements of
/// `reset`. Sizes are counted as C lays the data out, so the export can print them.
struct CBuilder {
    /// A scalar type of a state field or constant.
    enum CType: String {
        case float, double, int32 = "int32_t", int64 = "int64_t"

        var size: Int {
            switch self {
            case .float, .int32: 4
            case .double, .int64: 8
            }
        }
    }

    struct Field {
        var type: CType
        var name: String
        /// Elements: 1 for a scalar.
        var count: Int
        /// Declared as an array (even of one: code indexes it).
        var isArray: Bool
    }

    /// The public names' prefix (`P_init`, `P_state`).
    let prefix: String
    private(set) var fields: [Field] = []
    private(set) var constants: [String] = []
    private(set) var flashBytes = 0
    var functions: [String] = []
    var resetLines: [String] = []

    init(prefix: String) { self.prefix = prefix }

    /// Adds a state field (an array when `count` is given, even a count of 1).
    mutating func field(_ type: CType, _ name: String, count: Int? = nil) {
        fields.append(Field(type: type, name: name, count: count ?? 1, isArray: count != nil))
    }

    /// Adds `static const float name[]` holding `values` exactly (shortest round-trip literals).
    mutating func constant(_ name: String, floats values: [Float]) {
        constant(name, type: .float, literals: values.map(CBuilder.literal))
    }

    mutating func constant(_ name: String, doubles values: [Double]) {
        constant(name, type: .double, literals: values.map(CBuilder.literal))
    }

    mutating func constant(_ name: String, ints values: [Int]) {
        constant(name, type: .int32, literals: values.map(String.init))
    }

    private mutating func constant(_ name: String, type: CType, literals: [String]) {
        // An empty array is not C; one unused zero keeps the name valid.
        let items = literals.isEmpty ? ["0"] : literals
        var text = "static const \(type.rawValue) \(name)[\(items.count)] = {\n"
        for start in stride(from: 0, to: items.count, by: 8) {
            text += "    " + items[start..<min(start + 8, items.count)].joined(separator: ", ") + ",\n"
        }
        constants.append(text + "};\n")
        flashBytes += items.count * type.size
    }

    /// Bytes of the state struct as C lays it out (each field aligned to its type's size, the
    /// whole to the largest), on both the host and a Cortex-M (AAPCS aligns 8-byte types to 8).
    var stateBytes: Int {
        var offset = 0, largest = 1
        for f in stateFields {
            let a = f.type.size
            largest = max(largest, a)
            offset = (offset + a - 1) / a * a + a * f.count
        }
        return (offset + largest - 1) / largest * largest
    }

    /// The fields in declaration order; a struct never empty.
    var stateFields: [Field] {
        fields.isEmpty ? [Field(type: .int32, name: "unused", count: 1, isArray: false)] : fields
    }

    /// The state struct's declaration.
    var stateDeclaration: String {
        var s = "typedef struct {\n"
        for f in stateFields {
            s += "    \(f.type.rawValue) \(f.name)\(f.isArray ? "[\(f.count)]" : "");\n"
        }
        return s + "} \(prefix)_state;\n"
    }

    /// A C float expression that reads back as exactly `v` (`INFINITY` and `NAN` from math.h).
    static func literal(_ v: Float) -> String {
        if v.isNaN { return "NAN" }
        if v.isInfinite { return v > 0 ? "INFINITY" : "-INFINITY" }
        var s = "\(v)"
        if !s.contains(".") && !s.contains("e") { s += ".0" }
        return s + "f"
    }

    /// A C double literal that reads back as exactly `v`.
    static func literal(_ v: Double) -> String {
        precondition(v.isFinite, "only finite values are written as C literals")
        let s = "\(v)"
        return s.contains(".") || s.contains("e") ? s : s + ".0"
    }

    /// A string literal for C source.
    static func string(_ s: String) -> String {
        var out = "\""
        for u in s.utf8 {
            switch u {
            case UInt8(ascii: "\""): out += "\\\""
            case UInt8(ascii: "\\"): out += "\\\\"
            case 0x20..<0x7F: out.unicodeScalars.append(Unicode.Scalar(u))
            default: out += String(format: "\\%03o", u)
            }
        }
        return out + "\""
    }
}
