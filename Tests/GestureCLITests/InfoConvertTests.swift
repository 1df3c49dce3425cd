import Foundation
import Testing

/// `gesture info` and `gesture convert` run as a user would, on the real files and on broken ones.
/// Build the binary first (`swift build`).
@Suite struct InfoConvertTests {
    static var haveData: Bool { FileManager.default.fileExists(atPath: CLI.sharedDatasets.path + "/grt/DTWTrainingData.grt") }

    /// BasicMotions is bundled (datasets/); everything else is in ../shared/datasets.
    static func isBundled(_ relative: String) -> Bool {
        FileManager.default.fileExists(atPath: CLI.repo.appendingPathComponent("datasets/" + relative).path)
    }

    func data(_ relative: String) -> String {
        (Self.isBundled(relative) ? CLI.repo.appendingPathComponent("datasets") : CLI.sharedDatasets).appendingPathComponent(relative).path
    }

    func tempDir() throws -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    func infoJSON(_ args: [String]) throws -> [String: Any] {
        let r = try CLI.run(["info", "--json"] + args)
        #expect(r.status == 0, "\(r.stderr)")
        let obj = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        return try #require(obj)
    }

    // README tables: file, examples, classes (name: count), channels, length min/max.
    static let expected: [(String, Int, [String: Int], Int, Int, Int)] = [
        ("grt/acc-orientation.grt", 1526, ["1": 326, "2": 309, "3": 292, "4": 289, "5": 310], 3, 1, 1),
        ("grt/WiiAccShakeData.grt", 1480, ["1": 1480], 3, 1, 1),
        ("grt/DTWTrainingData.grt", 45, ["1": 15, "2": 15, "3": 15], 2, 217, 364),
        ("grt/HMMTrainingData.grt", 101, ["1": 11, "2": 22, "3": 25, "4": 16, "5": 27], 2, 204, 408),
        ("grt/IrisData.grt", 150, ["Iris_Setosa": 50, "Iris_Versicolour": 50, "Iris_Virginica": 50], 4, 1, 1),
        ("grt/ClassLabelFilterTrainingData.grt", 1000, ["2": 328, "3": 325, "1": 347], 2, 1, 1),
        ("grt/ClassLabelChangeFilterTrainingData.grt", 1000, ["2": 328, "3": 325, "1": 347], 2, 1, 1),
        ("grt/ClassLabelFilterTestData.grt", 100, ["1": 94, "2": 4, "3": 2], 2, 1, 1),
        ("grt/ClassLabelChangeFilterTestData.grt", 100, ["1": 94, "2": 4, "3": 2], 2, 1, 1),
        ("grt/ClassLabelTimeoutFilterTrainingData.grt", 1000, ["1": 334, "3": 327, "2": 339], 2, 1, 1),
        ("grt/ClassLabelTimeoutFilterTestData.grt", 100, ["1": 35, "2": 35, "3": 30], 2, 1, 1),
        ("basicmotions/BasicMotions_TRAIN.ts", 40, ["Standing": 10, "Running": 10, "Walking": 10, "Badminton": 10], 6, 100, 100),
        ("basicmotions/BasicMotions_TEST.ts", 40, ["Standing": 10, "Running": 10, "Walking": 10, "Badminton": 10], 6, 100, 100),
        ("uwave/UWaveGestureLibrary_TRAIN.ts", 120, Dictionary(uniqueKeysWithValues: (1...8).map { ("\($0).0", 15) }), 3, 315, 315),
        ("racketsports/RacketSports_TRAIN.ts", 151, ["Badminton_Smash": 39, "Badminton_Clear": 43, "Squash_ForehandBoast": 35, "Squash_BackhandBoast": 34], 6, 30, 30),
        ("epilepsy/Epilepsy_TRAIN.ts", 137, ["EPILEPSY": 34, "WALKING": 37, "RUNNING": 36, "SAWING": 30], 3, 206, 206),
    ]

    @Test(arguments: expected.map(\.0).filter(isBundled)) func infoMatchesREADMEOnBundledData(file: String) throws { try infoMatchesREADME(file) }
    @Test(.enabled(if: haveData, CLI.needsShared), arguments: expected.map(\.0).filter { !isBundled($0) })
    func infoMatchesREADME(file: String) throws { try infoMatchesREADME(file) }

    func infoMatchesREADME(_ file: String) throws {
        let want = Self.expected.first { $0.0 == file }!
        let j = try infoJSON([data(file)])
        #expect(j["format"] as? String == (file.hasSuffix(".ts") ? "ts" : "grt"))
        #expect(j["examples"] as? Int == want.1)
        #expect(j["classes"] as? [String: Int] == want.2)
        #expect(j["channels"] as? Int == want.3)
        #expect((j["channelNames"] as? [String])?.count == want.3)
        let length = j["length"] as? [String: Any]
        #expect(length?["min"] as? Int == want.4)
        #expect(length?["max"] as? Int == want.5)
        #expect(j["sessions"] as? Int == 0)
        #expect(j["users"] as? Int == 0)
        #expect(j.keys.contains("sampleRate") && j["sampleRate"] is NSNull)
    }

    @Test(.enabled(if: haveData, CLI.needsShared)) func infoOnHAPTFolder() throws {
        let j = try infoJSON([data("hapt-raw/RawData")])
        #expect(j["format"] as? String == "hapt")
        #expect(j["examples"] as? Int == 849)
        #expect(j["sessions"] as? Int == 42)
        #expect(j["users"] as? Int == 21)
        #expect(j["sampleRate"] as? Double == 50)
        #expect(j["channels"] as? Int == 6)
        #expect((j["classes"] as? [String: Int])?["WALKING"] == 91)
        #expect((j["classes"] as? [String: Int])?["LIE_TO_STAND"] == 40)
    }

    @Test(.enabled(if: haveData, CLI.needsShared)) func textInfoIsReadable() throws {
        let r = try CLI.run(["info", data("grt/DTWTrainingData.grt")])
        #expect(r.status == 0)
        #expect(r.stdout.contains("examples:    45"))
        #expect(r.stdout.contains("length:      min 217"))
        #expect(r.stdout.contains("sample rate: unknown"))
    }

    @Test(.enabled(if: haveData, CLI.needsShared)) func convertRoundTripsGRT() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let grt = data("grt/DTWTrainingData.grt")
        #expect(try CLI.run(["convert", grt, dir + "/dtw.csv"]).status == 0)
        #expect(try CLI.run(["convert", dir + "/dtw.csv", dir + "/dtw.grt"]).status == 0)
        // Same data rows as the original file (values written shortest, e.g. 592 not 592.0).
        let a = try String(contentsOfFile: grt, encoding: .utf8).components(separatedBy: "LabelledTimeSeriesTrainingData:")[1]
        let b = try String(contentsOfFile: dir + "/dtw.grt", encoding: .utf8).components(separatedBy: "LabelledTimeSeriesTrainingData:")[1]
        #expect(a.split(whereSeparator: \.isWhitespace) == b.split(whereSeparator: \.isWhitespace))
    }

    /// On the bundled BasicMotions recordings, so it runs without ../shared.
    @Test func convertTSToCSV() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let ts = data("basicmotions/BasicMotions_TRAIN.ts")
        #expect(try CLI.run(["convert", ts, dir + "/bm.csv"]).status == 0)
        let j = try infoJSON([dir + "/bm.csv"])
        #expect(j["examples"] as? Int == 40)
        #expect(j["classes"] as? [String: Int] == ["Standing": 10, "Running": 10, "Walking": 10, "Badminton": 10])
        // BasicMotions is 10 Hz (README); .ts files do not say so, the flag does.
        #expect(try infoJSON([ts, "--sample-rate", "10"])["sampleRate"] as? Double == 10)
        let bad = try CLI.run(["convert", ts, dir + "/bm.xlsx"])
        #expect(bad.status == 1 && bad.stderr.hasPrefix("error: "))
    }

    @Test func csvFlags() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "7,wave,1,2,3\n7,wave,1,2,4\n8,,0,0,0\n8,tap,1,1,1\n".write(toFile: dir + "/rec.csv", atomically: true, encoding: .utf8)
        let j = try infoJSON([dir + "/rec.csv", "--columns", "sid,what,x,y,z", "--label-column", "what",
                              "--session-column", "sid", "--channels", "z,x"])
        #expect(j["examples"] as? Int == 2)
        #expect(j["classes"] as? [String: Int] == ["wave": 1, "tap": 1])
        #expect(j["channelNames"] as? [String] == ["z", "x"])
        #expect(j["sessions"] as? Int == 2)
        let w = try infoJSON([dir + "/rec.csv", "--columns", "sid,what,x,y,z", "--label-column", "what",
                              "--session-column", "sid", "--window", "1,1", "--sample-rate", "25"])
        #expect(w["examples"] as? Int == 3)
        #expect(w["sampleRate"] as? Double == 25)
        // convert --window writes the windows as examples (each its own session in CSV).
        #expect(try CLI.run(["convert", dir + "/rec.csv", dir + "/win.grt", "--columns", "sid,what,x,y,z", "--label-column", "what",
                             "--session-column", "sid", "--window", "1,1"]).status == 0)
        let g = try infoJSON([dir + "/win.grt"])
        #expect(g["examples"] as? Int == 3)
        #expect(g["classes"] as? [String: Int] == ["wave": 2, "tap": 1])
        #expect(try CLI.run(["info", dir + "/rec.csv", "--sample-rate", "-1"]).status != 0)
    }

    // MARK: Malformed input: one line `error: FILE:LINE: ...`, exit 1, no trap.

    func expectOneLineError(_ file: String, line: Int, _ extra: [String] = [], says: String,
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        let r = try CLI.run(["info", file] + extra)
        #expect(r.status == 1, "exit \(r.status): \(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stdout.isEmpty, sourceLocation: sourceLocation)
        let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "not one line: \(r.stderr.prefix(300))", sourceLocation: sourceLocation)
        #expect(r.stderr.hasPrefix("error: \(file):\(line): "), "\(r.stderr.prefix(300))", sourceLocation: sourceLocation)
        #expect(r.stderr.contains(says), "\(r.stderr.prefix(300)) should say \(says)", sourceLocation: sourceLocation)
        #expect(r.stderr.count < 400, sourceLocation: sourceLocation)
    }

    func write(_ text: String, _ name: String) throws -> String {
        let path = try tempDir() + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func emptyFile() throws {
        try expectOneLineError(try write("", "empty.csv"), line: 1, says: "empty file")
        try expectOneLineError(try write("", "empty.ts"), line: 1, says: "empty file")
    }

    @Test func truncatedGRT() throws {
        let text = "GRT_LABELLED_CLASSIFICATION_DATA_FILE_V1.0\nDatasetName: X\nInfoText: \nNumDimensions: 2\nTotalNumTrainingExamples: 3\nNumberOfClasses: 1\nClassIDsAndCounters: \n1\t3\tNOT_SET\nUseExternalRanges: 0\nLabelledTrainingData:\n1\t0.5\t0.25\n1\t0.5\t0.2"
        try expectOneLineError(try write(text, "cut.grt"), line: 12, says: "file ends early")
    }

    @Test func truncatedTS() throws {
        let text = "@problemName X\n@timeStamps false\n@univariate false\n@dimensions 2\n@equalLength true\n@seriesLength 3\n@classLabel true a b\n@data\n1,2,3:4,5,6:a\n1,2,3:4,5"
        try expectOneLineError(try write(text, "cut.ts"), line: 10, says: "not declared")
    }

    @Test func wrongColumnCount() throws {
        try expectOneLineError(try write("label,x,y\nw,1,2\nw,3\n", "cols.csv"), line: 3, says: "expected 3 columns, found 2")
    }

    @Test func nonNumericCell() throws {
        try expectOneLineError(try write("label,x,y\nw,1,2\nw,1,2\nw,oops,2\n", "nan.csv"), line: 4, says: "x: expected a number, found \"oops\"")
    }

    @Test func nanAndInf() throws {
        try expectOneLineError(try write("label,x,y\nw,1,NaN\n", "nan.csv"), line: 2, says: "not a finite number")
        try expectOneLineError(try write("label,x,y\nw,1,2\nw,-inf,2\n", "inf.csv"), line: 3, says: "not a finite number")
        try expectOneLineError(try write("@problemName X\n@timeStamps false\n@classLabel true a\n@data\n1,inf,3:a\n", "inf.ts"), line: 5, says: "not a finite number")
    }

    @Test func unknownHeaderKeywordGRT() throws {
        let text = "GRT_LABELLED_TIME_SERIES_CLASSIFICATION_DATA_FILE_V1.0\nDatasetName: X\nInfoText: hello\nNumDimensions: 2\nTotalNumSamples: 3\n"
        try expectOneLineError(try write(text, "kw.grt"), line: 5, says: "expected 'TotalNumTrainingExamples:'")
    }

    @Test func unknownHeaderKeywordTS() throws {
        try expectOneLineError(try write("# c\n@problemName X\n@colour blue\n@data\n", "kw.ts"), line: 3, says: "unknown header keyword \"@colour\"")
    }

    @Test func missingLabelColumn() throws {
        try expectOneLineError(try write("time,x,y\n0,1,2\n", "nolabel.csv"), line: 1, says: "no label column")
        try expectOneLineError(try write("label,x\nw,1\n", "named.csv"), line: 1, ["--label-column", "gesture"], says: "no label column named \"gesture\"")
    }

    @Test func binaryJunk() throws {
        var rng = SystemRandomNumberGenerator()
        let bytes = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &rng) }
        for name in ["junk.csv", "junk.grt", "junk.ts", "junk.bin"] {
            let path = try tempDir() + "/" + name
            // Start with a NUL so the file is binary from its first line.
            try Data([0] + bytes).write(to: URL(fileURLWithPath: path))
            try expectOneLineError(path, line: 1, says: "binary data")
        }
    }

    @Test func tenMegabyteSingleLine() throws {
        let dir = try tempDir()
        let long = String(repeating: "abcdefghij", count: 1_000_000)
        try long.write(toFile: dir + "/long.csv", atomically: true, encoding: .utf8)
        try expectOneLineError(dir + "/long.csv", line: 1, says: "no label column")
        let numbers = "label,x\nw," + String(repeating: "1234567890", count: 1_000_000) + "\n"
        try numbers.write(toFile: dir + "/longcell.csv", atomically: true, encoding: .utf8)
        // 10^10000000 is not a finite Float.
        try expectOneLineError(dir + "/longcell.csv", line: 2, says: "not a finite number")
        let ts = "@problemName X\n@timeStamps false\n@classLabel true a\n@data\n" + String(repeating: "1,", count: 5_000_000) + "x:a\n"
        try ts.write(toFile: dir + "/long.ts", atomically: true, encoding: .utf8)
        try expectOneLineError(dir + "/long.ts", line: 5, says: "expected a number, found \"x\"")
    }

    @Test func missingFile() throws {
        let r = try CLI.run(["info", "/nonexistent/walk.csv"])
        #expect(r.status == 1)
        #expect(r.stderr == "error: /nonexistent/walk.csv: no such file or folder\n")
    }
}
