import Foundation
import Testing
@testable import GestureKit

/// The byte parser must give exactly `Float(String)` on every input, and the CSV fast path
/// (`scanFloat`) must agree with it whenever it answers.
@Suite struct FormatsFloatParsingTests {
    /// Parses with both the general parser and the scanning fast path, checking they agree.
    func ours(_ s: String) -> Float? {
        let bytes = Array(s.utf8)
        let general = DecimalParsing.parseFloat(bytes)
        // The fast path reads 8 bytes at a time when the buffer goes on, as in a CSV row: try it
        // at the end of the buffer and followed by more cells.
        for tail in ["", ",1234567890", "\n", " 12345678,9"] {
            let padded = bytes + Array(tail.utf8)
            padded.withUnsafeBufferPointer { b in
                DecimalParsing.powersOfTen.withUnsafeBufferPointer { p in
                    guard let base = b.baseAddress, let (v, end) = DecimalParsing.scanFloat(base, 0, b.count, p.baseAddress!) else { return }
                    // A valid number followed by a separator must end exactly there.
                    if general != nil { #expect(end == bytes.count, "scanFloat stopped at \(end) in \(s)\(tail)") }
                    guard end == bytes.count else { return }
                    #expect(general.map { $0.bitPattern } == v.bitPattern, "scanFloat disagrees on \(s)")
                }
            }
        }
        return general
    }

    func expectSame(_ s: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let want = Float(s)
        let got = ours(s)
        #expect(got?.bitPattern == want?.bitPattern, "\(s): got \(String(describing: got)), Float(String) gives \(String(describing: want))",
                sourceLocation: sourceLocation)
    }

    @Test func randomFloatsRoundTripThroughDescription() {
        var rng = SeededGenerator(seed: 42)
        for _ in 0..<200_000 {
            let f = Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))
            guard f.isFinite else { continue }
            let s = f.description
            #expect(ours(s)?.bitPattern == f.bitPattern, "\(s)")
        }
    }

    @Test func randomDecimalStringsMatchFloatString() {
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<200_000 {
            var s = rng.next() % 2 == 0 ? "-" : ""
            let intDigits = Int(rng.next() % 8)
            let fracDigits = Int(rng.next() % 14)
            for _ in 0..<intDigits { s += String(rng.next() % 10) }
            if fracDigits > 0 || intDigits == 0 {
                s += "."
                for _ in 0..<max(fracDigits, intDigits == 0 ? 1 : 0) { s += String(rng.next() % 10) }
            }
            if rng.next() % 4 == 0 { s += "e" + String(Int(rng.next() % 90) - 45) }
            expectSame(s)
        }
    }

    @Test func fastPathAnswersOrdinaryCells() {
        for s in ["-12.345678", "0.079106", "592", "1e-05", "-0.05497787147760391", "12345678.12345678", "3.25,"] {
            let b = Array((s + ",1").utf8)
            let r = b.withUnsafeBufferPointer { b in
                DecimalParsing.powersOfTen.withUnsafeBufferPointer { p in DecimalParsing.scanFloat(b.baseAddress!, 0, b.count, p.baseAddress!) }
            }
            let text = s.hasSuffix(",") ? String(s.dropLast()) : s
            #expect(r?.0 == Float(text) && r?.1 == text.utf8.count, "\(s)")
        }
    }

    @Test func longAndExtremeInputs() {
        for s in ["0", "-0", "0.0", "1", "-1", "3.4028235e38", "3.4028236e38", "1e39", "-1e39", "1.17549435e-38",
                  "1.4e-45", "7e-46", "1e-50", "123456789012345678901234567890", "0.1", "0.2", "0.3",
                  "0.000000000000000000000000000001", "9007199254740993", "18446744073709551616",
                  "1e22", "1e23", "4.5e-7", "00012.5000", ".5", "5.", "+2.5", "1E5", "1e+05", "2.5e-0",
                  "0.9180555898766518", "-0.05497787147760391", "-0.1124999994242935"] {
            expectSame(s)
        }
    }

    /// Decimals whose nearest Double is exactly halfway between two Floats: rounding the Double
    /// again would break the tie the wrong way, so these must take the exact fallback.
    @Test func floatMidpointsUseTheExactPath() {
        // 2^24 + 1 is halfway between 16777216 and 16777218 (ties to even: 16777216).
        expectSame("16777217")
        #expect(ours("16777217") == 16_777_216)
        // Just above the midpoint the answer is the upper neighbour, though the Double rounds to the midpoint.
        expectSame("16777217.000000001")
        #expect(ours("16777217.000000001") == 16_777_218)
        expectSame("16777216.999999999")
        #expect(ours("16777216.999999999") == 16_777_216)
        expectSame("16777219")
        #expect(ours("16777219") == 16_777_220)
        // Random midpoints: Float f and its successor; their exact midpoint, and ±1 in the 17th digit.
        var rng = SeededGenerator(seed: 3)
        for _ in 0..<20_000 {
            let f = Float(bitPattern: UInt32(rng.next() % 0x7F00_0000) + 0x0080_0000)
            let mid = (Double(f) + Double(f.nextUp)) / 2
            for s in [String(format: "%.17g", mid), String(format: "%.9g", mid), String(format: "%.12g", mid), mid.description] {
                expectSame(s)
            }
        }
    }

    @Test func rejectsWhatFloatStringRejects() {
        for s in ["", "-", ".", "e5", "1e", "1e+", "1.2.3", "abc", "1,5", " 1", "1 ", "--1", "0x", "1e5x"] {
            #expect(ours(s) == nil, "\(s) should not parse")
            #expect(Float(s) == nil, "test premise: Float(\"\(s)\") is nil")
        }
    }

    @Test func formattedValuesReadBackIdentically() {
        var rng = SeededGenerator(seed: 11)
        for _ in 0..<50_000 {
            let f = Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))
            guard f.isFinite else { continue }
            let s = DecimalParsing.format(f)
            #expect(!s.hasSuffix(".0"))
            #expect(ours(s)?.bitPattern == f.bitPattern, "\(s)")
        }
    }

    /// Every number in the bundled BasicMotions files parses to what `Float(String)` gives.
    @Test func bundledDataValuesMatchFloatString() throws {
        #expect(try valuesMatchFloatString(["basicmotions/BasicMotions_TRAIN.ts", "basicmotions/BasicMotions_TEST.ts"]) >= 2 * 40 * 6 * 100)
    }

    /// Every number in the real dataset files of ../shared parses to what `Float(String)` gives.
    @Test(.enabled(if: FormatsTestData.available, TestData.needsShared)) func realDataValuesMatchFloatString() throws {
        let files = ["epilepsy/Epilepsy_TRAIN.ts", "uwave/UWaveGestureLibrary_TRAIN.ts",
                     "grt/IrisData.grt", "grt/acc-orientation.grt", "grt/DTWTrainingData.grt",
                     "hapt-raw/RawData/acc_exp01_user01.txt", "hapt-raw/RawData/gyro_exp01_user01.txt"]
        #expect(try valuesMatchFloatString(files) > 100_000)
    }

    /// How many numbers of `files` were checked against `Float(String)`.
    func valuesMatchFloatString(_ files: [String]) throws -> Int {
        var checked = 0
        for f in files {
            let text = try String(contentsOfFile: FormatsTestData.path(f), encoding: .utf8)
            var tokens = 0
            for token in text.split(whereSeparator: { " \t\n,:".contains($0) }) where token.first.map({ $0.isNumber || $0 == "-" }) ?? false {
                tokens += 1
                if tokens > 40_000 { break }  // keeps the debug-build test short; still every file
                let s = String(token)
                guard let want = Float(s) else { continue }
                #expect(ours(s)?.bitPattern == want.bitPattern, "\(f): \(s)")
                checked += 1
            }
        }
        return checked
    }
}

/// Where the shared datasets are (repo/../shared/datasets), for tests that read them; BasicMotions
/// is read from the repository's own datasets/.
enum FormatsTestData {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/datasets").path
    static var available: Bool { FileManager.default.fileExists(atPath: root + "/grt/DTWTrainingData.grt") }
    static func isBundled(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: repo + "/datasets/" + relative) }
    static func path(_ relative: String) -> String { isBundled(relative) ? repo + "/datasets/" + relative : root + "/" + relative }
    static var repo: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }
}
