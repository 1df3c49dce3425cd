import Foundation
import FuzzSupport
@testable import GestureKit

/// CSV recordings. Property: what reads writes back and reads to the same values and labels.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let recordings: [Recording]
    do { recordings = try CSVFormat.parseRecordings(bytes, name: "f.csv") } catch {
        expectGestureKitError(error, file: "f.csv")
        return 0
    }
    guard !recordings.isEmpty else { return 0 }
    let dataset = Dataset(recordings: recordings)
    let again: [Recording]
    do { again = try CSVFormat.parseRecordings(CSVFormat.encode(dataset), name: "g.csv") } catch {
        fatalError("written CSV does not read back: \(error)")
    }
    guard again.count == recordings.count else { fatalError("\(recordings.count) recordings, \(again.count) after a round trip") }
    for (a, b) in zip(recordings, again) {
        guard sameValues(a.series.values, b.series.values), a.labels == b.labels,
              a.series.channelNames == b.series.channelNames else {
            fatalError("round trip changed a recording: \(a) vs \(b)")
        }
    }
    return 0
}

@_cdecl("FuzzCSV_main")
public func harnessMain(_ argc: Int32, _ argv: CArgv) -> Int32 { runFuzzer(argc, argv, fuzz) }
