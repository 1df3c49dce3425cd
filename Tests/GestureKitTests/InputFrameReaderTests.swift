import Foundation
import Testing
@testable import GestureKit

/// Collects events until the input ends or `limit` events, each wait bounded.
func drain(_ r: FrameSource, limit: Int = 1000, timeout: Double = 2) throws -> [FrameEvent] {
    var out: [FrameEvent] = []
    while out.count < limit, let e = try r.next(timeout: timeout) {
        if e == .idle { break }
        out.append(e)
    }
    return out
}

func frames(_ events: [FrameEvent]) -> [[Float]] {
    events.compactMap { if case let .frame(f) = $0 { return f } else { return nil } }
}

func temporaryDirectory() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gk-input-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

@Suite struct InputFrameReaderTests {
    @Test func fileWithHeaderMalformedLinesAndNoFinalNewline() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("in.csv").path
        let text = "t,ay,ax\n0,2,1\n\n0.1,oops,3\n0.2,4\n0.3,6,5"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let r = try FrameReader(.file(path), channelNames: ["ax", "ay"])
        let events = try drain(r)
        #expect(frames(events) == [[1, 2], [5, 6]])
        let bad = events.compactMap { if case let .malformed(m) = $0 { return m } else { return nil } }
        #expect(bad.map(\.line) == [4, 5])
        #expect(bad[0].source == path)
        #expect(bad[1].reason == "expected 3 values, found 2")
        #expect(r.framesRead == 2)
        #expect(r.malformedCount == 2)
        #expect(r.lastMalformed == bad[1])
        #expect(try r.next(timeout: 0) == nil)
    }

    @Test func missingColumnThrowsWithFileAndLine() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("in.csv").path
        try "# comment\nax,ay\n1,2\n".write(toFile: path, atomically: true, encoding: .utf8)
        let r = try FrameReader(.file(path), channelNames: ["ax", "az"])
        let e = #expect(throws: GestureKitError.self) { try r.next(timeout: 1) }
        #expect(e?.file == path)
        #expect(e?.line == 2)
    }

    @Test func unreadableFileThrows() {
        #expect(throws: GestureKitError.self) { try FrameReader(.file("/nonexistent/gk/in.csv")) }
    }

    @Test func longLinesAcrossBufferRefillsAndOverlongLineSkipped() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("big.txt").path
        // 3000 lines of 40 values: ~300 KB, so lines straddle many 64 KB reads.
        var text = ""
        for i in 0..<3000 { text += (0..<40).map { "\(i + $0)" }.joined(separator: " ") + "\n" }
        // One line over 1 MiB: reported as malformed, then reading continues.
        text += String(repeating: "1 ", count: 600_000) + "\n"
        text += (0..<40).map { "\($0)" }.joined(separator: " ") + "\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let r = try FrameReader(.file(path))
        var count = 0, malformed = 0
        var last: [Float] = []
        while let e = try r.next(timeout: 5) {
            switch e {
            case let .frame(f):
                if count < 3000 { #expect(f[0] == Float(count) && f[39] == Float(count + 39)) }
                count += 1
                last = f
            case .malformed: malformed += 1
            case .idle: Issue.record("file read timed out"); return
            }
        }
        #expect(count == 3001)
        #expect(malformed == 1)
        #expect(last == (0..<40).map { Float($0) })
    }

    @Test func pipeTimeoutsThenDataThenEnd() throws {
        let pipe = Pipe()
        let r = try FrameReader(fileDescriptor: pipe.fileHandleForReading.fileDescriptor, name: "pipe", channelNames: ["a", "b"])
        #expect(try r.next(timeout: 0) == .idle)
        #expect(try r.next(timeout: 0.02) == .idle)
        // A partial line is held until its newline arrives.
        pipe.fileHandleForWriting.write(Data("1 2\n3 ".utf8))
        #expect(try r.next(timeout: 1) == .frame([1, 2]))
        #expect(try r.next(timeout: 0.02) == .idle)
        pipe.fileHandleForWriting.write(Data("4\n".utf8))
        #expect(try r.next(timeout: 1) == .frame([3, 4]))
        try pipe.fileHandleForWriting.close()
        #expect(try r.next(timeout: 1) == nil)
    }

    @Test func ratePacingFollowsTheSampleClock() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("paced.txt").path
        try (0..<11).map { "\($0)" }.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let r = try FrameReader(.file(path), channelNames: ["v"], rate: 100)
        var stamps: [UInt64] = []
        var values: [Float] = []
        let t0 = monotonicNanos()
        while let e = try r.next(timeout: 1) {
            if case let .frame(f) = e { stamps.append(monotonicNanos()); values.append(f[0]) }
        }
        #expect(values == (0..<11).map { Float($0) })
        // Frame k is never delivered before start + k / rate (10 ms steps); the clock starts at
        // the first frame, which is after t0.
        for k in 1..<stamps.count {
            #expect(stamps[k] - t0 >= UInt64(k) * 10_000_000)
        }
    }

    @Test func paceLongerThanTimeoutReturnsIdleAndKeepsTheFrame() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("slow.txt").path
        try "1\n2\n".write(toFile: path, atomically: true, encoding: .utf8)
        let r = try FrameReader(.file(path), channelNames: ["v"], rate: 5)  // 200 ms apart
        #expect(try r.next(timeout: 0) == .frame([1]))
        #expect(try r.next(timeout: 0.01) == .idle)
        var second: FrameEvent?
        for _ in 0..<100 {
            let e = try r.next(timeout: 0.05)
            if e != .idle { second = e; break }
        }
        #expect(second == .frame([2]))
        #expect(try r.next(timeout: 1) == nil)
    }

    @Test func udpDatagramsCarryOneOrMoreLines() throws {
        let r = try FrameReader(.udp(host: "127.0.0.1", port: 0), channelNames: ["x", "y"])
        let port = try #require(r.port)
        #expect(port > 0)
        let tx = try UDPSocket()
        let to = try ipv4Address(host: "127.0.0.1", port: port)
        for datagram in ["x,y\n1,2\n3,4", "5 6\n", "7,bad", "x,y\n9,10\r\n"] {
            try Array(datagram.utf8).withUnsafeBytes { try tx.send($0, to: to) }
        }
        var events: [FrameEvent] = []
        for _ in 0..<20 {
            let e = try #require(try r.next(timeout: 2))
            if e == .idle { break }
            events.append(e)
            if events.count == 5 { break }
        }
        #expect(frames(events) == [[1, 2], [3, 4], [5, 6], [9, 10]])
        #expect(r.malformedCount == 1)
        #expect(r.lastMalformed?.reason.contains("\"bad\"") == true)
        #expect(try r.next(timeout: 0.02) == .idle)
        r.close()
        #expect(try r.next(timeout: 0) == nil)
    }

    /// `cat a.csv b.csv` where b.csv starts with a byte order mark: the BOM line is a header
    /// repeat or a row like any other, and every good frame arrives.
    @Test func byteOrderMarkMidStreamLosesNoFrame() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let text = "\u{FEFF}t,x,y\n0,1,2\n\u{FEFF}t,x,y\n1,3,4\n\u{FEFF}2,5,6\n\u{FEFF}\n3,7,8\n"
        let bytes = Array(text.utf8)
        #expect(write(fds[1], bytes, bytes.count) == bytes.count)
        close(fds[1])
        defer { close(fds[0]) }
        let r = try FrameReader(fileDescriptor: fds[0], name: "stdin", channelNames: ["x", "y"])
        let events = try drain(r)
        #expect(frames(events) == [[1, 2], [3, 4], [5, 6], [7, 8]])
        #expect(r.malformedCount == 0)
    }

    /// Datagrams the kernel dropped while nobody read (Linux SO_RXQ_OVFL): the count arrives with
    /// the next datagram, and every datagram sent is either a frame or a drop.
    @Test func udpKernelDropsAreCounted() throws {
        let r = try FrameReader(.udp(host: "127.0.0.1", port: 0), channelNames: ["x"])
        #if os(Linux)
        #expect(r.kernelDrops == 0)
        let tx = try UDPSocket()
        let to = try ipv4Address(host: "127.0.0.1", port: try #require(r.port))
        // Far more than the default receive buffer holds (each datagram costs ~1 KiB of it).
        let burst = 5000
        for i in 0..<burst { try Array("\(i)".utf8).withUnsafeBytes { try tx.send($0, to: to) } }
        let queued = try drain(r, limit: burst, timeout: 0.2).count
        #expect(queued < burst)
        try Array("-1".utf8).withUnsafeBytes { try tx.send($0, to: to) }
        #expect(try r.next(timeout: 2) == .frame([-1]))
        #expect(r.kernelDrops == burst - queued)
        #expect(r.framesRead + (r.kernelDrops ?? 0) == burst + 1)
        r.close()
        #expect(r.kernelDrops == burst - queued)
        #else
        // Darwin has no per-socket drop counter.
        #expect(r.kernelDrops == nil)
        #endif
    }
}

/// The select() wait Darwin uses for terminals, exercised here on a pipe (poll() and select()
/// agree on pipes everywhere).
@Suite struct SelectWaitTests {
    @Test func answersLikePoll() throws {
        let pipe = Pipe()
        let fd = pipe.fileHandleForReading.fileDescriptor
        #expect(selectReadable(fd, timeoutMs: 10) == 0)  // nothing written: timeout
        pipe.fileHandleForWriting.write(Data("1 2\n".utf8))
        #expect((selectReadable(fd, timeoutMs: 1000) ?? 0) > 0)
        #expect((selectReadable(fd, timeoutMs: -1) ?? 0) > 0)  // no timeout, already readable
        #expect(selectReadable(-1, timeoutMs: 0) == nil)
        #expect(selectReadable(Int32(MemoryLayout<fd_set>.size * 8), timeoutMs: 0) == nil)
    }
}
