import Testing
@testable import GestureStudio

@Suite struct QRCodeTests {
    /// Version by length: 17 bytes fit version 1 (L), a studio URL with its token version 4.
    @Test(arguments: [(1, 21), (17, 21), (18, 25), (60, 33), (78, 33), (79, 37), (230, 53)])
    func sizeGrowsWithTheText(length: Int, size: Int) throws {
        let qr = try #require(QRCode(String(repeating: "a", count: length)))
        #expect(qr.size == size)
        #expect(qr.rows.count == size && qr.rows.allSatisfy { $0.count == size })
    }

    @Test func tooLongIsNil() {
        #expect(QRCode(String(repeating: "a", count: 231)) == nil)
    }

    @Test func finderPatternsAndTimingAreInPlace() throws {
        let qr = try #require(QRCode("http://192.168.1.20:8080/?token=0123456789abcdef0123456789abcdef"))
        let n = qr.size
        for (r0, c0) in [(0, 0), (0, n - 7), (n - 7, 0)] {
            for r in 0..<7 {
                for c in 0..<7 {
                    let d = max(abs(r - 3), abs(c - 3))
                    #expect(qr[r0 + r, c0 + c] == (d != 2), "finder at \(r0),\(c0)")
                }
            }
        }
        for i in 8..<(n - 8) { #expect(qr[6, i] == (i % 2 == 0) && qr[i, 6] == (i % 2 == 0)) }
        #expect(qr[n - 8, 8], "the dark module")
    }

    /// The format bits (both copies) read back as level L with a valid BCH code.
    @Test func formatInformationIsLevelLAndConsistent() throws {
        let qr = try #require(QRCode("gesture studio"))
        let n = qr.size
        var first = 0, second = 0
        let firstPositions = (0...5).map { (8, $0) } + [(8, 7), (8, 8), (7, 8)] + (9..<15).map { (14 - $0, 8) }
        for (i, (x, y)) in firstPositions.enumerated() where qr[y, x] { first |= 1 << i }
        let secondPositions = (0..<8).map { (n - 1 - $0, 8) } + (8..<15).map { (8, n - 15 + $0) }
        for (i, (x, y)) in secondPositions.enumerated() where qr[y, x] { second |= 1 << i }
        #expect(first == second)
        let raw = first ^ 0x5412
        #expect(raw >> 13 == 0b01, "level L")
        var rem = raw >> 10
        for _ in 0..<10 { rem = (rem << 1) ^ ((rem >> 9) * 0x537) }
        #expect(rem & 0x3FF == raw & 0x3FF, "BCH check bits")
    }

    /// Reed-Solomon: a block with its check codewords leaves no remainder.
    @Test func reedSolomonCodewordsCheck() {
        let data: [UInt8] = Array("http://studio.local:8080/".utf8)
        for degree in [7, 10, 18, 30] {
            let divisor = QRCode.rsDivisor(degree)
            let ec = QRCode.rsRemainder(data, divisor)
            #expect(QRCode.rsRemainder(data + ec, divisor).allSatisfy { $0 == 0 })
        }
    }
}
