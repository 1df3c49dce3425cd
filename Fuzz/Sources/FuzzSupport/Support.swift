import Foundation
import GestureKit

/// Splits a fuzz input into parts at the record separator byte (0x1E), for harnesses that need
/// several files or datagrams from one input.
public func splitParts(_ bytes: [UInt8], max: Int) -> [[UInt8]] {
    Array(bytes.split(separator: 0x1E, maxSplits: max - 1, omittingEmptySubsequences: false).map(Array.init))
}

/// A reader may throw only a ``GestureKitError`` that names its input on one line; anything else
/// is a finding, and trapping makes libFuzzer save the input.
public func expectGestureKitError(_ error: Error, file: String? = nil) {
    guard let e = error as? GestureKitError else { fatalError("not a GestureKitError: \(error)") }
    if let file, e.file != file { fatalError("error names \(e.file ?? "no file"), expected \(file): \(e)") }
    if e.description.contains("\n") { fatalError("error spans lines: \(e)") }
}

/// Same values, bit for bit apart from NaN payloads.
public func sameValues(_ a: [Float], _ b: [Float]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0 == $1 || ($0.isNaN && $1.isNaN) }
}

/// A scratch folder for readers that take paths; one per process.
public let scratchDir: String = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let d = (base as NSString).appendingPathComponent("gesturekit-fuzz-\(getpid())")
    try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: scratchDir) }
    return d
}()

public func writeScratch(_ name: String, _ bytes: [UInt8]) -> String {
    let p = (scratchDir as NSString).appendingPathComponent(name)
    _ = FileManager.default.createFile(atPath: p, contents: Data(bytes))
    return p
}

public typealias FuzzTarget = @convention(c) (UnsafePointer<UInt8>, Int) -> Int32
public typealias CArgv = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<CArgv>,
                         _ callback: FuzzTarget) -> Int32

/// SwiftPM links a Linux executable with `main` aliased to `<Module>_main`, which would hide
/// libFuzzer's own main; each harness therefore defines that symbol and hands over to libFuzzer.
public func runFuzzer(_ argc: Int32, _ argv: CArgv, _ target: FuzzTarget) -> Int32 {
    var argc = argc, argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, target)
}
