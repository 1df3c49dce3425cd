import Foundation
import Testing
@testable import GestureKit

@Suite struct FormatsHAPTTests {
    /// A RawData folder holding only experiment 1 (links to the real files) and the full labels.txt.
    func oneExperimentFolder() throws -> String {
        let fm = FileManager.default
        let root = fm.temporaryDirectory.appendingPathComponent("hapt-\(UUID().uuidString)").path
        let raw = root + "/RawData"
        try fm.createDirectory(atPath: raw, withIntermediateDirectories: true)
        let src = FormatsTestData.path("hapt-raw")
        for f in ["acc_exp01_user01.txt", "gyro_exp01_user01.txt", "labels.txt"] {
            try fm.createSymbolicLink(atPath: raw + "/" + f, withDestinationPath: src + "/RawData/" + f)
        }
        try fm.createSymbolicLink(atPath: root + "/activity_labels.txt", withDestinationPath: src + "/activity_labels.txt")
        return root
    }

    /// labels.txt read here independently: (activity name, 0-based half-open range) for experiment 1.
    func expectedSegments() throws -> [(String, Range<Int>)] {
        var names: [Int: String] = [:]
        for l in try String(contentsOfFile: FormatsTestData.path("hapt-raw/activity_labels.txt"), encoding: .utf8).split(separator: "\n") {
            let w = l.split(separator: " ")
            names[Int(w[0])!] = String(w[1])
        }
        var out: [(String, Range<Int>)] = []
        for l in try String(contentsOfFile: FormatsTestData.path("hapt-raw/RawData/labels.txt"), encoding: .utf8).split(separator: "\n") {
            let v = l.split(separator: " ").map { Int($0)! }
            guard v[0] == 1 else { continue }
            // 1-based inclusive start...end -> 0-based start-1 ..< end
            out.append((names[v[2]]!, (v[3] - 1)..<v[4]))
        }
        return out
    }

    @Test(.enabled(if: FormatsTestData.available, TestData.needsShared)) func experimentRoundTripsThroughCSVWithLabelledSegments() throws {
        let root = try oneExperimentFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(try DatasetFormat.of(root + "/RawData") == .hapt)
        let d = try Dataset.load(root + "/RawData")
        #expect(d.recordings.count == 1)
        let r = d.recordings[0]
        #expect(r.session == "exp01" && r.user == "user01")
        #expect(r.series.channelNames == ["accX", "accY", "accZ", "gyroX", "gyroY", "gyroZ"])
        #expect(r.series.sampleRate == 50)
        // First rows from the README: acc 0.9180555898766518 -0.1124999994242935 0.5097222514293852,
        // gyro -0.05497787147760391 -0.06963863968849182 -0.03084869496524334.
        #expect(Array(r.series.frame(0)) == [Float("0.9180555898766518")!, Float("-0.1124999994242935")!, Float("0.5097222514293852")!,
                                            Float("-0.05497787147760391")!, Float("-0.06963863968849182")!, Float("-0.03084869496524334")!])
        let csv = root + "/exp01.csv"
        try d.write(to: csv)
        let back = try Dataset.load(csv)
        #expect(back.recordings.count == 1)
        let b = back.recordings[0]
        #expect(b.series.values.map(\.bitPattern) == r.series.values.map(\.bitPattern))
        let got = b.segments.filter { $0.label != nil }.map { ($0.label!, $0.range) }
        let want = try expectedSegments()
        #expect(got.count == want.count)
        #expect(got.map(\.0) == want.map(\.0))
        #expect(got.map(\.1) == want.map(\.1))
        #expect(back.examples.count == want.count)
    }

    /// README: 42 recordings, 797,484 samples, 849 segments with per-class counts 91, 128, 128, 84,
    /// 84, 84, 42, 44, 42, 42, 40, 40, 21 users. Reads all of RawData (several seconds in debug).
    @Test(.enabled(if: FormatsTestData.available, TestData.needsShared)) func wholeFolderMatchesREADME() throws {
        let d = try Dataset.load(FormatsTestData.path("hapt-raw"))
        #expect(d.recordings.count == 42)
        #expect(d.recordings.reduce(0) { $0 + $1.series.frameCount } == 797_484)
        #expect(d.examples.count == 849)
        #expect(d.classCounts.map(\.count) == [91, 128, 128, 84, 84, 84, 42, 44, 42, 42, 40, 40])
        #expect(d.classes.first == "WALKING" && d.classes.last == "LIE_TO_STAND")
        #expect(d.users.count == 21)
        #expect(d.sampleRate == 50)
    }
}
