import Foundation
import Testing
@testable import GestureKit

/// Paths to real recordings used by the tests.
enum TestData {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let shared = repo.deletingLastPathComponent().appendingPathComponent("shared/datasets")
    static let bundled = repo.appendingPathComponent("datasets")

    static var hasShared: Bool { FileManager.default.fileExists(atPath: shared.path) }
    /// The reason a test skipped for want of ../shared gives; .ci/test counts skipped tests by reason.
    static let needsShared: Comment = "needs ../shared/datasets"

    static func sharedPath(_ relative: String) -> String { shared.appendingPathComponent(relative).path }
    static func bundledPath(_ relative: String) -> String { bundled.appendingPathComponent(relative).path }

    static var basicMotionsTrain: String { bundledPath("basicmotions/BasicMotions_TRAIN.ts") }
    static var basicMotionsTest: String { bundledPath("basicmotions/BasicMotions_TEST.ts") }

    static func temporaryFile(_ name: String) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gesturekit-tests-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent(name).path
    }

    /// What `pipeline`'s recognizer reports on `stream` (frames of `channels` values back to back), flush included.
    static func liveDecisions(_ pipeline: Pipeline, _ stream: [Float], channels: Int) throws -> [Detection] {
        var live = pipeline.recognizer()
        var out: [Detection] = []
        for f in 0..<(stream.count / channels) {
            if let d = try live.push(Array(stream[(f * channels)..<((f + 1) * channels)])) { out.append(d) }
        }
        return out + live.flush()
    }

    /// `json` trained on BasicMotions' training set, saved as `file` and loaded back: the pair a
    /// file round trip compares, with the set it was trained on and the file's path.
    static func savedAndLoaded(_ json: String, file: String) throws -> (trained: Pipeline, loaded: Pipeline, data: Dataset, path: String) {
        let data = try Dataset.load(basicMotionsTrain)
        let pipeline = try Pipeline.train(spec(json), on: data)
        let path = temporaryFile(file)
        try pipeline.save(to: path)
        return (pipeline, try Pipeline.load(path), data, path)
    }

    static func spec(_ json: String) throws -> PipelineSpec {
        try decodeJSON(PipelineSpec.self, from: Data(json.utf8), file: "test spec")
    }
}
