import ArgumentParser
import Foundation
import GestureCLISupport
import GestureKit

/// `gesture export P.gesture --c DIR`: the pipeline as dependency-free C99 for a microcontroller.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a trained pipeline as dependency-free C99 (no heap, no globals) for a microcontroller.",
        discussion: """
            Writes DIR/NAME.h and DIR/NAME.c (the recogniser: NAME_init, NAME_push, NAME_reset on a
            caller-owned NAME_state) and DIR/stream_main.c, a host program that reads CSV frames on stdin
            and prints each detection as `gesture stream P --json` does:
              cc -std=c99 -O2 DIR/NAME.c DIR/stream_main.c -lm -o stream && ./stream < frames.csv
            Prints the bytes of the weights (flash) and of one state (RAM); --weights f16 or int8 stores
            kNN's examples, centroids, DTW's templates and ridge's and the LSTM's weights as half floats
            or as signed bytes with a float scale per feature, template channel or matrix row (the
            arithmetic stays float32), and prints the flash float32 would take and what stays float32.
            A pipeline with a stage that has no C form yet is refused with the stage named, and nothing is written.
            """)

    @Argument(help: "A trained pipeline (.gesture).")
    var pipeline: String

    @Option(name: .customLong("c"), help: "The folder to write the C files into (made if missing).")
    var directory: String

    @Option(help: "Prefix of the C names and files (default: the pipeline's file name).")
    var name: String?

    @Option(help: ArgumentHelp("How the large learned arrays are stored: f32 (decides exactly as the pipeline), f16 (half the flash for them) or int8 (a quarter, plus a scale per feature, template channel or matrix row); with f16 and int8 decisions near a boundary may differ.", valueName: "f32|f16|int8"))
    var weights: String = "f32"

    /// `--weights` as the library names it (`nil` for a value `validate()` refuses).
    private var storage: CExport.Weights? { CExport.Weights(rawValue: weights) }

    @Flag(help: "Print one JSON object: files, flashBytes, ramBytes, float32FlashBytes, keptFloat32.")
    var json = false

    func validate() throws {
        guard storage != nil else {
            throw ValidationError("--weights must be f32, f16 or int8, got \"\(weights)\"")
        }
        if let name, !CExport.isValidPrefix(name) {
            throw ValidationError("--name must be a C name (a letter, then letters, digits or _), got \"\(name)\"")
        }
    }

    struct Report: Encodable {
        var files: [String]
        var flashBytes: Int
        var ramBytes: Int
        var float32FlashBytes: Int
        var keptFloat32: [String]
    }

    func run() throws {
        try reportingErrors {
            let p = try Pipeline.load(pipeline)
            let prefix = name ?? CExport.prefix(forFile: pipeline)
            let written: CExport.Written
            do {
                written = try p.exportC(to: URL(fileURLWithPath: directory), prefix: prefix, weights: storage!)
            } catch let e as GestureKitError where e.file == nil {
                throw e.inFile(pipeline)
            }
            if json {
                try printJSON(Report(files: written.files.map(\.path), flashBytes: written.flashBytes, ramBytes: written.ramBytes,
                                     float32FlashBytes: written.float32FlashBytes, keptFloat32: written.keptFloat32))
            } else {
                for f in written.files { print("wrote \(f.path)") }
                let smaller = written.flashBytes == written.float32FlashBytes ? "" : "; \(written.float32FlashBytes) as f32"
                print("flash \(written.flashBytes) bytes (weights\(smaller)), RAM \(written.ramBytes) bytes (one \(prefix)_state)")
                for kept in written.keptFloat32 { print("kept float32: \(kept)") }
            }
        }
    }
}
