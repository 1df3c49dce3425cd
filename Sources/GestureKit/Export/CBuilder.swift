import Foundation

/// The pieces of one exported C source as they are gathered stage by stage: the fields of the
/// caller-owned state struct, the constant arrays (flash), helper functions, and the statements of
/// `reset`. Sizes are counted as C lays the data out, so the export can print them.
struct CBuilder {
    /// A scalar type of a state field or constant.
    enum CType: String {
        case float, double, int32 = "int32_t", int64 = "int64_t", uint16 = "uint16_t", int8 = "int8_t"

        var size: Int {
            switch self {
            case .int8: 1
            case .uint16: 2
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
    /// What ``flashBytes`` would be with every weights array stored as float32.
    private(set) var float32FlashBytes = 0
    /// Large arrays deliberately left float32 under smaller ``storage``, and why (for the summary).
    private(set) var keptFloat32: [String] = []
    var functions: [String] = []
    var resetLines: [String] = []

    /// How the large learned arrays (``weights(_:_:)``) are stored.
    let storage: CExport.Weights

    init(prefix: String, storage: CExport.Weights = .float32) {
        self.prefix = prefix
        self.storage = storage
    }

    /// Adds a state field (an array when `count` is given, even a count of 1).
    mutating func field(_ type: CType, _ name: String, count: Int? = nil) {
        fields.append(Field(type: type, name: name, count: count ?? 1, isArray: count != nil))
    }

    /// Adds `static const float name[]` holding `values` exactly (shortest round-trip literals).
    mutating func constant(_ name: String, floats values: [Float]) {
        constant(name, type: .float, literals: values.map(CBuilder.literal))
    }

    /// Adds a large learned array that the code reads only through ``read(_:of:group:)`` from a
    /// pointer of type ``weightType``: float32 as ``constant(_:floats:)``; IEEE half floats (half the
    /// flash; each read widens one exactly to float); or int8 times one float scale per group
    /// (`name_scale[g]`; a quarter of the flash). `group(i)` is element i's group, 0..<groups: the
    /// unit whose values share a range (a feature, a template's channel, a matrix row). Reads give
    /// float, so the arithmetic stays float32 whatever the storage.
    mutating func weights(_ name: String, _ values: [Float], groups: Int = 1, group: (Int) -> Int = { _ in 0 }) {
        switch storage {
        case .float32:
            constant(name, floats: values)
            return
        case .float16:
            if !functions.contains(where: { $0.contains("\(prefix)_h2f(uint16_t h)") }) { functions.insert(halfToFloat, at: 0) }
            constant(name, type: .uint16, literals: values.map { String(CBuilder.half($0)) + "u" })
        case .int8:
            let (codes, scales) = CBuilder.int8(values, groups: groups, group: group)
            constant(name, type: .int8, literals: codes.map(String.init),
                     comment: "A weight is (float)code * \(name)_scale[its group].")
            constant(name + "_scale", floats: scales)
            float32FlashBytes -= 4 * scales.count
        }
        float32FlashBytes += (4 - storage.bytes) * max(values.count, 1)
    }

    /// Notes that a large array stays float32 under a smaller storage (`why` names it and says why).
    mutating func keepFloat32(_ why: String) {
        if storage != .float32 { keptFloat32.append(why) }
    }

    /// The C type a pointer into a ``weights(_:_:groups:group:)`` array points to.
    var weightType: String {
        switch storage {
        case .float32: "float"
        case .float16: "uint16_t"
        case .int8: "int8_t"
        }
    }

    /// A float expression for the weight that `element` (a C lvalue into weights array `name`)
    /// holds; `group` is a C expression for its group (int8's scale index).
    func read(_ element: String, of name: String, group: String = "0") -> String {
        switch storage {
        case .float32: element
        case .float16: "\(prefix)_h2f(\(element))"
        case .int8: "((float)\(element) * \(name)_scale[\(group)])"
        }
    }

    /// Symmetric int8 codes and one scale per group: scale = largest magnitude / 127, code =
    /// value / scale rounded to nearest (ties to even), so every value is within scale / 2. Symmetric
    /// (no zero point) keeps a read one multiply. A group of zeros gets scale 1 (its codes are 0).
    static func int8(_ values: [Float], groups: Int, group: (Int) -> Int) -> (codes: [Int8], scales: [Float]) {
        var largest = [Float](repeating: 0, count: max(groups, 1))
        for (i, v) in values.enumerated() where v.isFinite { largest[group(i)] = max(largest[group(i)], abs(v)) }
        let scales = largest.map { $0 > 0 ? $0 / 127 : 1 }
        let codes = values.enumerated().map { i, v -> Int8 in
            // Trained weights are finite; should one not be, the nearest code keeps the C valid.
            if v.isNaN { return 0 }
            let q = (v / scales[group(i)]).rounded(.toNearestOrEven)
            return Int8(max(-127, min(127, q)))
        }
        return (codes, scales)
    }

    /// Half to float, exactly, in portable C99: normal halves by moving the bits, the rest (zero,
    /// subnormal, infinite, NaN) by arithmetic.
    private var halfToFloat: String {
        """
        static float \(prefix)_h2f(uint16_t h) {
            uint32_t e = (uint32_t)(h >> 10) & 31u, m = (uint32_t)h & 1023u, bits;
            float v;
            if (e == 0u) {
                v = (float)m * 5.9604644775390625e-8f;
            } else if (e == 31u) {
                v = m ? NAN : INFINITY;
            } else {
                bits = ((e + 112u) << 23) | (m << 13);
                memcpy(&v, &bits, sizeof v);
            }
            return (h & 0x8000u) ? -v : v;
        }
        """
    }

    /// `v` as the nearest IEEE half (ties to even; beyond the largest half, infinity).
    static func half(_ v: Float) -> UInt16 {
        let bits = v.bitPattern
        let sign = UInt16((bits >> 16) & 0x8000)
        if v.isNaN { return sign | 0x7E00 }
        let a = abs(v)
        if a >= 65520 { return sign | 0x7C00 }  // rounds past 65504
        if a < 6.103515625e-05 {
            // Subnormal half: a multiple of 2^-24, rounded to even.
            let q = (a * 16_777_216).rounded(.toNearestOrEven)
            return sign | UInt16(q)
        }
        let e = Int((bits >> 23) & 0xFF) - 127, m = bits & 0x7F_FFFF
        var h = UInt32(e + 15) << 10 | (m >> 13)
        let rest = m & 0x1FFF
        if rest > 0x1000 || (rest == 0x1000 && h & 1 == 1) { h += 1 }  // a carry into the exponent is right
        return sign | UInt16(h)
    }

    mutating func constant(_ name: String, doubles values: [Double]) {
        constant(name, type: .double, literals: values.map(CBuilder.literal))
    }

    mutating func constant(_ name: String, ints values: [Int]) {
        constant(name, type: .int32, literals: values.map(String.init))
    }

    private mutating func constant(_ name: String, type: CType, literals: [String], comment: String? = nil) {
        // An empty array is not C; one unused zero keeps the name valid.
        let items = literals.isEmpty ? ["0"] : literals
        var text = comment.map { "/* \($0) */\n" } ?? ""
        text += "static const \(type.rawValue) \(name)[\(items.count)] = {\n"
        for start in stride(from: 0, to: items.count, by: 8) {
            text += "    " + items[start..<min(start + 8, items.count)].joined(separator: ", ") + ",\n"
        }
        constants.append(text + "};\n")
        flashBytes += items.count * type.size
        float32FlashBytes += items.count * type.size
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
