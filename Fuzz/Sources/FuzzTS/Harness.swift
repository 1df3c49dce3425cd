import Foundation
import FuzzSupport
@testable import GestureKit

/// sktime .ts files. Property: a dataset that reads and encodes reads back the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let dataset: Dataset
    do { dataset = try TSFormat.parse(bytes, name: "f.ts") } catch {
        expectGestureKitError(error, file: "f.ts")
        return 0
    }
    guard let encoded = try? TSFormat.encode(dataset) else { return 0 }
    let again: Dataset
    do { again = try TSFormat.parse(encoded, name: "g.ts") } catch { fatalError("encoded .ts does not read back: \(error)") }
    guard again.examples.count == dataset.examples.count,
          zip(again.examples, dataset.examples).allSatisfy({ sameValues($0.series.values, $1.series.values) && $0.label == $1.label })
    else { fatalError(".ts round trip changed the examples") }
    return 0
}

@_cdecl("FuzzTS_main")
public func harnessMain(_ argc: Int32, _ argv: CArgv) -> Int32 { runFuzzer(argc, argv, fuzz) }
