import Testing
@testable import GestureKit

/// OSC over real UDP sockets on 127.0.0.1; every wait is bounded.
@Suite struct OSCNetworkTests {
    @Test func readerTurnsMessagesAndBundlesIntoFrames() throws {
        let r = try FrameReader(.osc(host: "127.0.0.1", port: 0, address: "/wek/inputs"), channelNames: ["a", "b", "c"])
        let port = try #require(r.port)
        let tx = try OSCSender(host: "127.0.0.1", port: port, address: "/wek/inputs")
        try tx.send([.float32(1), .int32(2), .double(3.5)])
        try tx.send(OSCMessage("/other", [.float32(9), .float32(9), .float32(9)]))       // ignored
        try tx.send(OSCMessage("/wek/inputs", [.float32(1), .float32(2)]))              // wrong count
        try tx.send(OSCMessage("/wek/inputs", [.float32(1), .string("x"), .float32(2)])) // not a number
        let nested = OSCBundle([
            .message(OSCMessage("/wek/inputs", [.float32(4), .float32(5), .float32(6)])),
            .bundle(OSCBundle(timeTag: 99, [.message(OSCMessage("/wek/inputs", [.int64(7), .float32(8), .float32(9)]))])),
        ])
        try tx.send(.bundle(nested))

        var events: [FrameEvent] = []
        for _ in 0..<10 {
            let e = try #require(try r.next(timeout: 2))
            if e == .idle { break }
            events.append(e)
            if events.count == 5 { break }
        }
        #expect(frames(events) == [[1, 2, 3.5], [4, 5, 6], [7, 8, 9]])
        #expect(r.malformedCount == 2)
        #expect(r.ignoredMessages == 1)
        let bad = events.compactMap { if case let .malformed(m) = $0 { return m } else { return nil } }
        #expect(bad.map(\.line) == [3, 4])  // message numbers, the ignored /other being 2
        #expect(bad.first?.reason.contains("expected 3 values, found 2") == true)
        #expect(bad.last?.reason.contains("type 's'") == true)
        #expect(try r.next(timeout: 0.02) == .idle)
    }

    @Test func garbageDatagramIsMalformedNotFatal() throws {
        let r = try FrameReader(.osc(port: 0), channelNames: ["a"])
        let tx = try UDPSocket()
        let to = try ipv4Address(host: "127.0.0.1", port: try #require(r.port))
        try Array("hello".utf8).withUnsafeBytes { try tx.send($0, to: to) }
        try OSCMessage("/wek/inputs", [.float32(0.5)]).encoded().withUnsafeBytes { try tx.send($0, to: to) }
        guard case let .malformed(m) = try r.next(timeout: 2) else { Issue.record("garbage not reported"); return }
        #expect(m.reason.contains("invalid OSC packet"))
        #expect(try r.next(timeout: 2) == .frame([0.5]))
    }

    @Test func layoutInferredFromFirstMessageAndPatternFilter() throws {
        let r = try FrameReader(.osc(port: 0, address: "/imu/{acc,gyro}"))
        let tx = try OSCSender(port: try #require(r.port), address: "/imu/acc")
        try tx.send([.float32(1), .float32(2)])
        try tx.send(OSCMessage("/imu/gyro", [.float32(3), .float32(4)]))
        try tx.send(OSCMessage("/imu/mag", [.float32(5), .float32(6)]))
        #expect(try r.next(timeout: 2) == .frame([1, 2]))
        #expect(r.channelNames == ["ch0", "ch1"])
        #expect(try r.next(timeout: 2) == .frame([3, 4]))
        #expect(try r.next(timeout: 0.05) == .idle)
        #expect(r.ignoredMessages == 1)
    }

    @Test func senderIsReceivedByATestSocket() throws {
        let rx = try UDPSocket()
        try rx.bind(host: "127.0.0.1", port: 0)
        let tx = try OSCSender(port: rx.localPort)
        #expect(tx.address == "/wek/outputs")
        try tx.send([.string("wave"), .float32(0.75), .int32(3)])
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 8)
        defer { buffer.deallocate() }
        let n = try #require(try rx.receive(into: buffer, until: monotonicNanos() + 2_000_000_000))
        let packet = try OSCPacket(decoding: Array(buffer[0..<n]))
        #expect(packet == .message(OSCMessage("/wek/outputs", [.string("wave"), .float32(0.75), .int32(3)])))
        // The bytes are the same as encoding it by hand.
        #expect(Array(buffer[0..<n]) == OSCMessage("/wek/outputs", [.string("wave"), .float32(0.75), .int32(3)]).encoded())
    }

    @Test func senderRejectsBadAddress() {
        #expect(throws: GestureKitError.self) { try OSCSender(port: 9, address: "wek") }
        #expect(throws: GestureKitError.self) { try OSCSender(port: 70000) }
    }
}
