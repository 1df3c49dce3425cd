import Foundation
import FuzzSupport
@testable import GestureKit

/// Pipeline spec JSON (what --spec reads): decode, then the pre-training checks.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let raw = Data(UnsafeBufferPointer(start: data, count: size))
    do {
        let spec = try decodeJSON(PipelineSpec.self, from: raw, file: "s.json")
        try spec.check()
    } catch { expectGestureKitError(error) }
    return 0
}

@_cdecl("FuzzSpec_main")
public func harnessMain(_ argc: Int32, _ argv: CArgv) -> Int32 { runFuzzer(argc, argv, fuzz) }
