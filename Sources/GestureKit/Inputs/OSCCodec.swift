/// Open Sound Control 1.0 messages and bundles: encoding, decoding and address-pattern matching.
///
/// Wire format (OSC 1.0 spec): strings are NUL-terminated and padded with NULs to a multiple of
/// 4 bytes; numbers are big-endian; a message is address, type-tag string (`,` then one tag per
/// argument), then the arguments; a bundle is `#bundle`, a 64-bit NTP time tag, then elements each
/// preceded by its int32 size. Supported tags: `i f s b` (OSC 1.0) and the common extensions
/// `h t d S c r m T F N I`. Arrays (`[` `]`) are rejected.

/// One OSC argument.
package enum OSCArgument: Sendable, Hashable {
    /// A 32-bit integer (`i`).
    case int32(Int32)
    /// A 32-bit float (`f`).
    case float32(Float)
    /// A string (`s`).
    case string(String)
    /// Bytes (`b`).
    case blob([UInt8])
    /// A 64-bit integer (`h`).
    case int64(Int64)
    /// A 64-bit float (`d`).
    case double(Double)
    /// NTP time tag (`t`).
    case timeTag(UInt64)
    /// Alternate string type (`S`).
    case symbol(String)
    /// ASCII character sent as 32 bits (`c`).
    case char(UInt32)
    /// 32-bit RGBA colour (`r`).
    case rgba(UInt32)
    /// 4-byte MIDI message (`m`).
    case midi(UInt32)
    /// `T` / `F` (no payload).
    case bool(Bool)
    /// `N` (no payload).
    case null
    /// `I`, "infinitum" / impulse (no payload).
    case impulse

    /// The type tag character.
    package var tag: UInt8 {
        switch self {
        case .int32: return UInt8(ascii: "i")
        case .float32: return UInt8(ascii: "f")
        case .string: return UInt8(ascii: "s")
        case .blob: return UInt8(ascii: "b")
        case .int64: return UInt8(ascii: "h")
        case .double: return UInt8(ascii: "d")
        case .timeTag: return UInt8(ascii: "t")
        case .symbol: return UInt8(ascii: "S")
        case .char: return UInt8(ascii: "c")
        case .rgba: return UInt8(ascii: "r")
        case .midi: return UInt8(ascii: "m")
        case let .bool(b): return b ? UInt8(ascii: "T") : UInt8(ascii: "F")
        case .null: return UInt8(ascii: "N")
        case .impulse: return UInt8(ascii: "I")
        }
    }

    /// The value as a number, for numeric tags (`i f h d`); nil otherwise.
    package var numericValue: Double? {
        switch self {
        case let .int32(v): return Double(v)
        case let .float32(v): return Double(v)
        case let .int64(v): return Double(v)
        case let .double(v): return v
        default: return nil
        }
    }
}

/// An OSC message: an address (or address pattern) and its arguments.
package struct OSCMessage: Sendable, Hashable {
    /// The address, e.g. `/wek/inputs`.
    package var address: String
    /// The arguments, in order.
    package var arguments: [OSCArgument]

    /// A message to `address`.
    package init(_ address: String, _ arguments: [OSCArgument] = []) {
        self.address = address
        self.arguments = arguments
    }

    /// The encoded bytes.
    /// - Complexity: O(size of the message).
    package func encoded() -> [UInt8] {
        var out: [UInt8] = []
        encode(into: &out)
        return out
    }

    /// Appends the encoded bytes to `out` (reuse one buffer to send without allocating).
    package func encode(into out: inout [UInt8]) {
        OSCWire.appendString(address, to: &out)
        out.append(UInt8(ascii: ","))
        for a in arguments { out.append(a.tag) }
        out.append(0)
        OSCWire.pad(&out)
        for a in arguments {
            switch a {
            case let .int32(v): OSCWire.append(UInt32(bitPattern: v), to: &out)
            case let .float32(v): OSCWire.append(v.bitPattern, to: &out)
            case let .string(s), let .symbol(s): OSCWire.appendString(s, to: &out)
            case let .blob(b):
                OSCWire.append(UInt32(b.count), to: &out)
                out.append(contentsOf: b)
                OSCWire.pad(&out)
            case let .int64(v): OSCWire.append(UInt64(bitPattern: v), to: &out)
            case let .double(v): OSCWire.append(v.bitPattern, to: &out)
            case let .timeTag(v): OSCWire.append(v, to: &out)
            case let .char(v), let .rgba(v), let .midi(v): OSCWire.append(v, to: &out)
            case .bool, .null, .impulse: break
            }
        }
    }
}

/// An OSC bundle: a time tag and elements (messages or nested bundles).
package struct OSCBundle: Sendable, Hashable {
    /// NTP time tag; 1 means "immediately". Receivers here deliver everything immediately.
    package var timeTag: UInt64
    /// Messages and nested bundles, in order.
    package var elements: [OSCPacket]

    /// The time tag meaning "now".
    package static let immediately: UInt64 = 1

    /// A bundle of `elements`.
    package init(timeTag: UInt64 = OSCBundle.immediately, _ elements: [OSCPacket]) {
        self.timeTag = timeTag
        self.elements = elements
    }

    /// Appends the encoded bytes to `out`.
    package func encode(into out: inout [UInt8]) {
        out.append(contentsOf: OSCWire.bundleTag)
        OSCWire.append(timeTag, to: &out)
        for e in elements {
            let sizeAt = out.count
            OSCWire.append(UInt32(0), to: &out)
            e.encode(into: &out)
            let size = UInt32(out.count - sizeAt - 4)
            out[sizeAt] = UInt8(size >> 24)
            out[sizeAt + 1] = UInt8((size >> 16) & 0xFF)
            out[sizeAt + 2] = UInt8((size >> 8) & 0xFF)
            out[sizeAt + 3] = UInt8(size & 0xFF)
        }
    }
}

/// What one UDP datagram carries: a message or a bundle.
package enum OSCPacket: Sendable, Hashable {
    /// One message.
    case message(OSCMessage)
    /// A bundle of packets.
    case bundle(OSCBundle)

    /// The encoded bytes.
    /// - Complexity: O(size of the packet).
    package func encoded() -> [UInt8] {
        var out: [UInt8] = []
        encode(into: &out)
        return out
    }

    /// Appends the packet's wire bytes to `out`.
    package func encode(into out: inout [UInt8]) {
        switch self {
        case let .message(m): m.encode(into: &out)
        case let .bundle(b): b.encode(into: &out)
        }
    }

    /// Decodes one packet.
    /// - Throws: ``GestureKitError`` saying what is wrong and at which byte.
    /// - Complexity: O(size of the packet).
    package init(decoding bytes: [UInt8]) throws {
        self = try bytes.withUnsafeBytes { raw in
            do {
                return try OSCPacket.decode(raw, depth: 0)
            } catch {
                throw GestureKitError("invalid OSC packet: \(error)")
            }
        }
    }

    private static func decode(_ p: UnsafeRawBufferPointer, depth: Int) throws(OSCDecodeError) -> OSCPacket {
        if OSCWire.isBundle(p) {
            guard depth < OSCWire.maxDepth else { throw .tooDeep }
            guard p.count >= 16 else { throw .truncated(at: p.count) }
            let tag = OSCWire.load64(p, 8)
            var elements: [OSCPacket] = []
            try OSCWire.forEachElement(p) { (element) throws(OSCDecodeError) in
                elements.append(try decode(element, depth: depth + 1))
            }
            return .bundle(OSCBundle(timeTag: tag, elements))
        }
        let view = try OSCMessageView(p)
        var args: [OSCArgument] = []
        var it = view.arguments
        while let a = try it.next() { args.append(a.value) }
        return .message(OSCMessage(String(decoding: view.address, as: UTF8.self), args))
    }
}

/// Why bytes are not a valid OSC packet (allocation-free so the receive path can throw it cheaply).
package enum OSCDecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes end inside an element starting at this offset.
    case truncated(at: Int)
    /// A string at this offset has no NUL.
    case unterminatedString(at: Int)
    /// The address does not start with `/`.
    case badAddress
    /// No type-tag string after the address.
    case missingTypeTags
    /// A bundle element's size at this offset is negative, unaligned or too large.
    case badElementSize(at: Int)
    /// A type tag this decoder does not read (arrays among them).
    case unsupportedTag(UInt8)
    /// Bundles nested deeper than the decoder allows.
    case tooDeep

    package var description: String {
        switch self {
        case let .truncated(at): return "truncated at byte \(at)"
        case let .unterminatedString(at): return "string not NUL-terminated/padded at byte \(at)"
        case .badAddress: return "address does not start with /"
        case .missingTypeTags: return "type tag string missing (must start with ,)"
        case let .badElementSize(at): return "bundle element size invalid at byte \(at)"
        case let .unsupportedTag(t): return "unsupported type tag '\(Character(Unicode.Scalar(t)))'"
        case .tooDeep: return "bundles nested more than \(OSCWire.maxDepth) deep"
        }
    }
}

/// A decoded message's parts as views into the packet bytes (no copies).
struct OSCMessageView {
    /// Address bytes without the terminating NUL.
    let address: UnsafeRawBufferPointer
    /// Type tags after the `,`.
    let tags: UnsafeRawBufferPointer
    /// The argument payload.
    let payload: UnsafeRawBufferPointer

    init(_ p: UnsafeRawBufferPointer) throws(OSCDecodeError) {
        guard p.count >= 4 else { throw .truncated(at: p.count) }
        guard p[0] == UInt8(ascii: "/") else { throw .badAddress }
        let (addrLen, tagsAt) = try OSCWire.string(p, at: 0)
        address = UnsafeRawBufferPointer(rebasing: p[0..<addrLen])
        guard tagsAt < p.count else {
            // OSC 1.0 allows old senders to omit the type tags; treat as no arguments.
            tags = UnsafeRawBufferPointer(rebasing: p[p.count..<p.count])
            payload = tags
            return
        }
        guard p[tagsAt] == UInt8(ascii: ",") else { throw .missingTypeTags }
        let (tagLen, argsAt) = try OSCWire.string(p, at: tagsAt)
        tags = UnsafeRawBufferPointer(rebasing: p[(tagsAt + 1)..<(tagsAt + tagLen)])
        payload = UnsafeRawBufferPointer(rebasing: p[argsAt..<p.count])
    }

    var arguments: Arguments { Arguments(view: self) }

    /// Walks the arguments in order; `value` allocates only for strings and blobs.
    struct Arguments {
        let view: OSCMessageView
        var index = 0
        var offset = 0

        struct Item {
            let tag: UInt8
            let payload: UnsafeRawBufferPointer
            let at: Int
            /// The argument's numeric value for `i f h d`, without allocating.
            var number: Double? {
                switch tag {
                case UInt8(ascii: "f"): return Double(Float(bitPattern: OSCWire.load32(payload, at)))
                case UInt8(ascii: "i"): return Double(Int32(bitPattern: OSCWire.load32(payload, at)))
                case UInt8(ascii: "d"): return Double(bitPattern: OSCWire.load64(payload, at))
                case UInt8(ascii: "h"): return Double(Int64(bitPattern: OSCWire.load64(payload, at)))
                default: return nil
                }
            }
            var value: OSCArgument {
                switch tag {
                case UInt8(ascii: "i"): return .int32(Int32(bitPattern: OSCWire.load32(payload, at)))
                case UInt8(ascii: "f"): return .float32(Float(bitPattern: OSCWire.load32(payload, at)))
                case UInt8(ascii: "h"): return .int64(Int64(bitPattern: OSCWire.load64(payload, at)))
                case UInt8(ascii: "d"): return .double(Double(bitPattern: OSCWire.load64(payload, at)))
                case UInt8(ascii: "t"): return .timeTag(OSCWire.load64(payload, at))
                case UInt8(ascii: "c"): return .char(OSCWire.load32(payload, at))
                case UInt8(ascii: "r"): return .rgba(OSCWire.load32(payload, at))
                case UInt8(ascii: "m"): return .midi(OSCWire.load32(payload, at))
                case UInt8(ascii: "s"), UInt8(ascii: "S"):
                    var end = at
                    while payload[end] != 0 { end += 1 }
                    let s = String(decoding: payload[at..<end], as: UTF8.self)
                    return tag == UInt8(ascii: "s") ? .string(s) : .symbol(s)
                case UInt8(ascii: "b"):
                    let n = Int(OSCWire.load32(payload, at))
                    return .blob(Array(payload[(at + 4)..<(at + 4 + n)]))
                case UInt8(ascii: "T"): return .bool(true)
                case UInt8(ascii: "F"): return .bool(false)
                case UInt8(ascii: "N"): return .null
                default: return .impulse
                }
            }
        }

        /// The next argument, with its size checked against the payload.
        mutating func next() throws(OSCDecodeError) -> Item? {
            guard index < view.tags.count else { return nil }
            let tag = view.tags[index]
            let p = view.payload
            let at = offset
            let size: Int
            switch tag {
            case UInt8(ascii: "i"), UInt8(ascii: "f"), UInt8(ascii: "c"), UInt8(ascii: "r"), UInt8(ascii: "m"):
                size = 4
            case UInt8(ascii: "h"), UInt8(ascii: "d"), UInt8(ascii: "t"):
                size = 8
            case UInt8(ascii: "s"), UInt8(ascii: "S"):
                size = try OSCWire.string(p, at: at).next - at
            case UInt8(ascii: "b"):
                guard at + 4 <= p.count else { throw .truncated(at: at) }
                let n = Int(OSCWire.load32(p, at))
                size = 4 + OSCWire.padded(n)
            case UInt8(ascii: "T"), UInt8(ascii: "F"), UInt8(ascii: "N"), UInt8(ascii: "I"):
                size = 0
            default:
                throw .unsupportedTag(tag)
            }
            guard at + size <= p.count else { throw .truncated(at: at) }
            index += 1
            offset += size
            return Item(tag: tag, payload: p, at: at)
        }
    }
}

/// Byte-level helpers.
enum OSCWire {
    static let bundleTag: [UInt8] = Array("#bundle".utf8) + [0]
    /// Deepest bundle nesting accepted (guards the recursion against hostile packets).
    static let maxDepth = 16

    @inline(__always) static func padded(_ n: Int) -> Int { (n + 3) & ~3 }

    static func pad(_ out: inout [UInt8]) {
        while out.count % 4 != 0 { out.append(0) }
    }

    static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(contentsOf: s.utf8)
        out.append(0)
        pad(&out)
    }

    @inline(__always) static func append(_ v: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(v >> 24)); out.append(UInt8((v >> 16) & 0xFF))
        out.append(UInt8((v >> 8) & 0xFF)); out.append(UInt8(v & 0xFF))
    }

    @inline(__always) static func append(_ v: UInt64, to out: inout [UInt8]) {
        append(UInt32(v >> 32), to: &out)
        append(UInt32(v & 0xFFFF_FFFF), to: &out)
    }

    @inline(__always) static func load32(_ p: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(p[at]) << 24 | UInt32(p[at + 1]) << 16 | UInt32(p[at + 2]) << 8 | UInt32(p[at + 3])
    }

    @inline(__always) static func load64(_ p: UnsafeRawBufferPointer, _ at: Int) -> UInt64 {
        UInt64(load32(p, at)) << 32 | UInt64(load32(p, at + 4))
    }

    /// A padded string at `at`: its length (without NUL) and the offset after its padding.
    static func string(_ p: UnsafeRawBufferPointer, at: Int) throws(OSCDecodeError) -> (length: Int, next: Int) {
        var end = at
        while end < p.count, p[end] != 0 { end += 1 }
        guard end < p.count else { throw .unterminatedString(at: at) }
        let next = padded(end + 1)
        // The padding must exist and be NULs (a stricter check than some senders need, but the
        // spec requires it and it catches misaligned garbage early).
        guard next <= p.count else { throw .unterminatedString(at: at) }
        for i in (end + 1)..<next where p[i] != 0 { throw .unterminatedString(at: at) }
        return (end - at, next)
    }

    static func isBundle(_ p: UnsafeRawBufferPointer) -> Bool {
        p.count >= 8 && p[0] == UInt8(ascii: "#") && bundleTag.withUnsafeBytes { p[0..<8].elementsEqual($0) }
    }

    /// Calls `body` with each element of the bundle `p` (size-prefixed, after the 16-byte head).
    static func forEachElement(_ p: UnsafeRawBufferPointer,
                               _ body: (UnsafeRawBufferPointer) throws(OSCDecodeError) -> Void) throws(OSCDecodeError) {
        var at = 16
        while at < p.count {
            guard at + 4 <= p.count else { throw .truncated(at: at) }
            let size = Int(load32(p, at))
            guard size % 4 == 0, at + 4 + size <= p.count else { throw .badElementSize(at: at) }
            try body(UnsafeRawBufferPointer(rebasing: p[(at + 4)..<(at + 4 + size)]))
            at += 4 + size
        }
    }

    /// Calls `body` with every message in the packet, depth-first through nested bundles, without
    /// allocating.
    static func forEachMessage(_ p: UnsafeRawBufferPointer, depth: Int = 0,
                               _ body: (OSCMessageView) throws(OSCDecodeError) -> Void) throws(OSCDecodeError) {
        if isBundle(p) {
            guard depth < maxDepth else { throw .tooDeep }
            guard p.count >= 16 else { throw .truncated(at: p.count) }
            try forEachElement(p) { (e) throws(OSCDecodeError) in try forEachMessage(e, depth: depth + 1, body) }
        } else {
            try body(OSCMessageView(p))
        }
    }
}

/// OSC address-pattern matching (OSC 1.0): `?` one character, `*` any run, `[abc]`/`[a-z]`/`[!a]`
/// one character from a set, `{foo,bar}` one of the strings. Wildcards never cross a `/`.
package enum OSCAddressPattern {
    /// Whether `address` matches `pattern`.
    /// - Complexity: O(pattern × address) in the worst case for `*`; linear for literal patterns.
    package static func matches(_ pattern: String, _ address: String) -> Bool {
        var p = pattern, a = address
        return p.withUTF8 { pp in a.withUTF8 { aa in
            matches(UnsafeRawBufferPointer(pp), UnsafeRawBufferPointer(aa))
        } }
    }

    static func matches(_ p: UnsafeRawBufferPointer, _ a: UnsafeRawBufferPointer) -> Bool {
        match(p, 0, a, 0)
    }

    private static func match(_ p: UnsafeRawBufferPointer, _ pi: Int, _ a: UnsafeRawBufferPointer, _ ai: Int) -> Bool {
        var pi = pi, ai = ai
        while pi < p.count {
            let c = p[pi]
            switch c {
            case UInt8(ascii: "*"):
                // Try every split that stays within this address part.
                var k = ai
                while true {
                    if match(p, pi + 1, a, k) { return true }
                    if k >= a.count || a[k] == UInt8(ascii: "/") { return false }
                    k += 1
                }
            case UInt8(ascii: "?"):
                guard ai < a.count, a[ai] != UInt8(ascii: "/") else { return false }
                pi += 1; ai += 1
            case UInt8(ascii: "["):
                guard ai < a.count, a[ai] != UInt8(ascii: "/") else { return false }
                var j = pi + 1
                var negate = false
                if j < p.count, p[j] == UInt8(ascii: "!") { negate = true; j += 1 }
                var hit = false
                var first = true
                while j < p.count, p[j] != UInt8(ascii: "]") || first {
                    first = false
                    if j + 2 < p.count, p[j + 1] == UInt8(ascii: "-"), p[j + 2] != UInt8(ascii: "]") {
                        let lo = min(p[j], p[j + 2]), hi = max(p[j], p[j + 2])
                        if a[ai] >= lo && a[ai] <= hi { hit = true }
                        j += 3
                    } else {
                        if a[ai] == p[j] { hit = true }
                        j += 1
                    }
                }
                guard j < p.count else { return false }  // unclosed [
                if hit == negate { return false }
                pi = j + 1; ai += 1
            case UInt8(ascii: "{"):
                var close = pi + 1
                while close < p.count, p[close] != UInt8(ascii: "}") { close += 1 }
                guard close < p.count else { return false }
                var start = pi + 1
                var k = start
                while k <= close {
                    if k == close || p[k] == UInt8(ascii: ",") {
                        let alt = k - start
                        if ai + alt <= a.count,
                           p[start..<k].elementsEqual(a[ai..<(ai + alt)]),
                           match(p, close + 1, a, ai + alt) { return true }
                        start = k + 1
                    }
                    k += 1
                }
                return false
            default:
                guard ai < a.count, a[ai] == c else { return false }
                pi += 1; ai += 1
            }
        }
        return ai == a.count
    }
}
