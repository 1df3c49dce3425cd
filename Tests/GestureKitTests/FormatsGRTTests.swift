import Foundation
import Testing
@testable import GestureKit

@Suite struct FormatsGRTTests {
    func parse(_ text: String) throws -> Dataset { try GRTFormat.parse(Array(text.utf8), name: "t.grt") }
    func error(_ text: String) -> GestureKitError? {
        do { _ = try parse(text); return nil } catch let e as GestureKitError { return e } catch { return nil }
    }

    static let classification = """
    GRT_LABELLED_CLASSIFICATION_DATA_FILE_V1.0
    DatasetName: Tiny
    InfoText: free text with NumDimensions mentioned but not as a keyword
    NumDimensions: 2
    TotalNumTrainingExamples: 3
    NumberOfClasses: 2
    ClassIDsAndCounters: 
    7\t2\tNOT_SET
    3\t1\tthree
    UseExternalRanges: 1
    0 1
    0 1
    LabelledTrainingData:
    7\t0.5\t1
    3\t-2\t1e-05
    7\t4\t5

    """

    @Test func classificationRowsAreOneFrameExamples() throws {
        let d = try parse(Self.classification)
        #expect(d.examples.count == 3)
        #expect(d.examples.map(\.label) == ["7", "three", "7"])
        #expect(d.examples.allSatisfy { $0.series.frameCount == 1 })
        #expect(d.examples[1].series.values == [-2, 1e-05])
        #expect(d.classes == ["three", "7"])  // by class id
        #expect(d.channelCount == 2)
        #expect(d.recordings.isEmpty)
    }

    @Test func timeSeriesBlocks() throws {
        let text = """
        GRT_LABELLED_TIME_SERIES_CLASSIFICATION_DATA_FILE_V1.0
        DatasetName: NOT_SET
        InfoText: 
        NumDimensions: 1
        TotalNumTrainingExamples: 2
        NumberOfClasses: 2
        ClassIDsAndCounters: 
        1 1
        2 1
        UseExternalRanges: 0
        LabelledTimeSeriesTrainingData:
        ************TIME_SERIES************
        ClassID: 2
        TimeSeriesLength: 3
        TimeSeriesData: 
        1
        2
        3
        ************TIME_SERIES************
        ClassID: 1
        TimeSeriesLength: 1
        TimeSeriesData: 
        9
        """
        let d = try parse(text)
        #expect(d.examples.map(\.label) == ["2", "1"])
        #expect(d.examples[0].series.values == [1, 2, 3])
        #expect(d.examples[1].series.values == [9])
    }

    @Test func continuousFileIsOneRecordingWithNullZero() throws {
        let text = """
        GRT_LABELLED_CONTINUOUS_TIME_SERIES_CLASSIFICATION_FILE_V1.0
        DatasetName: Stream
        InfoText: a stream
        NumDimensions: 1
        TotalNumSamples: 6
        NumberOfClasses: 3
        ClassIDsAndCounters: 
        0 2
        1 1
        2 1
        NumberOfPositionTrackers: 4
        TimeSeriesPositionTrackers: 
        0 0 1
        1 2 3
        0 4 4
        2 5 5
        UseExternalRanges: 0
        LabelledContinuousTimeSeriesClassificationData:
        0 0.1
        0 0.2
        1 0.3
        1 0.4
        0 0.5
        2 0.6
        """
        let d = try parse(text)
        #expect(d.recordings.count == 1)
        #expect(d.recordings[0].labels == [nil, nil, "1", "1", nil, "2"])
        #expect(d.examples.map(\.label) == ["1", "2"])
        #expect(d.examples[0].series.values == [0.3, 0.4])
        #expect(d.classes == ["1", "2"])
        // Writing it back gives the same recording.
        let again = try GRTFormat.parse(GRTFormat.encode(d), name: "again.grt")
        #expect(again.recordings.map(\.labels) == d.recordings.map(\.labels))
        #expect(again.recordings[0].series.values == d.recordings[0].series.values)
    }

    @Test func namedRecordingRoundTripsThroughContinuousGRT() throws {
        let r = Recording(series: TimeSeries(values: [1, 2, 3, 4, 5], channelCount: 1),
                          labels: ["wave", nil, nil, "tap", "wave"])
        let d = Dataset(recordings: [r])
        let back = try GRTFormat.parse(GRTFormat.encode(d), name: "named.grt")
        #expect(back.recordings[0].labels == r.labels)
        #expect(Set(back.classes) == ["wave", "tap"])
        // Two recordings do not fit one GRT stream.
        #expect(throws: GestureKitError.self) { try GRTFormat.encode(Dataset(recordings: [r, r])) }
    }

    @Test func malformedHeadersAndCounts() {
        let c = Self.classification
        let cases: [(String, String)] = [
            (c.replacingOccurrences(of: "NumberOfClasses:", with: "NumClasses:"), "expected 'NumberOfClasses:'"),
            (c.replacingOccurrences(of: "GRT_LABELLED_CLASSIFICATION_DATA_FILE_V1.0", with: "GRT_SOMETHING_ELSE"), "unknown GRT format"),
            (c.replacingOccurrences(of: "7\t2\tNOT_SET", with: "7\t3\tNOT_SET"), "declared with 3"),
            (c.replacingOccurrences(of: "TotalNumTrainingExamples: 3", with: "TotalNumTrainingExamples: 4"), "file ends early"),
            (c + "7 1 1\n", "after the 3 declared"),
            (c.replacingOccurrences(of: "7\t4\t5", with: "7\t4\tfive"), "expected a number"),
            (c.replacingOccurrences(of: "7\t4\t5", with: "7\t4\tnan"), "not a finite number"),
            (c.replacingOccurrences(of: "7\t4\t5", with: "5\t4\t5"), "not in ClassIDsAndCounters"),
        ]
        for (text, message) in cases {
            let e = error(text)
            #expect(e?.message.contains(message) == true, "\(String(describing: e)) should say \(message)")
            #expect(e?.file == "t.grt")
            if !message.contains("declared with") { #expect(e?.line != nil) }
        }
        let truncated = String(c.prefix(c.count - 8))
        #expect(error(truncated)?.message.contains("file ends early") == true)
        #expect(error(String(c.prefix(60)))?.line != nil)
    }

    /// README counts for every GRT file: examples, classes (name: count), channels, lengths.
    static let expected: [(file: String, examples: Int, classes: [String: Int], dims: Int, minLen: Int, maxLen: Int)] = [
        ("acc-orientation.grt", 1526, ["1": 326, "2": 309, "3": 292, "4": 289, "5": 310], 3, 1, 1),
        ("WiiAccShakeData.grt", 1480, ["1": 1480], 3, 1, 1),
        ("DTWTrainingData.grt", 45, ["1": 15, "2": 15, "3": 15], 2, 217, 364),
        ("HMMTrainingData.grt", 101, ["1": 11, "2": 22, "3": 25, "4": 16, "5": 27], 2, 204, 408),
        ("IrisData.grt", 150, ["Iris_Setosa": 50, "Iris_Versicolour": 50, "Iris_Virginica": 50], 4, 1, 1),
        ("ClassLabelFilterTrainingData.grt", 1000, ["2": 328, "3": 325, "1": 347], 2, 1, 1),
        ("ClassLabelChangeFilterTrainingData.grt", 1000, ["2": 328, "3": 325, "1": 347], 2, 1, 1),
        ("ClassLabelFilterTestData.grt", 100, ["1": 94, "2": 4, "3": 2], 2, 1, 1),
        ("ClassLabelChangeFilterTestData.grt", 100, ["1": 94, "2": 4, "3": 2], 2, 1, 1),
        ("ClassLabelTimeoutFilterTrainingData.grt", 1000, ["1": 334, "3": 327, "2": 339], 2, 1, 1),
        ("ClassLabelTimeoutFilterTestData.grt", 100, ["1": 35, "2": 35, "3": 30], 2, 1, 1),
    ]

    @Test(.enabled(if: FormatsTestData.available, TestData.needsShared), arguments: expected.map(\.file))
    func realFilesMatchTheirREADME(file: String) throws {
        let want = Self.expected.first { $0.file == file }!
        let d = try Dataset.load(FormatsTestData.path("grt/" + file))
        #expect(d.examples.count == want.examples)
        #expect(Dictionary(uniqueKeysWithValues: d.classCounts.map { ($0.label, $0.count) }) == want.classes)
        #expect(d.channelCount == want.dims)
        #expect(d.examples.map(\.series.frameCount).min() == want.minLen)
        #expect(d.examples.map(\.series.frameCount).max() == want.maxLen)
        if file == "DTWTrainingData.grt" {
            // README: mean length 280; the first series is class 1, length 344, starting 592 263.
            let mean = Double(d.examples.map(\.series.frameCount).reduce(0, +)) / 45
            #expect((mean - 280).magnitude < 0.5)
            #expect(d.examples[0].series.frameCount == 344 && Array(d.examples[0].series.frame(0)) == [592, 263])
        }
        if file == "acc-orientation.grt" {
            #expect(d.examples[0].label == "1" && Array(d.examples[0].series.values) == [0.662899, 0.0128262, 0.229786])
        }
    }

    /// .grt -> .csv -> .grt gives the same values (bit for bit), labels, order and class names.
    @Test(.enabled(if: FormatsTestData.available, TestData.needsShared), arguments: expected.map(\.file))
    func realFilesRoundTripThroughCSV(file: String) throws {
        let original = try Dataset.load(FormatsTestData.path("grt/" + file))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("grtrt-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try original.write(to: dir + "/a.csv")
        let viaCSV = try Dataset.load(dir + "/a.csv")
        try viaCSV.write(to: dir + "/b.grt")
        let back = try Dataset.load(dir + "/b.grt")
        #expect(back.examples.count == original.examples.count)
        #expect(back.examples.map(\.label) == original.examples.map(\.label))
        #expect(back.examples.map { $0.series.values.map(\.bitPattern) } == original.examples.map { $0.series.values.map(\.bitPattern) })
        #expect(Set(back.classes) == Set(original.classes))
        #expect(back.channelCount == original.channelCount)
        // Numeric GRT labels keep their ids: the original file's data rows come back unchanged.
        if original.classes.allSatisfy({ Int($0) != nil }) {
            let a = try String(contentsOfFile: FormatsTestData.path("grt/" + file), encoding: .utf8)
            let b = try String(contentsOfFile: dir + "/b.grt", encoding: .utf8)
            let dataA = a.components(separatedBy: "UseExternalRanges: 0\n")[1].split(separator: "\n").dropFirst()
            let dataB = b.components(separatedBy: "UseExternalRanges: 0\n")[1].split(separator: "\n").dropFirst()
            #expect(dataA.map { numbers($0) } == dataB.map { numbers($0) })
        }
    }

    /// Tokens of a data line with numbers compared as Float values ("592" and "592.0" are equal).
    func numbers(_ line: Substring) -> [String] {
        line.split(whereSeparator: { $0 == "\t" || $0 == " " }).map { t in Float(t).map { "\($0.bitPattern)" } ?? String(t) }
    }
}
