import Foundation
import GestureKit
import Testing
@testable import GestureStudio

/// A fresh project folder under the temporary directory.
func temporaryProject() throws -> ProjectStore {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("studio-test-\(UUID().uuidString)").path
    return try ProjectStore(directory: dir)
}

@Suite struct StudioProjectTests {
    @Test func examplesRoundTripThroughTheRecordingReader() throws {
        let store = try temporaryProject()
        let channels = ["ax", "ay", "az"]
        let circle: [Float] = [0.1, 0.2, 0.3, 1e-7, -2.5, 3.4028235e38, 9, 8, 7]
        let rest: [Float] = [0, 0, 9.81, 0.01, 0, 9.8]
        _ = try store.append(circle, channels: channels, label: "circle", id: "ex1")
        _ = try store.append(rest, channels: channels, label: "rest", id: "ex2")

        // The file is what `gesture record` writes: one header, then session,label,values.
        let text = try String(contentsOfFile: store.recordingPath, encoding: .utf8)
        #expect(text.hasPrefix("session,label,ax,ay,az\nex1,circle,0.1,0.2,0.3\n"))
        #expect(text.components(separatedBy: "session,").count == 2)

        // And `gesture train` reads it back exactly: one recording per example, values bit-equal.
        let data = try Dataset.load(store.recordingPath)
        #expect(data.channelNames == channels)
        #expect(Set(data.classes) == ["circle", "rest"])
        #expect(data.recordings.map(\.session) == ["ex1", "ex2"])
        #expect(data.recordings[0].series.values == circle)
        #expect(data.recordings[1].series.values == rest)
        #expect(data.recordings[0].labels == Array(repeating: "circle", count: 3))

        let listed = try store.examples()
        #expect(listed.map(\.id) == ["ex1", "ex2"])
        #expect(listed.map(\.label) == ["circle", "rest"])
        #expect(listed.map(\.frames) == [3, 2])
        #expect(listed[0].preview.count == 3 && listed[0].preview[0] == [0.1, 1e-7, 9])
    }

    @Test func aRecordingWithOtherChannelsIsNotTouched() throws {
        let store = try temporaryProject()
        _ = try store.append([1, 2], channels: ["a", "b"], label: "x", id: "ex1")
        let before = try Data(contentsOf: URL(fileURLWithPath: store.recordingPath))
        #expect(throws: GestureKitError.self) { try store.append([1, 2, 3], channels: ["a", "b", "c"], label: "x", id: "ex2") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.recordingPath)) == before)
    }

    @Test func deleteRemovesOneExampleAndKeepsTheRest() throws {
        let store = try temporaryProject()
        for (i, label) in ["a", "b", "a"].enumerated() {
            _ = try store.append([Float(i), 1, Float(i), 2], channels: ["u", "v"], label: label, id: "ex\(i)")
        }
        #expect(try store.delete(id: "ex1"))
        #expect(try !store.delete(id: "ex1"))
        let data = try Dataset.load(store.recordingPath)
        #expect(data.recordings.map(\.session) == ["ex0", "ex2"])
        #expect(data.recordings[1].series.values == [2, 1, 2, 2])
        #expect(try store.delete(id: "ex0") && store.delete(id: "ex2"))
        #expect(try store.examples().isEmpty)
    }
}

@Suite struct StudioHubTests {
    /// Collects a page's messages as JSON objects.
    final class Page: @unchecked Sendable {
        let id: Int
        private let lock = NSLock()
        private var received: [[String: Any]] = []
        private let task: Task<Void, Never>

        init(_ hub: StudioHub) throws {
            let (id, stream) = try hub.connect()
            self.id = id
            let box = Box()
            task = Task { for await m in stream { box.page?.add(m) } }
            box.page = self
        }
        final class Box: @unchecked Sendable { weak var page: Page? }

        func add(_ text: String) {
            guard let o = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return }
            lock.withLock { received.append(o) }
        }
        var messages: [[String: Any]] { lock.withLock { received } }
        func of(_ t: String) -> [[String: Any]] { messages.filter { $0["t"] as? String == t } }

        /// Waits until `condition` holds, up to `seconds` of wall time. Generous: the wait ends as
        /// soon as the condition holds, and beside the whole suite on two cores the task reading the
        /// page's messages can wait for a thread until the other suites finish (this test has
        /// passed after 173 s, and a 60 s wait failed once in a fresh CI run).
        func wait(_ seconds: Double = 300, until condition: () -> Bool) async -> Bool {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                if condition() { return true }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return condition()
        }
    }

    func motion(_ frames: [[Float]]) -> String {
        "{\"t\":\"motion\",\"v\":[" + frames.map { "[" + $0.map(\.description).joined(separator: ",") + "]" }.joined(separator: ",") + "]}"
    }

    @Test func framesOfAnotherWidthAreRefusedAndTheStreamGoesOn() async throws {
        let hub = try StudioHub(store: try temporaryProject())
        let page = try Page(hub)
        try hub.push([1, 2, 3], names: ["a", "b", "c"])
        #expect(throws: StudioError.self) { try hub.push([1, 2], names: ["a", "b"]) }
        #expect(throws: StudioError.self) { try hub.push([1, .nan, 3], names: ["a", "b", "c"]) }
        try hub.push([4, 5, 6], names: ["a", "b", "c"])
        #expect(await page.wait { page.of("f").count == 2 })
        #expect(page.of("f").map { ($0["i"] as? Int) ?? -1 } == [0, 1])
        let state = try #require(page.of("state").last)
        #expect(state["channels"] as? [String] == ["a", "b", "c"])
    }

    @Test func badPageMessagesAreAnsweredOnlyToThatPage() async throws {
        let hub = try StudioHub(store: try temporaryProject())
        let a = try Page(hub), b = try Page(hub)
        hub.receive("{\"t\":\"record\",\"label\":\"a,b\"}", from: a.id)
        hub.receive("garbage", from: a.id)
        #expect(await a.wait { a.of("error").count == 2 })
        try await Task.sleep(for: .milliseconds(50))
        #expect(b.of("error").isEmpty)
    }

    /// The whole loop a page drives: record two gestures and rest from the page's motion,
    /// train, recognise them live, and play an example back.
    @Test func recordTrainRecogniseAndReplayFromPageMessages() async throws {
        let store = try temporaryProject()
        let hub = try StudioHub(store: store)
        let page = try Page(hub)
        let width = MotionLayout.channels.count
        func frames(_ kind: Int, _ n: Int, phase: Int = 0) -> [[Float]] {
            (0..<n).map { i in
                let t = Float(i + phase)
                return (0..<width).map { c in
                    switch kind {
                    case 1: return 6 * sin(t * 0.5 + Float(c))           // "shake"
                    case 2: return c % 3 == 0 ? 8 + sin(t * 0.05) : 0.2  // "tilt": a held offset
                    default: return 0.05 * sin(t * 0.9 + Float(c))       // rest
                    }
                }
            }
        }
        func send(_ fs: [[Float]]) { for chunk in stride(from: 0, to: fs.count, by: 32) { hub.receive(motion(Array(fs[chunk..<min(fs.count, chunk + 32)])), from: page.id) } }
        for rep in 0..<4 {
            for (kind, label) in [(1, "shake"), (2, "tilt"), (0, "rest")] {
                hub.receive("{\"t\":\"record\",\"label\":\"\(label)\"}", from: page.id)
                send(frames(kind, 80, phase: rep * 17))
                hub.receive("{\"t\":\"stop\"}", from: page.id)
            }
        }
        #expect(await page.wait { (page.of("examples").last?["examples"] as? [Any])?.count == 12 })
        #expect(page.of("error").isEmpty, "\(page.of("error"))")
        let data = try Dataset.load(store.recordingPath)
        #expect(Set(data.classes) == ["shake", "tilt", "rest"])
        #expect(data.recordings.count == 12)

        hub.receive("{\"t\":\"train\",\"classifier\":\"knn\",\"window\":16,\"hop\":4}", from: page.id)
        #expect(await page.wait { page.of("training").contains { ["done", "failed"].contains($0["state"] as? String) } })
        let done = try #require(page.of("training").last)
        #expect(done["state"] as? String == "done", "\(done)")
        #expect(((done["accuracy"] as? Double) ?? 0) > 0.8)
        #expect(FileManager.default.fileExists(atPath: store.pipelinePath))

        // Live: shakes are detected as shake, rest stays silent.
        send(frames(0, 64))
        send(frames(1, 64))
        #expect(await page.wait { page.of("d").contains { $0["label"] as? String == "shake" } })
        #expect(page.of("d").allSatisfy { $0["label"] as? String == "shake" }, "\(page.of("d"))")
        let restStart = 12 * 80 + 128
        send(frames(0, 120))
        #expect(await page.wait { page.of("f").count == restStart + 120 })
        try await Task.sleep(for: .milliseconds(50))
        let late = page.of("d").filter { ($0["frame"] as? Int ?? 0) >= restStart + 16 }
        #expect(late.isEmpty, "rest is silence once the window has left the shake: \(late)")

        // Play back a saved tilt: its frames go out on the live timeline, through the model, which
        // names it tilt; live frames sent meanwhile are set aside, and nothing is written.
        let csvBefore = try Data(contentsOf: URL(fileURLWithPath: store.recordingPath))
        let modelBefore = try Data(contentsOf: URL(fileURLWithPath: store.pipelinePath))
        let tilt = try #require(data.recordings.first { $0.labels.first == "tilt" })
        let framesBefore = page.of("f").count
        hub.receive("{\"t\":\"play\",\"id\":\"\(tilt.session!)\",\"rate\":400}", from: page.id)
        send(frames(1, 8))  // a live shake during the replay: not shown, not recognised
        #expect(await page.wait { page.of("replay").contains { $0["end"] != nil } })
        let replay = page.of("replay")
        #expect(replay.count == 2 && replay[0]["label"] as? String == "tilt", "\(replay)")
        let (start, end) = (replay.last?["start"] as? Int ?? -1, replay.last?["end"] as? Int ?? -1)
        #expect(start == framesBefore && end - start + 1 == tilt.series.frameCount)
        let shown = page.of("f").filter { ($0["i"] as? Int ?? -1) >= start }
        #expect(shown.count == tilt.series.frameCount, "only the replay's frames reach the page")
        let firstShown = (shown.first?["v"] as? [Double])?.map(Float.init)
        #expect(firstShown == Array(tilt.series.values[0..<width]))
        let named = page.of("d").filter { ($0["frame"] as? Int ?? -1) >= start }.compactMap { $0["label"] as? String }
        #expect(!named.isEmpty && named.allSatisfy { $0 == "tilt" }, "the model names the replayed tilt: \(named)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.recordingPath)) == csvBefore)
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.pipelinePath)) == modelBefore)
        // Live frames count again once it ends.
        send(frames(0, 4))
        #expect(await page.wait { page.of("f").count == framesBefore + tilt.series.frameCount + 4 })
        hub.receive("{\"t\":\"play\",\"id\":\"ex-none\"}", from: page.id)
        #expect(await page.wait { page.of("error").contains { ($0["message"] as? String)?.contains("no example ex-none") == true } })
    }
}

extension StudioHubTests {
    @Test func aPageThatGoesAwayMidHoldLeavesNoExample() async throws {
        let store = try temporaryProject()
        let hub = try StudioHub(store: store)
        let a = try Page(hub)
        hub.receive("{\"t\":\"record\",\"label\":\"wave\"}", from: a.id)
        for i in 0..<10 { try hub.push([Float(i), 0], names: ["x", "y"]) }
        hub.disconnect(a.id)
        let b = try Page(hub)
        #expect(await b.wait { !b.of("state").isEmpty })
        #expect(b.of("state").last?["recording"] == nil)
        #expect(try store.examples().isEmpty)
        hub.receive("{\"t\":\"record\",\"label\":\"wave\"}", from: b.id)
        #expect(await b.wait { b.of("recording").last?["label"] as? String == "wave" }, "a new hold can start")
    }
}

@Suite struct StudioSpecTests {
    @Test func defaultPipelinesGetTheWindowAndTheRestClass() throws {
        let spec = try StudioHub.spec(for: TrainRequest(classifier: "knn", window: .init(size: 24, hop: 6)), rest: "rest")
        #expect(spec.window == .init(size: 24, hop: 6))
        #expect(spec.rest == "rest")
        #expect(spec.classifier.kind == "knn")
        #expect(try StudioHub.spec(for: TrainRequest(classifier: "dtw", window: nil), rest: nil).window == nil)
    }

    @Test func specFilesKeepTheirOwnWindow() throws {
        let file = try PipelineSpec.load(URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../pipelines/basicmotions-live.json").standardized.path)
        let spec = try StudioHub.spec(for: TrainRequest(classifier: "spec:live", window: nil), rest: "rest", specs: ["spec:live": file])
        #expect(spec.window == file.window)
        #expect(spec.rest == "rest")
    }

    @Test func unknownClassifiersAreRefused() {
        #expect(throws: GestureKitError.self) { try StudioHub.spec(for: TrainRequest(classifier: "nope", window: nil), rest: nil) }
    }
}
