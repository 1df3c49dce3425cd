import Foundation
import Testing
@testable import GestureKit

@Suite struct FormatsCSVTests {
    func parse(_ text: String, _ options: DatasetLoadOptions = .init(), name: String = "t.csv") throws -> [Recording] {
        try CSVFormat.parseRecordings(Array(text.utf8), name: name, options: options)
    }

    func error(_ text: String, _ options: DatasetLoadOptions = .init()) -> GestureKitError? {
        do { _ = try parse(text, options); return nil } catch let e as GestureKitError { return e } catch { return nil }
    }

    @Test func sessionsLabelsAndChannels() throws {
        let text = """
        session,label,note,accX,accY
        a,,x,1,2
        a,wave,y,3,4
        a,wave,z,5,6
        b,walk,w,7,8
        a,,v,9,10

        """
        let rs = try parse(text)
        #expect(rs.count == 2)
        // Rows of session a, wherever they are, form one recording in row order.
        #expect(rs[0].session == "a" && rs[1].session == "b")
        #expect(rs[0].series.channelNames == ["accX", "accY"])  // "note" is not numeric
        #expect(rs[0].series.values == [1, 2, 3, 4, 5, 6, 9, 10])
        #expect(rs[0].labels == [nil, "wave", "wave", nil])
        #expect(rs[1].labels == ["walk"])
        #expect(rs[1].series.values == [7, 8])
        let d = try Dataset.load(try tempFile(text, "s.csv"))
        #expect(d.classes == ["wave", "walk"])
        #expect(d.examples.map(\.label) == ["wave", "walk"])  // null runs are not examples
        #expect(d.examples[0].series.values == [3, 4, 5, 6])
    }

    @Test func headerlessRecorderLayoutWithColumnNames() throws {
        let cols = ["sessionId", "activity", "roll", "pitch", "yaw", "rotX", "rotY", "rotZ", "gravX", "gravY", "gravZ", "accelX", "accelY", "accelZ"]
        let text = "1,tap,0.1,0.2,0.3,1,2,3,0,0,-1,0.01,0.02,0.03\n1,tap,0.1,0.2,0.3,1,2,3,0,0,-1,0.01,0.02,0.04\n2,,0,0,0,0,0,0,0,0,-1,0,0,0\n"
        let rs = try parse(text, DatasetLoadOptions(columns: cols))
        #expect(rs.count == 2)
        #expect(rs[0].series.channelNames == Array(cols.dropFirst(2)))
        #expect(rs[0].session == "1")
        #expect(rs[0].labels == ["tap", "tap"])
        #expect(rs[0].series[1, 11] == 0.04)
        #expect(rs[1].labels == [nil])
        // Without names the first line is data, not a header: a clear error.
        let e = error(text)
        #expect(e?.line == 1)
        #expect(e?.message.contains("--columns") == true)
    }

    @Test func pickedChannelsAndColumnOptions() throws {
        let text = "t,class,a,b,c,who\n0,x,1,2,3,u1\n1,x,4,5,6,u1\n"
        let rs = try parse(text, DatasetLoadOptions(channels: ["c", "a"]))
        #expect(rs[0].series.channelNames == ["c", "a"])
        #expect(rs[0].series.values == [3, 1, 6, 4])
        let rs2 = try parse("t,kind,a\n0,x,1\n", DatasetLoadOptions(labelColumn: "kind"))
        #expect(rs2[0].labels == ["x"])
        #expect(rs2[0].series.channelNames == ["t", "a"])
        #expect(error("t,kind,a\n0,x,1\n", DatasetLoadOptions(labelColumn: "nope"))?.message.contains("nope") == true)
        #expect(error("t,a\n0,1\n")?.message.contains("label column") == true)
        #expect(error(text, DatasetLoadOptions(channels: ["zz"]))?.line == 1)
    }

    @Test func userColumnQuotesCRLFAndSpaces() throws {
        let text = "session,label,user,x\r\n\"s,1\", \"say \"\"hi\"\"\" ,anna, 1.5 \r\ns2,walk,bob,2\r\n"
        let rs = try parse(text)
        #expect(rs.count == 2)
        #expect(rs[0].session == "s,1")
        #expect(rs[0].labels == ["say \"hi\""])
        #expect(rs[0].user == "anna" && rs[1].user == "bob")
        #expect(rs[0].series.values == [1.5] && rs[1].series.values == [2])
        #expect(rs[0].series.channelNames == ["x"])
        // Without a session column the file is one recording whose user is the first row's.
        let single = try parse("label,user,x\nw,anna,1\nw,bob,2\n")
        #expect(single.count == 1 && single[0].user == "anna" && single[0].session == "t")
    }

    @Test func folderUsersFromFileNames() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("csvfolder-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "label,x\nwave,1\nwave,2\n".write(toFile: dir + "/anna-01.csv", atomically: true, encoding: .utf8)
        try "label,x\nwalk,3\n".write(toFile: dir + "/bob-morning-2.csv", atomically: true, encoding: .utf8)
        let d = try Dataset.load(dir)
        #expect(d.recordings.map(\.user) == ["anna", "bob"])
        #expect(d.recordings.map(\.session) == ["anna-01", "bob-morning-2"])
        #expect(d.users == ["anna", "bob"])
        #expect(d.examples.map(\.label) == ["wave", "walk"])
    }

    @Test func errorsNameLineAndField() {
        let bad: [(String, Int, String?, String)] = [
            ("label,x,y\nw,1,2\nw,1\n", 3, nil, "expected 3 columns, found 2"),
            ("label,x,y\nw,1,2\nw,1,2,3\n", 3, nil, "expected 3 columns, found 4"),
            ("label,x,y\nw,1,2\nw,abc,2\n", 3, "x", "expected a number"),
            ("label,x,y\nw,1,2\nw,1,nan\n", 3, "y", "not a finite number"),
            ("label,x,y\nw,1,2\n\nw,inf,2\n", 4, "x", "not a finite number"),
            ("label,x,y\nw,1,2\nw,,2\n", 3, "x", "empty value"),
            ("label,x\n", 1, nil, "no data rows"),
        ]
        for (text, line, field, message) in bad {
            let e = error(text)
            #expect(e?.line == line, "\(text)")
            #expect(e?.field == field, "\(text)")
            #expect(e?.message.contains(message) == true, "\(String(describing: e)) for \(text)")
            #expect(e?.file == "t.csv")
        }
        #expect(error("")?.message.contains("empty file") == true)
        let junk = error("label,x\nw,1\nw,\u{0}\u{1}\u{2}\n")
        #expect(junk?.message.contains("binary") == true && junk?.line == 3)
    }

    @Test func perExampleDatasetRoundTripsThroughCSV() throws {
        var rng = SeededGenerator(seed: 5)
        var examples: [Example] = []
        for i in 0..<30 {
            let len = 1 + Int(rng.next() % 20)
            let values = (0..<(len * 3)).map { _ in Float(bitPattern: UInt32(rng.next() % 0x7F00_0000)) * (rng.next() % 2 == 0 ? 1 : -1) }
            examples.append(Example(series: TimeSeries(values: values, channelCount: 3, channelNames: ["a", "b", "c"]),
                                    label: ["up", "down", "left,right"][i % 3]))
        }
        // Adjacent examples with the same label must stay apart: each is its own session.
        examples[4].label = examples[3].label
        let d = Dataset(examples: examples)
        let back = try CSVFormat.parseRecordings(CSVFormat.encode(d), name: "rt.csv")
        let reread = Dataset(recordings: back)
        #expect(reread.examples.count == examples.count)
        for (a, b) in zip(reread.examples, examples) {
            #expect(a.label == b.label)
            #expect(a.series.values.map(\.bitPattern) == b.series.values.map(\.bitPattern))
            #expect(a.series.channelNames == ["a", "b", "c"])
        }
    }

    @Test func recordingsRoundTripThroughCSVWithNullLabels() throws {
        let r1 = Recording(series: TimeSeries(values: [1, 2, 3, 4, 5, 6], channelCount: 2), labels: [nil, "a", "b"], session: "s1", user: "u")
        let r2 = Recording(series: TimeSeries(values: [7, 8], channelCount: 2), labels: [nil], session: "s2", user: "v")
        let d = Dataset(recordings: [r1, r2])
        let path = try tempFile("", "rec.csv")
        try d.write(to: path)
        let back = try Dataset.load(path)
        #expect(back.recordings == [r1, r2])
    }
}

func tempFile(_ text: String, _ name: String) throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gk-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let path = dir.appendingPathComponent(name).path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}
