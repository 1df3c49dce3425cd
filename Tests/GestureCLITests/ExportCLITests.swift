import Foundation
import Testing

/// `gesture export --c`: the exported C, compiled and fed the same frames, prints what
/// `gesture stream --json` prints.
@Suite(.serialized) struct ExportCLITests {
    let dir: URL
    let train = CLI.repo.appendingPathComponent("datasets/basicmotions/BasicMotions_TRAIN.ts").path
    let test = CLI.repo.appendingPathComponent("datasets/basicmotions/BasicMotions_TEST.ts").path
    static let cc = ["/usr/bin/cc", "/usr/bin/gcc", "/usr/bin/clang"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let noCompiler: Comment = "needs a C compiler (cc)"

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("gesture-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// Runs `tool` with `arguments`, stdin from `input`; returns status, stdout and stderr.
    static func run(_ tool: String, _ arguments: [String], input: String? = nil) throws -> CLIResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        if let input { p.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input)) }
        try p.run()
        nonisolated(unsafe) var errData = Data()
        let done = DispatchSemaphore(value: 0)
        Thread { errData = err.fileHandleForReading.readDataToEndOfFile(); done.signal() }.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        done.wait()
        return CLIResult(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
    }

    struct Line: Decodable, Equatable {
        var frame: Int
        var time: Double?
        var label: String?
        var confidence: Float
        var start: Int
    }

    static func lines(_ text: String) throws -> [Line] {
        try text.split(separator: "\n").map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
    }

    /// Trains with `arguments`, exports, compiles with `-std=c99 -Wall -Wextra -Werror -pedantic`,
    /// and replays the 40 test series through the C and through `gesture stream`.
    func replay(_ name: String, _ arguments: [String]) throws -> (swift: [Line], c: [Line]) {
        let model = path("\(name).gesture"), out = path("\(name)-c")
        let t = try CLI.run(["train", train] + arguments + ["--sample-rate", "10", "-o", model])
        try #require(t.status == 0, "\(t.stderr)")
        let e = try CLI.run(["export", model, "--c", out])
        try #require(e.status == 0, "\(e.stderr)")
        let prefix = name.replacingOccurrences(of: "-", with: "_")
        #expect(e.stdout.contains("flash") && e.stdout.contains("RAM"))
        let binary = path("\(name)-stream")
        let c = try Self.run(Self.cc!, ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2",
                                        "\(out)/\(prefix).c", "\(out)/stream_main.c", "-lm", "-o", binary])
        try #require(c.status == 0, "\(c.stderr)")
        let frames = path("test.csv")
        if !FileManager.default.fileExists(atPath: frames) {
            try #require(try CLI.run(["convert", test, frames]).status == 0)
        }
        let fromC = try Self.run(binary, [], input: frames)
        #expect(fromC.status == 0, "\(fromC.stderr)")
        let fromSwift = try CLI.run(["stream", model, "--input", frames, "--json"])
        #expect(fromSwift.status == 0, "\(fromSwift.stderr)")
        #expect(fromC.stderr.hasPrefix("4000 frames"), "\(fromC.stderr)")
        return (try Self.lines(fromSwift.stdout), try Self.lines(fromC.stdout))
    }

    @Test(.enabled(if: ExportCLITests.cc != nil, ExportCLITests.noCompiler),
          arguments: [("knn", ["--classifier", "knn"]), ("centroid", ["--classifier", "centroid"]),
                      ("minirocket", ["--classifier", "minirocket"]),
                      ("knn-rest", ["--classifier", "knn", "--rest", "Standing"]),
                      ("live", ["--spec", CLI.repo.appendingPathComponent("pipelines/basicmotions-live.json").path, "--rest", "Standing"]),
                      ("lstm", ["--spec", CLI.repo.appendingPathComponent("pipelines/lstm.json").path]),
                      ("dtw", ["--classifier", "dtw"])])
    func exportedCDecidesAsTheSwiftRecognizer(name: String, arguments: [String]) throws {
        let (swift, c) = try replay(name, arguments)
        // A recogniser that says nothing proves nothing: each of these names 7 to 19 activities in
        // the 40 recordings. (The LSTM's confidences come through BLAS in Swift, hence the tolerance.)
        #expect(swift.count >= 5)
        #expect(c.count == swift.count)
        for (a, b) in zip(swift, c) {
            #expect(a.frame == b.frame && a.label == b.label && a.start == b.start && a.time == b.time, "\(a) vs \(b)")
            #expect(abs(a.confidence - b.confidence) <= 1e-4, "\(a) vs \(b)")
        }
    }

    /// Nothing is written for a pipeline with a stage the generator cannot write; the reason names it.
    @Test func refusesWhatHasNoCFormAndWritesNothing() throws {
        let reason = "classifier (knn): cannot export to C: the cosine metric's sums are reordered by the Swift compiler and cannot be matched"
        let model = path("cosine.gesture"), out = path("refused")
        let spec = path("cosine.json")
        try #"{"features": {"extractors": [{"kind": "timeDomain"}]}, "classifier": {"kind": "knn", "metric": "cosine"}}"#
            .write(toFile: spec, atomically: true, encoding: .utf8)
        let t = try CLI.run(["train", train, "--spec", spec, "-o", model])
        try #require(t.status == 0, "\(t.stderr)")
        let e = try CLI.run(["export", model, "--c", out])
        #expect(e.status == 1)
        #expect(e.stderr.hasPrefix("error: \(model): "), "\(e.stderr)")
        #expect(e.stderr.contains("cannot export to C") && e.stderr.contains(reason), "\(e.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// With smaller weights the summary prints the flash written beside float32's, and names what
    /// stays float32; with f32 it reads as before the option.
    @Test func smallerWeightsPrintTheirFlashBesideFloat32s() throws {
        let model = path("ridge.gesture"), spec = path("ridge.json")
        try #"{"features": {"extractors": [{"kind": "timeDomain"}]}, "classifier": {"kind": "ridge"}}"#
            .write(toFile: spec, atomically: true, encoding: .utf8)
        let t = try CLI.run(["train", train, "--spec", spec, "-o", model])
        try #require(t.status == 0, "\(t.stderr)")
        func flash(_ out: String) -> Int? {
            out.split(separator: "\n").first { $0.hasPrefix("flash ") }.flatMap { Int($0.split(separator: " ")[1]) }
        }
        let full = try CLI.run(["export", model, "--c", path("f32")])
        let f32 = try #require(flash(full.stdout), "\(full.stdout)")
        #expect(full.stdout.contains("flash \(f32) bytes (weights), RAM") && !full.stdout.contains("kept float32"))
        for w in ["f16", "int8"] {
            let e = try CLI.run(["export", model, "--c", path(w), "--weights", w])
            #expect(e.status == 0, "\(e.stderr)")
            #expect(e.stdout.contains(" bytes (weights; \(f32) as f32), RAM"), "\(e.stdout)")
            #expect((flash(e.stdout) ?? f32) < f32, "\(e.stdout)")
            #expect(e.stdout.contains("kept float32: ridge's per-feature means and scales"), "\(e.stdout)")
        }
    }

    @Test func aNameThatIsNotACNameIsAUsageError() throws {
        let bad = try CLI.run(["export", path("any.gesture"), "--c", path("out"), "--name", "9lives"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--name must be a C name"), "\(bad.stderr)")
        let weights = try CLI.run(["export", path("any.gesture"), "--c", path("out"), "--weights", "int4"])
        #expect(weights.status == 64)
        #expect(weights.stderr.contains("--weights must be f32, f16 or int8, got \"int4\""), "\(weights.stderr)")
    }
}
