import Foundation
import FuzzSupport
@testable import GestureKit

/// Pipeline files. The raw input goes to Pipeline.decode as is; it is also wrapped as the
/// "pipeline" member of a file with a correct checksum, so mutations reach the stage decoders
/// instead of stopping at the checksum. Property: a pipeline that loads re-saves to bytes that
/// load and re-save to the same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let raw = Data(UnsafeBufferPointer(start: data, count: size))
    do { _ = try Pipeline.decode(raw, file: "p.gesture") } catch { expectGestureKitError(error, file: "p.gesture") }
    var file = Data("{\"format\":\"\(Pipeline.fileFormat)\",\"version\":\(Pipeline.fileVersion),\"checksum\":\"\(Pipeline.checksum(raw))\",\"pipeline\":".utf8)
    file.append(raw)
    file.append(Data("}\n".utf8))
    let pipeline: Pipeline
    do { pipeline = try Pipeline.decode(file, file: "w.gesture") } catch {
        expectGestureKitError(error, file: "w.gesture")
        return 0
    }
    let path = (scratchDir as NSString).appendingPathComponent("p.gesture")
    do {
        try pipeline.save(to: path)
        let first = try Data(contentsOf: URL(fileURLWithPath: path))
        try Pipeline.load(path).save(to: path)
        let second = try Data(contentsOf: URL(fileURLWithPath: path))
        guard first == second else { fatalError("re-saving a loaded pipeline changed its bytes") }
    } catch { fatalError("a pipeline that loaded does not save and reload: \(error)") }
    return 0
}

@_cdecl("FuzzPipelineFile_main")
public func harnessMain(_ argc: Int32, _ argv: CArgv) -> Int32 { runFuzzer(argc, argv, fuzz) }
