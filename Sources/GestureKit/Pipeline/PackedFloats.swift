import Foundation

/// A `[Float]` stored losslessly in JSON as base64 of its little-endian IEEE-754 bits, so that a
/// saved and reloaded model gives bit-identical outputs.
public struct PackedFloats: Sendable, Hashable, Codable {
    /// The floats.
    public var values: [Float]

    /// Wraps `values`.
    public init(_ values: [Float]) { self.values = values }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        guard let data = Data(base64Encoded: text), data.count % 4 == 0 else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a base64 Float32 array")
        }
        var out = [Float](repeating: 0, count: data.count / 4)
        data.withUnsafeBytes { raw in
            for i in out.indices {
                out[i] = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)))
            }
        }
        values = out
    }

    public func encode(to encoder: Encoder) throws {
        var bytes = [UInt8](repeating: 0, count: values.count * 4)
        for (i, v) in values.enumerated() {
            let b = v.bitPattern.littleEndian
            bytes[i * 4] = UInt8(truncatingIfNeeded: b)
            bytes[i * 4 + 1] = UInt8(truncatingIfNeeded: b >> 8)
            bytes[i * 4 + 2] = UInt8(truncatingIfNeeded: b >> 16)
            bytes[i * 4 + 3] = UInt8(truncatingIfNeeded: b >> 24)
        }
        var c = encoder.singleValueContainer()
        try c.encode(Data(bytes).base64EncodedString())
    }

    /// Throws naming `field` unless every value is finite and, when given, the count is `count`.
    public func check(_ field: String, count: Int? = nil) throws {
        if let count, values.count != count {
            throw GestureKitError("expected \(count) values, found \(values.count)", field: field)
        }
        if let bad = values.firstIndex(where: { !$0.isFinite }) {
            throw GestureKitError("value \(bad) is not finite", field: field)
        }
    }
}
