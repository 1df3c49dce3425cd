import Foundation
import FuzzSupport
@testable import GestureKit

/// The live text-line reader (stdin, files): the input is fed through a pipe to a FrameReader,
/// read to the end; every frame has the reader's channel count.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { fatalError("pipe: \(errno)") }
    // A pipe holds 64 KiB; libFuzzer's inputs are smaller (-max_len in run.sh).
    var off = 0
    while off < size { let n = write(fds[1], data + off, size - off); if n <= 0 { break }; off += n }
    close(fds[1])
    defer { close(fds[0]) }
    do {
        let reader = try FrameReader(fileDescriptor: fds[0], name: "stdin")
        var frames = 0, malformed = 0
        while let e = try reader.next(timeout: 0) {
            switch e {
            case let .frame(f):
                frames += 1
                if f.count != reader.channelNames.count { fatalError("frame of \(f.count) values, \(reader.channelNames.count) channels") }
            case .malformed: malformed += 1
            case .idle: break
            }
        }
        if frames != reader.framesRead || malformed != reader.malformedCount { fatalError("counts disagree") }
    } catch { expectGestureKitError(error, file: "stdin") }
    return 0
}

@_cdecl("FuzzLine_main")
public func harnessMain(_ argc: Int32, _ argv: CArgv) -> Int32 { runFuzzer(argc, argv, fuzz) }
