import Foundation
import FuzzSupport
@testable import GestureKit

/// A HAPT RawData folder: the input is split at 0x1E into labels.txt, acc, gyro and
/// activity_labels.txt, written to a scratch folder and read whole.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let parts = splitParts(Array(UnsafeBufferPointer(start: data, count: size)), max: 4)
    let raw = (scratchDir as NSString).appendingPathComponent("RawData")
    try? FileManager.default.createDirectory(atPath: raw, withIntermediateDirectories: true)
    let names = ["RawData/labels.txt", "RawData/acc_exp01_user01.txt", "RawData/gyro_exp01_user01.txt", "activity_labels.txt"]
    for (i, n) in names.enumerated() {
        let p = (scratchDir as NSString).appendingPathComponent(n)
        if i < parts.count { _ = writeScratch(n, parts[i]) } else { try? FileManager.default.removeItem(atPath: p) }
    }
    do { _ = try HAPTFormat.read(raw) } catch { expectGestureKitError(error) }
    return 0
}

@_cdecl("FuzzHAPT_main")
public func harnessMain(_ argc: Int32, _ argv: CArgv) -> Int32 { runFuzzer(argc, argv, fuzz) }
