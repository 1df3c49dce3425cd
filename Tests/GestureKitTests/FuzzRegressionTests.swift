import Foundation
import Testing
@testable import GestureKit

/// Inputs the coverage-guided fuzzers in Fuzz/ found; each once broke a reader or a round trip.
@Suite struct FuzzRegressionTests {
    /// FuzzCSV: a header cell holding `"` before a combining mark (U+032C) was written without
    /// doubling that quote, so the file read back with the channel name cut short.
    @Test func csvQuoteBeforeCombiningMarkRoundTrips() throws {
        let input: [UInt8] = [
            0x00, 0x73, 0x69, 0x75, 0x61, 0x6f, 0x6e, 0x2c, 0x6c, 0x61, 0x62, 0x65, 0x6c, 0x2c, 0x00, 0x00,
            0x00, 0x00, 0x22, 0x22, 0xcc, 0xac, 0x2d, 0x2d, 0x22, 0x22, 0x00, 0x00, 0x00, 0x00, 0x00, 0x8c,
            0xff, 0xff, 0xff, 0xb9, 0xff, 0xff, 0xff, 0xff, 0x6f, 0x6f, 0x6f, 0x6f, 0x6f, 0x6f, 0x6f, 0x6f,
            0x6f, 0x6f, 0x6f, 0x6f, 0x6f, 0x6f, 0x6f, 0x6f, 0x6f, 0xff, 0xff, 0xff, 0xff, 0x0a, 0x73, 0x2c,
            0x31, 0x2c, 0x30,
        ]
        let first = try CSVFormat.parseRecordings(input, name: "f.csv")
        let again = try CSVFormat.parseRecordings(CSVFormat.encode(Dataset(recordings: first)), name: "g.csv")
        #expect(again.map(\.series.channelNames) == first.map(\.series.channelNames))
        #expect(again.map(\.series.values) == first.map(\.series.values))
    }

    /// The same class of bug in labels, sessions and a delimiter followed by a combining mark.
    @Test func csvCombiningMarksAfterSpecialBytesRoundTrip() throws {
        let names = ["a\"\u{32C}b", "x,\u{301}y", " \u{301}lead", "semi;\u{300}"]
        let series = TimeSeries(values: [1, 2], channelCount: 1, channelNames: [names[1]])
        let r = Recording(series: series, labels: [names[0], names[3]], session: names[2])
        let back = try CSVFormat.parseRecordings(CSVFormat.encode(Dataset(recordings: [r])), name: "g.csv")
        #expect(back.count == 1)
        #expect(back.first?.series.channelNames == [names[1]])
        #expect(back.first?.labels == [names[0], names[3]])
        #expect(back.first?.session == names[2])
    }

    /// A `train -o` killed by SIGKILL leaves `.NAME.tmp-PID`; the next save of NAME removes it.
    @Test func saveRemovesTemporariesOfDeadWriters() throws {
        let dir = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pid = try Self.deadPID()
        let dead = "\(dir)/.p.gesture.tmp-\(pid)"
        let live = "\(dir)/.p.gesture.tmp-1"  // pid 1 is alive: its temporary must stay
        let other = "\(dir)/.q.gesture.tmp-\(pid)"
        for f in [dead, live, other] { #expect(FileManager.default.createFile(atPath: f, contents: Data("x".utf8))) }
        try writeAtomically(Data("new".utf8), to: "\(dir)/p.gesture")
        #expect(!FileManager.default.fileExists(atPath: dead))
        #expect(FileManager.default.fileExists(atPath: live))
        #expect(FileManager.default.fileExists(atPath: other))
        #expect(try String(contentsOfFile: "\(dir)/p.gesture", encoding: .utf8) == "new")
    }

    /// `convert` to .ts/.grt went through Foundation's `.atomic`, whose temporary no later write
    /// cleaned up after a kill -9; the dataset writers now share the pipeline file's writer. That
    /// writer created its own temporary with FileManager.createFile, itself atomic through
    /// `.NAME.tmp-PID.tmp.XXXXXX`, not a name the sweep knew: in one kill-convert run (40 kills)
    /// a temporary outlived the next write.
    @Test(arguments: ["ts", "grt"]) func datasetWritersRemoveTemporariesOfDeadWriters(_ ext: String) throws {
        let dir = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let pid = try Self.deadPID()
        for stale in ["\(dir)/.d.\(ext).tmp-\(pid)", "\(dir)/.d.\(ext).tmp-\(pid).tmp.Xa9bQz"] {
            #expect(FileManager.default.createFile(atPath: stale, contents: Data("half".utf8)))
        }
        let dataset = try Dataset.load(TestData.basicMotionsTrain)
        try dataset.write(to: "\(dir)/d.\(ext)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["d.\(ext)"])
        #expect(try Dataset.load("\(dir)/d.\(ext)").examples.count == dataset.examples.count)
    }

    static func scratchFolder() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fuzzreg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A pid that is certainly gone: a child that has exited and been reaped.
    static func deadPID() throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/true")
        try p.run()
        p.waitUntilExit()
        return p.processIdentifier
    }

    /// FuzzHAPT: a labels.txt line of carriage returns was quoted raw into the error, which then
    /// spanned lines. Control characters in any message are now escaped.
    @Test func haptLabelErrorStaysOnOneLine() throws {
        let labels: [UInt8] = [0x31, 0x31, 0x20, 0x35, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0a, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x0d, 0x21, 0x0a, 0x20, 0xe8, 0x0d, 0x20, 0x0d]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fuzzreg-labels-\(UUID().uuidString).txt").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(labels)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try HAPTFormat.readLabels(path)
            Issue.record("labels.txt with a bad line was accepted")
        } catch let e as GestureKitError {
            #expect(e.file == path)
            #expect(!e.description.unicodeScalars.contains { $0.value < 0x20 })
            #expect(e.description.contains("\\r"))
        }
    }

    /// FuzzSpec: an unknown feature name holding a newline was echoed into a two-line error.
    @Test func specErrorStaysOnOneLine() throws {
        let json = Data(#"{"features": {"extractors": [{"kind": "timeDomain", "features": ["me\n", "std"]}]}, "classifier": {"kind": "knn", "k": 5}}"#.utf8)
        do {
            _ = try decodeJSON(PipelineSpec.self, from: json, file: "s.json")
            Issue.record("a spec with an unknown feature was accepted")
        } catch let e as GestureKitError {
            #expect(e.description.contains("unknown feature"))
            #expect(!e.description.unicodeScalars.contains { $0.value < 0x20 })
        }
    }

    /// FuzzPipelineFile (954,398 runs): a pipeline file whose moving average said "channels": -6
    /// trapped in the decoder, which sized its ring before anything checked the value. Every
    /// stage that allocates while decoding now validates first; sizes are bounded so a file cannot
    /// ask for gigabytes or a long design either.
    @Test(arguments: [
        #"{"kind":"movingAverage","window":3,"channels":-6}"#,
        #"{"kind":"median","window":3,"channels":-6}"#,
        #"{"kind":"movingAverage","window":-3,"channels":6}"#,
        #"{"kind":"movingAverage","window":4611686018427387904,"channels":6}"#,
        #"{"kind":"median","window":3,"channels":4611686018427387904}"#,
        #"{"kind":"derivative","channels":-6}"#,
        #"{"kind":"savitzkyGolay","window":7,"channels":-6}"#,
        #"{"kind":"savitzkyGolay","window":99999999,"polynomialOrder":2,"mode":"endpoint"}"#,
        #"{"kind":"savitzkyGolay","window":4095,"polynomialOrder":4000}"#,
        #"{"kind":"lowPass","normalizedCutoff":0.2,"channels":-6}"#,
        #"{"kind":"lowPass","normalizedCutoff":0.2,"order":1000000000}"#,
    ]) func decodedFilterSizesAreCheckedBeforeAllocating(_ stage: String) throws {
        // The fuzzer's input, cut down to the stage that trapped, inside a whole pipeline spec.
        let json = #"{"preprocessing":["# + stage + #"],"classifier":{"kind":"knn"}}"#
        do {
            _ = try decodeJSON(PipelineSpec.self, from: Data(json.utf8), file: "p.gesture")
            Issue.record("decoded \(stage)")
        } catch let e as GestureKitError {
            #expect(e.file == "p.gesture")
            #expect(!e.description.contains("\n"))
        }
    }

    /// FuzzHAPT: experiment files with no samples gave a recording of 0 frames, and
    /// `Recording.segments` read `labels[1]` of an empty array (a trap, found at 75,000 runs).
    @Test func emptyRecordingHasNoSegments() throws {
        let r = Recording(series: TimeSeries(values: [], channelCount: 6), labels: [])
        #expect(r.segments.isEmpty)
        #expect(r.segmentExamples(nullLabel: "rest").isEmpty)
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("fuzzreg-hapt-\(UUID().uuidString)").path
        let raw = root + "/RawData"
        try FileManager.default.createDirectory(atPath: raw, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        // The fuzzer's input: labels.txt " " plus blank lines, acc and gyro files of blank lines.
        for (name, text) in [("labels.txt", " \n\n\n\n\n\n\n\n"), ("acc_exp01_user01.txt", "\n\n\n\n\n\n\n\n\n"),
                             ("gyro_exp01_user01.txt", String(repeating: "\n", count: 21))] {
            #expect(FileManager.default.createFile(atPath: "\(raw)/\(name)", contents: Data(text.utf8)))
        }
        do {
            let d = try HAPTFormat.read(raw)
            #expect(d.examples.isEmpty)
        } catch let e as GestureKitError {
            #expect(e.file != nil)
        }
    }
}
