#if canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#else
import Glibc
#endif

/// Byte-level number parsing shared by the text readers (CSV, GRT, .ts, HAPT).
///
/// `parseFloat` gives exactly the value `Float(String)` gives for the same text, without making a
/// `String`: a fast path for ordinary decimals (Clinger's: an exact `Double` product or quotient of
/// two exact numbers, then one rounding to `Float`) and `strtof` for everything else.
enum DecimalParsing {
    /// 10^0 ... 10^22, all exact in `Double`.
    static let powersOfTen: [Double] = {
        var p = [Double](repeating: 1, count: 23)
        for i in 1..<23 { p[i] = p[i - 1] * 10 }
        return p
    }()

    /// The value of the `count` bytes at `base` as a `Float`, or `nil` when they are not a number
    /// (the same text `Float(String)` accepts, so `inf`/`nan`/hex go through `strtof`).
    /// - Complexity: O(count), no allocation for cells under 64 bytes.
    @inline(__always)
    static func parseFloat(_ base: UnsafePointer<UInt8>, _ count: Int,
                           _ pow10: UnsafePointer<Double>) -> Float? {
        var i = 0
        var negative = false
        if count > 0, base[0] == UInt8(ascii: "-") || base[0] == UInt8(ascii: "+") {
            negative = base[0] == UInt8(ascii: "-")
            i = 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var exp10 = 0
        var sawDigit = false
        while i < count {
            let d = base[i] &- 48
            if d >= 10 { break }
            sawDigit = true
            if mantissa != 0 || d != 0 {
                if digits == 19 { return slowFloat(base, count) }
                mantissa = mantissa &* 10 &+ UInt64(d)
                digits += 1
            }
            i += 1
        }
        if i < count, base[i] == UInt8(ascii: ".") {
            i += 1
            while i < count {
                let d = base[i] &- 48
                if d >= 10 { break }
                sawDigit = true
                if mantissa != 0 || d != 0 {
                    if digits == 19 { return slowFloat(base, count) }
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    digits += 1
                }
                exp10 -= 1
                i += 1
            }
        }
        guard sawDigit else { return slowFloat(base, count) }
        if i < count, base[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var expNegative = false
            if i < count, base[i] == UInt8(ascii: "-") || base[i] == UInt8(ascii: "+") {
                expNegative = base[i] == UInt8(ascii: "-")
                i += 1
            }
            var e = 0
            var sawExpDigit = false
            while i < count {
                let d = base[i] &- 48
                if d >= 10 { break }
                sawExpDigit = true
                if e < 100_000 { e = e * 10 + Int(d) }
                i += 1
            }
            guard sawExpDigit else { return slowFloat(base, count) }
            exp10 += expNegative ? -e : e
        }
        guard i == count else { return slowFloat(base, count) }
        if mantissa == 0 { return negative ? -0.0 : 0.0 }
        if mantissa < (1 << 53), exp10 >= -22, exp10 <= 22 {
            // Both operands are exact, so the Double is the correctly rounded decimal value.
            let d = exp10 < 0 ? Double(mantissa) / pow10[-exp10] : Double(mantissa) * pow10[exp10]
            let bits = d.bitPattern
            let biased = Int(truncatingIfNeeded: bits >> 52) & 0x7FF
            // Rounding to Float again can only go wrong when the Double sits exactly on a Float
            // midpoint (low 29 mantissa bits = 1000...0); Float subnormals have other midpoints.
            if biased >= 897, biased <= 1150, bits & 0x1FFF_FFFF != 0x1000_0000 {
                let f = Float(d)
                return negative ? -f : f
            }
        }
        return slowFloat(base, count)
    }

    /// The fast path alone, reading a number that starts at `start` and stops at the first byte
    /// that cannot continue it: `(value, end)`, or `nil` when the text needs the careful path
    /// (no digits, more than 19 digits, a large exponent, a Float midpoint, not finite).
    /// Callers check that the byte at `end` is a separator.
    /// - Complexity: O(digits), no allocation.
    @inline(__always)
    static func scanFloat(_ base: UnsafePointer<UInt8>, _ start: Int, _ limit: Int,
                          _ pow10: UnsafePointer<Double>) -> (Float, Int)? {
        var i = start
        var negative = false
        if i < limit, base[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        var mantissa: UInt64 = 0
        var digits = digitRun(base, &i, limit, &mantissa)
        var exp10 = 0
        if i < limit, base[i] == UInt8(ascii: ".") {
            i += 1
            let fractionDigits = digitRun(base, &i, limit, &mantissa)
            exp10 = -fractionDigits
            digits += fractionDigits
        }
        // Up to 19 digits (leading zeros included) fit a UInt64 exactly.
        guard digits > 0, digits <= 19 else { return nil }
        if i < limit, base[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var expNegative = false
            if i < limit, base[i] == UInt8(ascii: "-") || base[i] == UInt8(ascii: "+") {
                expNegative = base[i] == UInt8(ascii: "-")
                i += 1
            }
            let expStart = i
            var e = 0
            while i < limit, i - expStart < 4 {
                let d = base[i] &- 48
                if d >= 10 { break }
                e = e * 10 + Int(d)
                i += 1
            }
            guard i > expStart, i == limit || base[i] &- 48 >= 10 else { return nil }
            exp10 += expNegative ? -e : e
        }
        if mantissa == 0 { return (negative ? -0.0 : 0.0, i) }
        guard mantissa < (1 << 53), exp10 >= -22, exp10 <= 22 else { return nil }
        let d = exp10 < 0 ? Double(mantissa) / pow10[-exp10] : Double(mantissa) * pow10[exp10]
        let bits = d.bitPattern
        let biased = Int(truncatingIfNeeded: bits >> 52) & 0x7FF
        guard biased >= 897, biased <= 1150, bits & 0x1FFF_FFFF != 0x1000_0000 else { return nil }
        let f = Float(d)
        guard f.isFinite else { return nil }
        return (negative ? -f : f, i)
    }

    /// Appends the decimal digits at `i` to `mantissa` (wrapping; callers reject more than 19
    /// digits) and returns how many there were. Eight bytes at a time where the buffer allows
    /// (SWAR: find the first non-digit byte, then combine the digits with three multiplications).
    @inline(__always)
    static func digitRun(_ base: UnsafePointer<UInt8>, _ i: inout Int, _ limit: Int, _ mantissa: inout UInt64) -> Int {
        var count = 0
        #if _endian(little)
        while i + 8 <= limit {
            let y = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) ^ 0x3030_3030_3030_3030
            // A byte is a digit iff y < 10; bytes >= 10 get their top bit set (carries can only
            // start at a non-digit byte, so they never hide the first one).
            let nonDigit = (y | (y &+ 0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080
            if nonDigit == 0 {
                mantissa = mantissa &* 100_000_000 &+ eightDigits(y)
                i += 8
                count += 8
                continue
            }
            let k = nonDigit.trailingZeroBitCount >> 3
            if k > 0 {
                // Shift the k digits to the top; the zero bytes below are leading zeros.
                mantissa = mantissa &* smallPowerOfTen(k) &+ eightDigits(y << UInt64((8 - k) * 8))
                i += k
                count += k
            }
            return count
        }
        #endif
        while i < limit {
            let d = base[i] &- 48
            if d >= 10 { break }
            mantissa = mantissa &* 10 &+ UInt64(d)
            i += 1
            count += 1
        }
        return count
    }

    /// The number written by eight digit values, first digit in the lowest byte.
    @inline(__always)
    static func eightDigits(_ y: UInt64) -> UInt64 {
        let v = (y &* 10) &+ (y >> 8)  // byte pairs -> 2-digit values
        let mask: UInt64 = 0x0000_00FF_0000_00FF
        let mul1: UInt64 = 0x000F_4240_0000_0064  // 100 + (1_000_000 << 32)
        let mul2: UInt64 = 0x0000_2710_0000_0001  // 1 + (10_000 << 32)
        return (((v & mask) &* mul1) &+ (((v >> 16) & mask) &* mul2)) >> 32
    }

    @inline(__always)
    static func smallPowerOfTen(_ k: Int) -> UInt64 {
        switch k {
        case 1: 10
        case 2: 100
        case 3: 1000
        case 4: 10000
        case 5: 100_000
        case 6: 1_000_000
        default: 10_000_000
        }
    }

    /// `strtof` on a NUL-terminated copy; `nil` unless every byte is consumed.
    @inline(never)
    static func slowFloat(_ base: UnsafePointer<UInt8>, _ count: Int) -> Float? {
        guard count > 0 else { return nil }
        // strtof skips leading white space and Float(String) does not.
        if base[0] == 32 || (base[0] >= 9 && base[0] <= 13) { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { buf -> Float? in
            for j in 0..<count {
                if base[j] == 0 { return nil }
                buf[j] = CChar(bitPattern: base[j])
            }
            buf[count] = 0
            var end: UnsafeMutablePointer<CChar>? = nil
            let v = strtof(buf.baseAddress!, &end)
            guard let end, end == buf.baseAddress! + count else { return nil }
            return v
        }
    }

    /// Parses a whole `[UInt8]` cell (slow paths, tests).
    static func parseFloat<C: Collection>(_ bytes: C) -> Float? where C.Element == UInt8 {
        let a = Array(bytes)
        return powersOfTen.withUnsafeBufferPointer { p in
            a.withUnsafeBufferPointer { b in
                parseFloat(b.baseAddress ?? UnsafePointer(bitPattern: 1)!, b.count, p.baseAddress!)
            }
        }
    }

    /// A non-negative integer made only of digits, or `nil`.
    static func parseUInt(_ base: UnsafePointer<UInt8>, _ count: Int) -> Int? {
        guard count > 0, count <= 18 else { return nil }
        var v = 0
        for j in 0..<count {
            let d = base[j] &- 48
            if d >= 10 { return nil }
            v = v * 10 + Int(d)
        }
        return v
    }

    /// Text for a value that reads back to the identical `Float` (shortest round trip), without a
    /// trailing `.0` on whole numbers.
    static func format(_ v: Float) -> String {
        let s = v.description
        if s.hasSuffix(".0") { return String(s.dropLast(2)) }
        return s
    }
}
