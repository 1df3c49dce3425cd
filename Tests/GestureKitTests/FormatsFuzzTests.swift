import Foundation
import Testing
@testable import GestureKit

/// Damaged input never traps: every reader either reads it or throws a ``GestureKitError`` that
/// names the file (a crash here takes the whole test process down, which is the failure).
@Suite struct FormatsFuzzTests {
    static let csv = "session,label,x,y\ns1,,0.5,1\ns1,wave,-2.25,3e2\ns2,\"tap, hard\",4,5\n"
    static let ts = "# c\n@problemName P\n@timeStamps false\n@univariate false\n@dimensions 2\n@equalLength false\n@classLabel true a b\n@data\n1,2,3:4,5,6:a\n7,8:9,10:b\n"
    static let grtSeries = "GRT_LABELLED_TIME_SERIES_CLASSIFICATION_DATA_FILE_V1.0\nDatasetName: X\nInfoText: t\nNumDimensions: 2\nTotalNumTrainingExamples: 2\nNumberOfClasses: 2\nClassIDsAndCounters: \n1 1\n2 1\nUseExternalRanges: 0\nLabelledTimeSeriesTrainingData:\n************TIME_SERIES************\nClassID: 1\nTimeSeriesLength: 2\nTimeSeriesData: \n1 2\n3 4\n************TIME_SERIES************\nClassID: 2\nTimeSeriesLength: 1\nTimeSeriesData: \n5 6\n"
    static let grtStream = "GRT_LABELLED_CONTINUOUS_TIME_SERIES_CLASSIFICATION_FILE_V1.0\nDatasetName: S\nInfoText: \nNumDimensions: 1\nTotalNumSamples: 3\nNumberOfClasses: 2\nClassIDsAndCounters: \n0 1\n1 1\nNumberOfPositionTrackers: 2\nTimeSeriesPositionTrackers: \n0 0 0\n1 1 2\nUseExternalRanges: 0\nLabelledContinuousTimeSeriesClassificationData:\n0 0.1\n1 0.2\n1 0.3\n"

    /// Random edits: delete, duplicate or replace a byte range, or insert digits, separators or junk.
    func mutate(_ bytes: [UInt8], _ rng: inout SeededGenerator) -> [UInt8] {
        var b = bytes
        for _ in 0..<(1 + Int(rng.next() % 3)) {
            guard !b.isEmpty else { break }
            let i = Int(rng.next() % UInt64(b.count))
            let n = min(b.count - i, 1 + Int(rng.next() % 6))
            switch rng.next() % 5 {
            case 0: b.removeSubrange(i..<(i + n))
            case 1: b.insert(contentsOf: b[i..<(i + n)], at: i)
            case 2: for k in i..<(i + n) { b[k] = UInt8(truncatingIfNeeded: rng.next()) }
            case 3: b.insert(contentsOf: Array("9999999999999999999".utf8.prefix(n * 3)), at: i)
            default: b.insert(contentsOf: [UInt8](",:\n\t\"?-e.".utf8).shuffled(using: &rng).prefix(n), at: i)
            }
        }
        return b
    }

    @Test(arguments: ["csv", "ts", "grtSeries", "grtStream"])
    func mutatedFilesThrowOrRead(kind: String) {
        let source = ["csv": Self.csv, "ts": Self.ts, "grtSeries": Self.grtSeries, "grtStream": Self.grtStream][kind]!
        var rng = SeededGenerator(seed: UInt64(kind.utf8.count))
        var errors = 0
        for _ in 0..<3000 {
            let b = mutate(Array(source.utf8), &rng)
            do {
                switch kind {
                case "csv": _ = try CSVFormat.parseRecordings(b, name: "f")
                case "ts": _ = try TSFormat.parse(b, name: "f")
                default: _ = try GRTFormat.parse(b, name: "f")
                }
            } catch let e as GestureKitError {
                errors += 1
                #expect(e.file == "f")
                #expect(!e.description.contains("\n"))
            } catch {
                Issue.record("not a GestureKitError: \(error)")
            }
        }
        #expect(errors > 300)  // the edits really do break files
    }
}
