import Foundation
import Testing
@testable import GestureKit

@Suite struct FormatsTSTests {
    func parse(_ text: String) throws -> Dataset { try TSFormat.parse(Array(text.utf8), name: "t.ts") }
    func error(_ text: String) -> GestureKitError? {
        do { _ = try parse(text); return nil } catch let e as GestureKitError { return e } catch { return nil }
    }

    static let unequal = """
    # a comment
    #another
    @problemName Tiny
    @timeStamps false
    @missing false
    @univariate true
    @equalLength false
    @classLabel true up down

    @data
    1,2,3:up
    4.5,-5e-1:down
    7:up
    """

    @Test func univariateUnequalLength() throws {
        let d = try parse(Self.unequal)
        #expect(d.examples.map(\.label) == ["up", "down", "up"])
        #expect(d.examples.map(\.series.frameCount) == [3, 2, 1])
        #expect(d.examples[1].series.values == [4.5, -0.5])
        #expect(d.classes == ["up", "down"])
        #expect(d.channelCount == 1)
        #expect(d.sampleRate == nil && d.sessions.isEmpty && d.users.isEmpty)
    }

    @Test func multivariateIsFramesByChannels() throws {
        let d = try parse("@problemName M\n@timeStamps false\n@univariate false\n@dimensions 2\n@equalLength true\n@seriesLength 3\n@classLabel true a b\n@data\n1,2,3:4,5,6:b\n")
        #expect(d.examples[0].series.values == [1, 4, 2, 5, 3, 6])
        #expect(d.examples[0].series.channelCount == 2)
        #expect(d.examples[0].label == "b")
    }

    /// The UCR archive pads unequal-length series with missing values to the longest: trailing `?`
    /// and `NaN` (any case) are dropped, per dimension, so each example keeps its own length.
    @Test func trailingMissingValuesArePadding() throws {
        let d = try parse("""
        @problemName P
        @missing true
        @univariate false
        @dimensions 2
        @equalLength false
        @classLabel true a b
        @data
        1,2,3,?,?:4,5,6,?,?:a
        1,2,NaN,nan,NaN:3,4, NaN , NaN ,NaN:b
        1,2,3,4,5:6,7,8,9,10:a
        """)
        #expect(d.examples.map(\.series.frameCount) == [3, 2, 5])
        #expect(d.examples[0].series.values == [1, 4, 2, 5, 3, 6])
        #expect(d.examples[1].series.values == [1, 3, 2, 4])
        #expect(d.examples.allSatisfy { $0.series.values.allSatisfy(\.isFinite) })
        // Padded to a declared equal length: the length counts the padding.
        let equal = try parse("@problemName E\n@univariate true\n@equalLength true\n@seriesLength 4\n@classLabel true a\n@data\n1,2,?,?:a\n1,2,3,4:a\n")
        #expect(equal.examples.map(\.series.frameCount) == [2, 4])
    }

    @Test func malformed() {
        let base = "@problemName M\n@timeStamps false\n@univariate false\n@dimensions 2\n@equalLength true\n@seriesLength 3\n@classLabel true a b\n@data\n"
        let cases: [(String, Int, String)] = [
            (base + "1,2,3:4,?,6:b\n", 9, "missing value at value 2"),
            (base + "1,2,3:4,NaN,6:b\n", 9, "missing value at value 2"),
            (base + "1,2,3:?,?,?:b\n", 9, "no values, only missing ones"),
            (base + "1,2,3:4,5,?:b\n", 9, "dimension 1 has 2 values, dimension 0 has 3"),
            (base + "1,2,3,?:4,5,6,?:b\n", 9, "@seriesLength says 3"),
            (base + "1,2,3:4,inf,6:b\n", 9, "not a finite number"),
            (base + "1,2,3:4,5:b\n", 9, "dimension 1 has 2 values"),
            (base + "1,2,3:4,5,6:c\n", 9, "not declared"),
            (base + "1,2,3:b\n", 9, "expected 2 dimensions, found 1"),
            (base + "1,2,3:4,x,6:b\n", 9, "expected a number"),
            (base + "1,2,3,4:4,5,6,7:b\n", 9, "@seriesLength says 3"),
            (base.replacingOccurrences(of: "@timeStamps false", with: "@timeStamps true") + "1,2,3:4,5,6:b\n", 2, "time stamps"),
            (base.replacingOccurrences(of: "@dimensions 2", with: "@dimenshuns 2") + "1,2,3:4,5,6:b\n", 4, "unknown header keyword"),
            (base, 8, "no data after @data"),
            ("@problemName M\n", 1, "no @data"),
        ]
        for (text, line, message) in cases {
            let e = error(text)
            #expect(e?.line == line, "\(String(describing: e))")
            #expect(e?.message.contains(message) == true, "\(String(describing: e)) should say \(message)")
            #expect(e?.file == "t.ts")
        }
    }

    static let expected: [(file: String, examples: Int, classes: [(String, Int)], dims: Int, length: Int)] = [
        ("basicmotions/BasicMotions_TRAIN.ts", 40, [("Standing", 10), ("Running", 10), ("Walking", 10), ("Badminton", 10)], 6, 100),
        ("basicmotions/BasicMotions_TEST.ts", 40, [("Standing", 10), ("Running", 10), ("Walking", 10), ("Badminton", 10)], 6, 100),
        ("uwave/UWaveGestureLibrary_TRAIN.ts", 120, (1...8).map { ("\($0).0", 15) }, 3, 315),
        ("racketsports/RacketSports_TRAIN.ts", 151, [("Badminton_Smash", 39), ("Badminton_Clear", 43), ("Squash_ForehandBoast", 35), ("Squash_BackhandBoast", 34)], 6, 30),
        ("epilepsy/Epilepsy_TRAIN.ts", 137, [("EPILEPSY", 34), ("WALKING", 37), ("RUNNING", 36), ("SAWING", 30)], 3, 206),
    ]

    // BasicMotions is bundled (datasets/), so its files are checked everywhere; the rest need ../shared.
    static let bundledFiles = expected.map(\.file).filter(FormatsTestData.isBundled)
    static let sharedFiles = expected.map(\.file).filter { !FormatsTestData.isBundled($0) }

    @Test(arguments: bundledFiles) func bundledFilesMatchTheirREADME(file: String) throws { try matchesREADME(file) }
    @Test(.enabled(if: FormatsTestData.available, TestData.needsShared), arguments: sharedFiles)
    func realFilesMatchTheirREADME(file: String) throws { try matchesREADME(file) }

    func matchesREADME(_ file: String) throws {
        let want = Self.expected.first { $0.file == file }!
        let d = try Dataset.load(FormatsTestData.path(file))
        #expect(d.examples.count == want.examples)
        #expect(d.classCounts.map(\.label) == want.classes.map(\.0))
        #expect(d.classCounts.map(\.count) == want.classes.map(\.1))
        #expect(d.channelCount == want.dims)
        #expect(d.examples.allSatisfy { $0.series.frameCount == want.length })
        #expect(d.sampleRate == nil)
        if file.hasPrefix("basicmotions/BasicMotions_TRAIN") {
            // README: the first line starts 0.079106,0.079106,-0.903497,1.116125 and is Standing.
            #expect(d.examples[0].label == "Standing")
            #expect(d.examples[0].series.channel(0).prefix(4) == [0.079106, 0.079106, -0.903497, 1.116125])
        }
    }

    /// .ts -> .csv -> read gives equal values and labels in order; .ts -> .ts too.
    @Test(arguments: bundledFiles) func bundledFilesRoundTrip(file: String) throws { try roundTrips(file) }
    @Test(.enabled(if: FormatsTestData.available, TestData.needsShared), arguments: sharedFiles)
    func realFilesRoundTrip(file: String) throws { try roundTrips(file) }

    func roundTrips(_ file: String) throws {
        let original = try Dataset.load(FormatsTestData.path(file))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tsrt-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for out in ["a.csv", "a.ts", "a.grt"] {
            try original.write(to: dir + "/" + out)
            let back = try Dataset.load(dir + "/" + out)
            #expect(back.examples.map(\.label) == original.examples.map(\.label), "\(out)")
            #expect(back.examples.map { $0.series.values.map(\.bitPattern) } == original.examples.map { $0.series.values.map(\.bitPattern) }, "\(out)")
            #expect(back.classes == original.classes, "\(out)")
        }
    }
}
