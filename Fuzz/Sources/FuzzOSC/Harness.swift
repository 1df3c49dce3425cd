import Foundation
import FuzzSupport
@testable import GestureKit

/// OSC packets: the value decoder (property: a decoded packet re-encodes and decodes equal) and
/// the allocation-free walker the live reader uses.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let p = try? OSCPacket(decoding: bytes) {
        guard let q = try? OSCPacket(decoding: p.encoded()) else { fatalError("re-encoded packet does not decode") }
        if q != p, !"\(p)".contains("nan") { fatalError("re-encoded packet differs: \(p) vs \(q)") }
    }
    var sum = 0.0
    do {
        try OSCWire.forEachMessage(UnsafeRawBufferPointer(start: data, count: size)) { (view) throws(OSCDecodeError) in
            _ = OSCAddressPattern.matches("/wek/*", String(decoding: view.address, as: UTF8.self))
            var it = view.arguments
            while let item = try it.next() { sum += item.number ?? 0 }
        }
    } catch {}
    return sum.isNaN ? 0 : 0
}

@_cdecl("FuzzOSC_main")
public func harnessMain(_ argc: Int32, _ argv: CArgv) -> Int32 { runFuzzer(argc, argv, fuzz) }
