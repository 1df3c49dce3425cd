/// A QR code (ISO/IEC 18004, model 2) of a short text, to open the studio on a phone: byte mode,
/// error correction level L, versions 1-9 (up to 230 bytes; a studio URL with its token is about 60).
/// No dependency; the terminal and the page draw the same modules.
///
/// - Complexity: O(size^2) per mask, 8 masks tried.
public struct QRCode: Sendable, Hashable {
    /// Modules per side (21 for version 1, +4 per version).
    public let size: Int
    /// Row-major, true = dark.
    public let modules: [Bool]

    public subscript(row: Int, column: Int) -> Bool { modules[row * size + column] }

    /// Level L blocks per version: (EC codewords per block, data codewords of each block).
    private static let blocks: [(ec: Int, data: [Int])] = [
        (7, [19]), (10, [34]), (15, [55]), (20, [80]), (26, [108]),
        (18, [68, 68]), (20, [78, 78]), (24, [97, 97]), (30, [116, 116]),
    ]
    private static let alignment: [[Int]] = [[], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46]]

    /// - Returns: nil when the text is too long for version 9 at level L (230 bytes).
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        // Mode (4 bits) + count (8 bits in versions 1-9) + data.
        guard let version = (1...9).first(where: { QRCode.blocks[$0 - 1].data.reduce(0, +) * 8 >= 12 + bytes.count * 8 }) else { return nil }
        let (ecLength, dataLengths) = QRCode.blocks[version - 1]
        let capacity = dataLengths.reduce(0, +)

        var bits: [Bool] = []
        func put(_ value: Int, _ count: Int) { for i in (0..<count).reversed() { bits.append((value >> i) & 1 == 1) } }
        put(0b0100, 4)
        put(bytes.count, 8)
        for b in bytes { put(Int(b), 8) }
        put(0, min(4, capacity * 8 - bits.count))
        while bits.count % 8 != 0 { bits.append(false) }
        var data: [UInt8] = stride(from: 0, to: bits.count, by: 8).map { i in bits[i..<i + 8].reduce(0) { $0 << 1 | ($1 ? 1 : 0) } }
        var pad: UInt8 = 0xEC
        while data.count < capacity { data.append(pad); pad = pad == 0xEC ? 0x11 : 0xEC }

        // Split into blocks, add Reed-Solomon codewords, interleave.
        var blockData: [[UInt8]] = [], offset = 0
        for n in dataLengths { blockData.append(Array(data[offset..<offset + n])); offset += n }
        let divisor = QRCode.rsDivisor(ecLength)
        let blockEC = blockData.map { QRCode.rsRemainder($0, divisor) }
        var codewords: [UInt8] = []
        for i in 0..<(dataLengths.max() ?? 0) { for b in blockData where i < b.count { codewords.append(b[i]) } }
        for i in 0..<ecLength { for e in blockEC { codewords.append(e[i]) } }

        var grid = Grid(size: 17 + 4 * version)
        grid.drawFunctionPatterns(version: version, alignment: QRCode.alignment[version - 1])
        grid.drawCodewords(codewords)
        var best: Grid?, bestPenalty = Int.max
        for mask in 0..<8 {
            var g = grid
            g.applyMask(mask)
            g.drawFormat(mask: mask)
            let p = g.penalty()
            if p < bestPenalty { best = g; bestPenalty = p }
        }
        size = grid.size
        modules = best!.dark
    }

    /// Two rows per line with half blocks, black on white with a quiet zone, for a terminal.
    public func terminalText() -> String {
        let quiet = 2, n = size + 2 * quiet
        func dark(_ r: Int, _ c: Int) -> Bool {
            let (rr, cc) = (r - quiet, c - quiet)
            return rr >= 0 && rr < size && cc >= 0 && cc < size && self[rr, cc]
        }
        var out = ""
        for r in stride(from: 0, to: n, by: 2) {
            out += "\u{1B}[30;107m"
            for c in 0..<n {
                switch (dark(r, c), dark(r + 1, c)) {
                case (true, true): out += "\u{2588}"
                case (true, false): out += "\u{2580}"
                case (false, true): out += "\u{2584}"
                case (false, false): out += " "
                }
            }
            out += "\u{1B}[0m\n"
        }
        return out
    }

    /// Rows of "1" (dark) and "0", for the page to draw.
    public var rows: [String] {
        (0..<size).map { r in String((0..<size).map { self[r, $0] ? "1" : "0" }) }
    }

    // MARK: Reed-Solomon over GF(256), polynomial 0x11D

    static func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
        var z = 0
        for i in (0..<8).reversed() {
            z = (z << 1) ^ ((z >> 7) * 0x11D)
            z ^= ((Int(y) >> i) & 1) * Int(x)
        }
        return UInt8(z)
    }

    static func rsDivisor(_ degree: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: degree)
        result[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                result[j] = multiply(result[j], root)
                if j + 1 < degree { result[j] ^= result[j + 1] }
            }
            root = multiply(root, 0x02)
        }
        return result
    }

    static func rsRemainder(_ data: [UInt8], _ divisor: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: divisor.count)
        for b in data {
            let factor = b ^ result.removeFirst()
            result.append(0)
            for i in result.indices { result[i] ^= multiply(divisor[i], factor) }
        }
        return result
    }

    /// Modules plus which of them are function patterns (not data, not masked).
    struct Grid {
        let size: Int
        var dark: [Bool]
        var function: [Bool]

        init(size: Int) {
            self.size = size
            dark = Array(repeating: false, count: size * size)
            function = dark
        }

        mutating func set(_ x: Int, _ y: Int, _ d: Bool) {
            dark[y * size + x] = d
            function[y * size + x] = true
        }

        mutating func drawFunctionPatterns(version: Int, alignment: [Int]) {
            for i in 0..<size {
                set(6, i, i % 2 == 0)
                set(i, 6, i % 2 == 0)
            }
            for (cx, cy) in [(3, 3), (size - 4, 3), (3, size - 4)] {
                for dy in -4...4 {
                    for dx in -4...4 {
                        let (x, y) = (cx + dx, cy + dy)
                        guard x >= 0, x < size, y >= 0, y < size else { continue }
                        let d = max(abs(dx), abs(dy))
                        set(x, y, d != 2 && d != 4)
                    }
                }
            }
            let last = alignment.count - 1
            for (i, ax) in alignment.enumerated() {
                for (j, ay) in alignment.enumerated() where !((i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0)) {
                    for dy in -2...2 { for dx in -2...2 { set(ax + dx, ay + dy, max(abs(dx), abs(dy)) != 1) } }
                }
            }
            drawFormat(mask: 0)  // reserves the format areas; redrawn once the mask is chosen
            if version >= 7 {
                var rem = version
                for _ in 0..<12 { rem = (rem << 1) ^ ((rem >> 11) * 0x1F25) }
                let bits = version << 12 | rem
                for i in 0..<18 {
                    let bit = (bits >> i) & 1 == 1
                    let (a, b) = (size - 11 + i % 3, i / 3)
                    set(a, b, bit)
                    set(b, a, bit)
                }
            }
        }

        /// Format bits for level L (01) and `mask`, both copies, and the dark module.
        mutating func drawFormat(mask: Int) {
            let data = 0b01 << 3 | mask
            var rem = data
            for _ in 0..<10 { rem = (rem << 1) ^ ((rem >> 9) * 0x537) }
            let bits = (data << 10 | rem) ^ 0x5412
            func bit(_ i: Int) -> Bool { (bits >> i) & 1 == 1 }
            for i in 0...5 { set(8, i, bit(i)) }
            set(8, 7, bit(6))
            set(8, 8, bit(7))
            set(7, 8, bit(8))
            for i in 9..<15 { set(14 - i, 8, bit(i)) }
            for i in 0..<8 { set(size - 1 - i, 8, bit(i)) }
            for i in 8..<15 { set(8, size - 15 + i, bit(i)) }
            set(8, size - 8, true)
        }

        /// The zigzag: two-column strips from the right, up then down, skipping the timing column.
        mutating func drawCodewords(_ codewords: [UInt8]) {
            var i = 0
            var right = size - 1
            while right >= 1 {
                if right == 6 { right = 5 }
                for vert in 0..<size {
                    for j in 0..<2 {
                        let x = right - j
                        let upward = (right + 1) & 2 == 0
                        let y = upward ? size - 1 - vert : vert
                        if !function[y * size + x], i < codewords.count * 8 {
                            dark[y * size + x] = (codewords[i >> 3] >> (7 - (i & 7))) & 1 == 1
                            i += 1
                        }
                    }
                }
                right -= 2
            }
        }

        mutating func applyMask(_ mask: Int) {
            for y in 0..<size {
                for x in 0..<size where !function[y * size + x] {
                    let flip: Bool
                    switch mask {
                    case 0: flip = (x + y) % 2 == 0
                    case 1: flip = y % 2 == 0
                    case 2: flip = x % 3 == 0
                    case 3: flip = (x + y) % 3 == 0
                    case 4: flip = (x / 3 + y / 2) % 2 == 0
                    case 5: flip = x * y % 2 + x * y % 3 == 0
                    case 6: flip = (x * y % 2 + x * y % 3) % 2 == 0
                    default: flip = ((x + y) % 2 + x * y % 3) % 2 == 0
                    }
                    if flip { dark[y * size + x].toggle() }
                }
            }
        }

        /// The standard's penalty rules 1 (runs), 2 (2x2 blocks) and 4 (balance); rule 3
        /// (finder look-alikes) is left out: it only ranks masks, every mask decodes.
        func penalty() -> Int {
            var p = 0
            for horizontal in [true, false] {
                for a in 0..<size {
                    var run = 0, last: Bool?
                    for b in 0..<size {
                        let d = horizontal ? dark[a * size + b] : dark[b * size + a]
                        if d == last { run += 1 } else { run = 1; last = d }
                        if run == 5 { p += 3 } else if run > 5 { p += 1 }
                    }
                }
            }
            for y in 0..<size - 1 {
                for x in 0..<size - 1 {
                    let d = dark[y * size + x]
                    if d == dark[y * size + x + 1], d == dark[(y + 1) * size + x], d == dark[(y + 1) * size + x + 1] { p += 3 }
                }
            }
            let darkCount = dark.filter { $0 }.count, total = size * size
            p += (abs(darkCount * 20 - total * 10) + total - 1) / total * 10
            return p
        }
    }
}
