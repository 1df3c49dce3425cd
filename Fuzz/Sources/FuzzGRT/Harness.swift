import Foundation
import FuzzSupport
@testable import GestureKit

/// GRT files (all three kinds). Property: a dataset that reads and encodes reads back the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let dataset: Dataset
    do { dataset = try GRTFormat.parse(bytes, name: "f.grt") } catch {
        expectGestureKitError(error, file: "f.grt")
        return 0
    }
    guard let encoded = try? GRTFormat.encode(dataset) else { return 0 }
    let again: Dataset
    do { again = try GRTFormat.parse(encoded, name: "g.grt") } catch { fatalError("encoded GRT does not read back: \(error)") }
    guard again.examples.count == dataset.examples.count,
          zip(again.examples, dataset.examples).allSatisfy({ sameValues($0.series.values, $1.series.values) && $0.label == $1.label })
    else { fatalError("GRT round trip changed the examples") }
    return 0
}

@_cdecl("FuzzGRT_main")
public func harnessMain(_ argc: Int32, _ argv: CArgv) -> Int32 { runFuzzer(argc, argv, fuzz) }
