import Foundation
import FuzzSupport
@testable import GestureKit

/// UDP text datagrams: the input is split at 0x1E into up to 16 datagrams, sent on loopback to a
/// FrameReader bound to 127.0.0.1:0 and read until it is idle.
nonisolated(unsafe) let reader = try! FrameReader(.udp(host: "127.0.0.1", port: 0))
nonisolated(unsafe) let sender = try! UDPSocket()
let target = try! ipv4Address(host: "127.0.0.1", port: reader.port!)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let parts = splitParts(Array(UnsafeBufferPointer(start: data, count: size)), max: 16)
    for p in parts { p.withUnsafeBytes { try? sender.send($0, to: target) } }
    do {
        var n = 0
        while let e = try reader.next(timeout: 0), e != .idle {
            n += 1
            if case let .frame(f) = e, f.count != reader.channelNames.count { fatalError("frame width \(f.count)") }
            if n > 100_000 { fatalError("reader does not go idle") }
        }
    } catch { expectGestureKitError(error) }
    return 0
}

@_cdecl("FuzzUDP_main")
public func harnessMain(_ argc: Int32, _ argv: CArgv) -> Int32 { runFuzzer(argc, argv, fuzz) }
