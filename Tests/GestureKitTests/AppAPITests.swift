import Foundation
import Testing
@testable import GestureKit

/// The app-facing API: in-memory recording, async training with cancellation, async detections.
@Suite struct AppAPITests {
    static let train = try! Dataset.load(TestData.basicMotionsTrain)
    static let test = try! Dataset.load(TestData.basicMotionsTest)

    static func windowedSpec(_ classifier: String, epochs: Int? = nil, rest: String? = nil) throws -> PipelineSpec {
        try DefaultSpecs.build(classifier: classifier, specFile: nil,
                               overrides: .init(classifier: ClassifierSettings(epochs: epochs),
                                                window: .init(size: 20, hop: 10), rest: rest))
    }

    /// Two gestures with rest between them, pushed as an app would while a button is held.
    static func record() throws -> GestureRecorder {
        var r = GestureRecorder(channelNames: train.channelNames, sampleRate: 10)
        let running = train.examples.filter { $0.label == "Running" }, badminton = train.examples.filter { $0.label == "Badminton" }
        let gestures = (0..<3).flatMap { [running[$0], badminton[$0]] }
        let rest = train.examples.filter { $0.label == "Standing" }
        for (i, g) in gestures.enumerated() {
            r.label = nil
            for f in 0..<40 { try r.push(Array(rest[i].series.frame(f))) }
            r.label = g.label
            for f in 0..<g.series.frameCount { try r.push(Array(g.series.frame(f))) }
        }
        return r
    }

    @Test func recordingGivesRunsAndRefusesBadFrames() throws {
        var r = try Self.record()
        let data = r.dataset
        #expect(data.examples.count == 12)
        #expect(Set(data.classes) == ["rest", "Running", "Badminton"])
        #expect(data.examples.filter { $0.label == "rest" }.allSatisfy { $0.series.frameCount == 40 })
        #expect(r.frameCount == 6 * 140)
        #expect(throws: GestureKitError.self) { try r.push([1, 2]) }
        #expect(throws: GestureKitError.self) { try r.push(Array(repeating: .nan, count: 6)) }
        #expect(r.frameCount == 6 * 140)
    }

    @Test func inMemoryTrainingMatchesTrainingOnTheSavedCSV() throws {
        let r = try Self.record()
        let path = TestData.temporaryFile("app-recording.csv")
        try r.save(to: path)
        let fromFile = try Dataset.load(path)
        #expect(fromFile.examples.map(\.label) == r.dataset.examples.map(\.label))
        let spec = try Self.windowedSpec("knn", rest: "rest")
        let a = try Pipeline.train(spec, on: r.dataset), b = try Pipeline.train(spec, on: fromFile)
        #expect(a.classes == b.classes)
        for e in Self.test.examples.prefix(20) {
            #expect(try a.predict(e.series) == b.predict(e.series))
        }
    }

    @Test func cancellingStopsALongLSTMTrainingEarly() async throws {
        var spec = try Self.windowedSpec("lstm", epochs: 5000)
        // No early stop: with the default patience training ended after ~40 epochs (0.8 s), which
        // under ASan and parallel tests came before this task woke to cancel it (2 of 3 runs).
        if case .sequence(var lstm as LSTMClassifier) = spec.classifier {
            lstm.patience = 5000
            spec.classifier = .sequence(lstm)
        }
        let epochs = Counter()
        let task = Task {
            try await Pipeline.training(spec, on: Self.train) { p in
                if case .epoch = p { epochs.add() }
            }
        }
        while epochs.value < 2 { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let seen = epochs.value
        #expect(seen < 5000)
        try await Task.sleep(for: .milliseconds(200))
        #expect(epochs.value == seen, "training went on after it threw")
    }

    @Test func asyncDetectionsEqualPushingFramesOneByOne() async throws {
        let pipeline = try Pipeline.train(try Self.windowedSpec("knn"), on: Self.train)
        let frames = Self.test.examples.prefix(8).flatMap { e in (0..<e.series.frameCount).map { Array(e.series.frame($0)) } }
        var live = pipeline.recognizer()
        var expected: [Detection] = []
        for f in frames { if let d = try live.push(f) { expected.append(d) } }
        #expect(!expected.isEmpty)
        var got: [Detection] = []
        for try await d in pipeline.detections(from: frames.async) { got.append(d) }
        #expect(got == expected)
    }

    @Test func asyncDetectionsTakeAnOfferedPipeline() async throws {
        let a = try Pipeline.train(try Self.windowedSpec("knn"), on: Self.train.subset(0..<8))
        let b = try Pipeline.train(try Self.windowedSpec("knn"), on: Self.train)
        let live = try SwappableRecognizer(a)
        live.mailbox.offer(b)   // offered before the first frame: the whole stream is b's
        let frames = Self.test.examples.prefix(4).flatMap { e in (0..<e.series.frameCount).map { Array(e.series.frame($0)) } }
        var fresh = b.recognizer()
        var expected: [Detection] = []
        for f in frames { if let d = try fresh.push(f) { expected.append(d) } }
        var got: [Detection] = []
        for try await d in live.detections(from: frames.async) { got.append(d) }
        #expect(got == expected)
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() { lock.lock(); n += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return n }
}

/// Frames as an AsyncSequence, as a sensor callback bridged to Swift concurrency would give them.
extension Array where Element == [Float] {
    var async: AsyncStream<[Float]> {
        AsyncStream { c in
            for f in self { c.yield(f) }
            c.finish()
        }
    }
}
