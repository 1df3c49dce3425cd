import Foundation
import GestureKit
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `gesture record` end to end through the built binary.
@Suite struct RecordTests {
    func scratchDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gk-record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    func read(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }

    @Test func stdinThenAppendSecondSession() throws {
        let dir = try scratchDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("u07-wave.csv")

        // Header maps input columns by name (t ignored); one malformed line is skipped.
        let first = "t,ay,ax\n0,2,1.5\n0.02,oops,3\n0.04,-4,0.25\n"
        let r1 = try CLI.run(["record", "--label", "wave", "--session", "s1", "--user", "u07", "--channels", "ax,ay",
                              "-o", out.path], stdin: Data(first.utf8))
        #expect(r1.status == 0, "\(r1.stderr)")
        #expect(r1.stderr.contains("stdin:3:"))
        #expect(r1.stdout.contains("recorded 2 frames"))
        #expect(r1.stdout.contains("1 malformed"))
        #expect(try read(out) == "session,label,ax,ay\ns1,wave,1.5,2.0\ns1,wave,0.25,-4.0\n")

        // Second session: no --channels, so the file's columns are used; whitespace input
        // without a header takes the first two fields in order.
        let r2 = try CLI.run(["record", "--label", "rest", "--session", "s2", "-o", out.path, "--json"],
                             stdin: Data("7 8\n9 10\n".utf8))
        #expect(r2.status == 0, "\(r2.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(r2.stdout.utf8)) as? [String: Any]
        #expect(summary?["frames"] as? Int == 2)
        #expect(summary?["malformed"] as? Int == 0)
        #expect(summary?["headerWritten"] as? Bool == false)
        #expect(try read(out) == "session,label,ax,ay\ns1,wave,1.5,2.0\ns1,wave,0.25,-4.0\ns2,rest,7.0,8.0\ns2,rest,9.0,10.0\n")
    }

    @Test func refusesMismatchedOrForeignFilesWithoutTouchingThem() throws {
        let dir = try scratchDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rec = dir.appendingPathComponent("rec.csv")
        let original = "session,label,ax,ay\ns1,wave,1.0,2.0\n"
        try original.write(to: rec, atomically: true, encoding: .utf8)
        let r1 = try CLI.run(["record", "--label", "x", "--channels", "ay,ax", "-o", rec.path], stdin: Data("1,2\n".utf8))
        #expect(r1.status != 0)
        #expect(r1.stderr.contains("error:"))
        #expect(try read(rec) == original)

        let foreign = dir.appendingPathComponent("other.csv")
        let text = "time,ax,ay\n0,1,2\n"
        try text.write(to: foreign, atomically: true, encoding: .utf8)
        let r2 = try CLI.run(["record", "--label", "x", "-o", foreign.path], stdin: Data("1,2\n".utf8))
        #expect(r2.status != 0)
        #expect(r2.stderr.contains("session,label"))
        #expect(try read(foreign) == text)

        // A header the input cannot provide is an error, and rows already saved stay.
        let r3 = try CLI.run(["record", "--label", "x", "-o", rec.path], stdin: Data("ax,az\n1,2\n".utf8))
        #expect(r3.status != 0)
        #expect(r3.stderr.contains("\"ay\""))
        #expect(try read(rec) == original)
    }

    @Test func missingFinalNewlineIsCompletedNotJoined() throws {
        let dir = try scratchDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rec = dir.appendingPathComponent("rec.csv")
        try "session,label,a\ns1,x,1.0".write(to: rec, atomically: true, encoding: .utf8)
        let r = try CLI.run(["record", "--label", "y", "--session", "s2", "-o", rec.path], stdin: Data("2\n".utf8))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try read(rec) == "session,label,a\ns1,x,1.0\ns2,y,2.0\n")
    }

    @Test func inferredChannelsAndValidation() throws {
        let dir = try scratchDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rec = dir.appendingPathComponent("rec.csv")
        let r = try CLI.run(["record", "--label", "tilt", "--session", "a", "-o", rec.path, "--frames", "2"],
                            stdin: Data("0.5 1e-3 -2\n1 2 3\n4 5 6\n".utf8))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try read(rec) == "session,label,ch0,ch1,ch2\na,tilt,0.5,0.001,-2.0\na,tilt,1.0,2.0,3.0\n")
        #expect(try CLI.run(["record", "--label", "a,b", "-o", rec.path]).status != 0)
        #expect(try CLI.run(["record", "--label", "a", "--user", "u1", "-o", rec.path]).status != 0)
        #expect(try CLI.run(["record", "--label", "a", "--channels", "x,x", "-o", rec.path]).status != 0)
        #expect(try read(rec) == "session,label,ch0,ch1,ch2\na,tilt,0.5,0.001,-2.0\na,tilt,1.0,2.0,3.0\n")
    }

    /// SIGKILL while lines are streaming in: every row on disk is whole and they are exactly the
    /// first rows sent, in order.
    @Test func killMidStreamLeavesOnlyWholeRows() throws {
        let dir = try scratchDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rec = dir.appendingPathComponent("rec.csv")
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["record", "--label", "kill", "--session", "k", "--channels", "a,b,c", "-o", rec.path]
        let input = Pipe()
        p.standardInput = input
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }

        func row(_ i: Int) -> String { "\(i).25,\(-i),\(i * 1000).5" }
        // Send rows until at least 30 are on disk (bounded: 400 rows, ~8 s), then kill.
        var sent = 0
        var onDisk = 0
        while sent < 400 {
            input.fileHandleForWriting.write(Data((row(sent) + "\n").utf8))
            sent += 1
            usleep(20_000)
            onDisk = ((try? read(rec)) ?? "").split(separator: "\n").count - 1
            if onDisk >= 30 { break }
        }
        // Half a row in flight when the kill lands.
        input.fileHandleForWriting.write(Data("9999.5,1".utf8))
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        #expect(p.terminationReason == .uncaughtSignal)
        #expect(onDisk >= 30)

        let text = try read(rec)
        #expect(text.hasSuffix("\n"))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.first == "session,label,a,b,c")
        let rows = Array(lines.dropFirst())
        #expect(rows.count >= 30 && rows.count <= sent)
        for (i, r) in rows.enumerated() {
            let f = r.split(separator: ",").map(String.init)
            let expected = row(i).split(separator: ",").map { "\(Float(String($0))!)" }
            #expect(f == ["k", "kill"] + expected, "row \(i): \(r)")
        }
    }

    /// Ctrl-C (SIGINT) ends the recording cleanly with its summary, input still open.
    @Test func interruptStopsWithSummary() throws {
        let dir = try scratchDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rec = dir.appendingPathComponent("rec.csv")
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["record", "--label", "int", "--session", "i", "-o", rec.path, "--json"]
        let input = Pipe(), out = Pipe()
        p.standardInput = input
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        input.fileHandleForWriting.write(Data("1 2\n3 4\n5 6\n".utf8))
        for _ in 0..<500 {   // up to 10 s
            if ((try? read(rec)) ?? "").split(separator: "\n").count == 4 { break }
            usleep(20_000)
        }
        kill(p.processIdentifier, SIGINT)
        let summary = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationReason == .exit && p.terminationStatus == 0)
        let json = try JSONSerialization.jsonObject(with: summary) as? [String: Any]
        #expect(json?["frames"] as? Int == 3)
        #expect(try read(rec) == "session,label,ch0,ch1\ni,int,1.0,2.0\ni,int,3.0,4.0\ni,int,5.0,6.0\n")
    }

    /// OSC into `record` on 127.0.0.1: messages are sent until the recorder has its 3 frames.
    @Test func recordsFromOSC() throws {
        let dir = try scratchDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rec = dir.appendingPathComponent("osc.csv")
        // Pick a free port by binding port 0 with a reader and releasing it.
        let probe = try FrameReader(.osc(port: 0))
        let port = try #require(probe.port)
        probe.close()

        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["record", "--label", "osc", "--session", "o", "--input", "osc:\(port)", "--channels", "x,y",
                       "--frames", "3", "--seconds", "20", "-o", rec.path, "--json"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }

        let tx = try OSCSender(port: port, address: "/wek/inputs")
        var i = 0
        while p.isRunning && i < 400 {
            try tx.send([.float32(Float(i)), .int32(Int32(-i))])
            i += 1
            usleep(25_000)
        }
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let rows = try read(rec).split(separator: "\n").map(String.init)
        #expect(rows.first == "session,label,x,y")
        #expect(rows.count == 4)
        // Datagrams sent before the recorder was listening are lost, so rows are consecutive
        // sends starting anywhere.
        if rows.count == 4, let first = Float(rows[1].split(separator: ",")[2]) {
            let k = Int(first)
            #expect(Array(rows.dropFirst()) == (k..<(k + 3)).map { "o,osc,\(Float($0)),\(Float(-$0))" })
        }
        let summary = out.fileHandleForReading.readDataToEndOfFile()
        #expect(String(decoding: summary, as: UTF8.self).contains("\"frames\":3"))
    }
}
