import Foundation
import Testing
@testable import GestureKit

/// A `gesture` process the test talks to while it runs.
final class LiveProcess: @unchecked Sendable {
    let process = Process()
    let input = Pipe(), output = Pipe(), errors = Pipe()
    private let lock = NSLock()
    private var out = Data(), err = Data()

    init(_ arguments: [String]) throws {
        process.executableURL = CLI.binary
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        output.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            self?.lock.withLock { self?.out.append(d) }
        }
        errors.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            self?.lock.withLock { self?.err.append(d) }
        }
        try process.run()
    }

    var stdout: String { lock.withLock { String(decoding: out, as: UTF8.self) } }
    var stderr: String { lock.withLock { String(decoding: err, as: UTF8.self) } }

    func write(_ text: String) { input.fileHandleForWriting.write(Data(text.utf8)) }

    /// Waits (bounded) until `condition` holds.
    @discardableResult
    func wait(seconds: Double = 20, until condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    func finish() -> Int32 {
        try? input.fileHandleForWriting.close()
        let end = Date().addingTimeInterval(30)
        while process.isRunning && Date() < end { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        usleep(100_000)
        output.fileHandleForReading.readabilityHandler = nil
        errors.fileHandleForReading.readabilityHandler = nil
        return process.terminationStatus
    }
}

/// Train, evaluate, predict, stream: the built binary on the bundled data.
@Suite(.serialized) struct PipelineCLITests {
    let dir: URL
    let train = CLI.repo.appendingPathComponent("datasets/basicmotions/BasicMotions_TRAIN.ts").path
    let test = CLI.repo.appendingPathComponent("datasets/basicmotions/BasicMotions_TEST.ts").path
    let liveSpec = CLI.repo.appendingPathComponent("pipelines/basicmotions-live.json").path

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("gesture-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// The 40 test series back to back as one CSV recording with a label per row (channels ch0..ch5).
    func continuousRecording() throws -> String {
        let perExample = path("test.csv")
        #expect(try CLI.run(["convert", test, perExample]).status == 0)
        let lines = try String(contentsOfFile: perExample, encoding: .utf8).split(separator: "\n")
        let joined = lines.map { $0.split(separator: ",", maxSplits: 1)[1] }.joined(separator: "\n") + "\n"
        let out = path("stream.csv")
        try joined.write(toFile: out, atomically: true, encoding: .utf8)
        return out
    }

    @Test func trainEvaluatePredictWithEveryClassifier() throws {
        for classifier in ["dtw", "knn", "centroid"] {
            let model = path("\(classifier).gesture")
            let t = try CLI.run(["train", train, "--classifier", classifier, "-o", model])
            #expect(t.status == 0, "\(t.stderr)")
            let e = try CLI.run(["evaluate", model, test, "--json", "--plot", path("\(classifier).svg")])
            #expect(e.status == 0, "\(e.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(e.stdout.utf8)) as? [String: Any])
            for key in ["accuracy", "rejected", "confusion", "perClass"] { #expect(report[key] != nil, "missing \(key)") }
            #expect((report["accuracy"] as? Double ?? 0) >= 0.9, "\(classifier): \(report["accuracy"] ?? "-")")
            #expect(try String(contentsOfFile: path("\(classifier).svg"), encoding: .utf8).hasPrefix("<svg"))
            let p = try CLI.run(["predict", model, test])
            #expect(p.status == 0)
            #expect(p.stdout.split(separator: "\n").count == 40)
            let info = try CLI.run(["info", model, "--json"])
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
            #expect(summary["classifier"] as? String == classifier)
            #expect(summary["classes"] as? [String] == ["Standing", "Running", "Walking", "Badminton"])
        }
    }

    @Test func centroidPipelineFromSpecReachesNinetyPercent() throws {
        let model = path("m.gesture")
        #expect(try CLI.run(["train", train, "--spec", CLI.repo.appendingPathComponent("pipelines/centroid.json").path, "-o", model]).status == 0)
        let e = try CLI.run(["evaluate", model, test, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(e.stdout.utf8)) as? [String: Any])
        #expect((report["accuracy"] as? Double ?? 0) >= 0.90)
    }

    /// Open set from the command line: trained on two G/R/T letters, the third must come out null.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: CLI.sharedDatasets.path), CLI.needsShared))
    func novelLettersAreRejected() throws {
        let grt = CLI.sharedDatasets.appendingPathComponent("grt/DTWTrainingData.grt").path
        let spec = CLI.repo.appendingPathComponent("pipelines/grt-letters-classify.json").path
        for (known, novel) in [("1,2", "3"), ("1,3", "2"), ("2,3", "1")] {
            let model = path("open-\(novel).gesture")
            #expect(try CLI.run(["train", grt, "--spec", spec, "--only", known, "-o", model]).status == 0)
            let r = try CLI.run(["evaluate", model, grt, "--only", novel, "--json"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("count as null truth"))
            let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let matrix = try #require((report["confusion"] as? [String: Any])?["matrix"] as? [[Int]])
            let nullRow = try #require(matrix.last)
            #expect(nullRow.reduce(0, +) == 15)
            #expect(Double(nullRow.last!) >= 0.9 * 15, "letter \(novel): \(nullRow)")
        }
    }

    @Test func crossValidationFromTheCommandLine() throws {
        let r = try CLI.run(["evaluate", train, "--classifier", "knn", "--folds", "5", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let confusion = try #require(report["confusion"] as? [String: Any])
        let total = (confusion["matrix"] as? [[Int]])?.flatMap { $0 }.reduce(0, +)
        #expect(total == 40)
    }

    @Test func damagedOrMismatchedPipelinesAreOneLineErrors() throws {
        let model = path("k.gesture")
        #expect(try CLI.run(["train", train, "--classifier", "knn", "-o", model]).status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: model))
        let truncated = path("truncated.gesture")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        let grt = CLI.sharedDatasets.appendingPathComponent("grt/DTWTrainingData.grt").path
        var cases: [[String]] = [["evaluate", truncated, test], ["predict", path("missing.gesture"), test]]
        if FileManager.default.fileExists(atPath: grt) { cases.append(["evaluate", model, grt]) }
        for args in cases {
            let r = try CLI.run(args)
            #expect(r.status == 1, "\(args)")
            #expect(r.stderr.hasPrefix("error: "), "\(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
        // A failed save keeps the existing file whole.
        let before = try Data(contentsOf: URL(fileURLWithPath: model))
        let bad = try CLI.run(["train", test, "--spec", path("nonexistent.json"), "-o", model])
        #expect(bad.status == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: model)) == before)
    }

    @Test func streamPrintsOneJSONLinePerDetectionAndScoresTheStream() throws {
        let model = path("live.gesture")
        let t = try CLI.run(["train", train, "--spec", liveSpec, "--sample-rate", "10", "-o", model])
        #expect(t.status == 0, "\(t.stderr)")
        let recording = try continuousRecording()
        let s = try CLI.run(["stream", model, "--input", recording, "--json"])
        #expect(s.status == 0, "\(s.stderr)")
        let lines = s.stdout.split(separator: "\n")
        #expect(lines.count >= 4)
        var labels: [String] = []
        for line in lines {
            let d = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            for key in ["frame", "time", "label", "confidence", "start"] { #expect(d[key] != nil, "missing \(key)") }
            labels.append(d["label"] as? String ?? "null")
        }
        // Each of the four activities (10 series each, in order) is detected at least once.
        #expect(Set(labels) == ["Standing", "Running", "Walking", "Badminton"])
        #expect(s.stderr.contains("4000 frames"))

        let e = try CLI.run(["evaluate", model, recording, "--stream", "--json"])
        #expect(e.status == 0, "\(e.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(e.stdout.utf8)) as? [String: Any])
        for key in ["frameAccuracy", "eventPrecision", "eventRecall", "eventF1", "falseActivationsPerMinute", "medianLatencyMs"] {
            #expect(report.keys.contains(key), "missing \(key)")
        }
        #expect((report["frameAccuracy"] as? Double ?? 0) > 0.9)
        #expect(report["eventRecall"] as? Double == 1)
    }

    /// The text report leaves out the post-processed frame accuracy after a stage that reports each
    /// event once (the live spec's change filter), and shows it without one.
    @Test func streamEvaluationShowsPostProcessedAccuracyOnlyWhereItMeansSomething() throws {
        let recording = try continuousRecording()
        let live = try String(contentsOfFile: liveSpec, encoding: .utf8)
        let smoothed = live.replacingOccurrences(of: ",\n    {\"kind\": \"changeFilter\"}", with: "")
        #expect(smoothed != live)
        try smoothed.write(toFile: path("smoothed.json"), atomically: true, encoding: .utf8)
        for (spec, reportsOnce) in [(liveSpec, true), (path("smoothed.json"), false)] {
            let model = path("accuracy-\(reportsOnce).gesture")
            let t = try CLI.run(["train", train, "--spec", spec, "--sample-rate", "10", "-o", model])
            #expect(t.status == 0, "\(t.stderr)")
            let e = try CLI.run(["evaluate", model, recording, "--stream"])
            #expect(e.status == 0, "\(e.stderr)")
            #expect(e.stdout.hasPrefix("frame accuracy"), "\(e.stdout)")
            #expect(e.stdout.contains("after post-processing") == !reportsOnce, "\(e.stdout)")
        }
    }

    /// The demo's stream: test series as Standing, Running, Walking, Badminton, Standing, ... with
    /// Standing trained as the rest class. Every activity is reported once and nothing in the rest
    /// stretches (post-processing chosen on two halves of TRAIN, see docs/benchmarks.md).
    @Test func restStretchesStaySilent() throws {
        let model = path("rest.gesture")
        #expect(try CLI.run(["train", train, "--spec", liveSpec, "--rest", "Standing", "--sample-rate", "10", "-o", model]).status == 0)
        let perExample = path("test-rest.csv")
        #expect(try CLI.run(["convert", test, perExample]).status == 0)
        let lines = try String(contentsOfFile: perExample, encoding: .utf8).split(separator: "\n")
        var bySession: [Int: [Substring]] = [:]
        for line in lines.dropFirst() {
            let parts = line.split(separator: ",", maxSplits: 1)
            bySession[Int(parts[0])!, default: []].append(parts[1])
        }
        var rows = [lines[0].split(separator: ",", maxSplits: 1)[1]]
        for k in 0..<10 { for c in 0..<4 { rows += bySession[10 * c + k]! } }
        let stream = path("rest-stream.csv")
        try (rows.joined(separator: "\n") + "\n").write(toFile: stream, atomically: true, encoding: .utf8)
        let e = try CLI.run(["evaluate", model, stream, "--stream", "--json"])
        #expect(e.status == 0, "\(e.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(e.stdout.utf8)) as? [String: Any])
        #expect(report["falseActivationsPerMinute"] as? Double == 0)
        #expect(report["eventRecall"] as? Double == 1)
        #expect((report["eventPrecision"] as? Double ?? 0) >= 0.95)
    }

    @Test func malformedLinesAreCountedNotFatal() throws {
        let model = path("live2.gesture")
        #expect(try CLI.run(["train", train, "--spec", liveSpec, "--sample-rate", "10", "-o", model]).status == 0)
        var text = ""
        for i in 0..<100 { text += i % 10 == 3 ? "1,2,oops\n" : "0.1,0.2,0.3,0.4,0.5,0.6\n" }
        let r = try CLI.run(["stream", model], stdin: Data(text.utf8))
        #expect(r.status == 0)
        #expect(r.stderr.contains("90 frames"))
        #expect(r.stderr.contains("10 malformed"))
        #expect(r.stderr.contains("stdin:4:"))
    }

    /// Replacing the pipeline file mid-stream switches models without losing a frame; a corrupt
    /// replacement is refused and the running model carries on.
    @Test func reloadSwitchesModelsAndRefusesACorruptFile() throws {
        let model = path("reload.gesture")
        let first = path("first.gesture"), second = path("second.gesture")
        #expect(try CLI.run(["train", train, "--spec", liveSpec, "--sample-rate", "10", "-o", first]).status == 0)
        // The second model treats Standing as rest, so the two are told apart by their output.
        #expect(try CLI.run(["train", train, "--spec", liveSpec, "--sample-rate", "10", "--rest", "Standing", "-o", second]).status == 0)
        try FileManager.default.copyItem(atPath: first, toPath: model)
        let p = try LiveProcess(["stream", model, "--reload", "--json"])
        #expect(p.wait { p.stderr.contains("watching it for changes") })
        let frame = "0.1,0.2,0.3,0.4,0.5,0.6\n"
        var sent = 0
        func send(_ n: Int) { for _ in 0..<n { p.write(frame) }; sent += n }
        send(500)
        // Atomic replacement, as `gesture train -o` does it.
        try? FileManager.default.removeItem(atPath: model + ".new")
        try FileManager.default.copyItem(atPath: second, toPath: model + ".new")
        #expect(rename(model + ".new", model) == 0)
        var reloaded = false
        for _ in 0..<100 where !reloaded {
            send(64)
            reloaded = p.wait(seconds: 0.2) { p.stderr.contains("reloaded") }
        }
        #expect(reloaded, "\(p.stderr)")
        // A corrupt replacement is refused.
        try Data("{\"format\":\"gesturekit.pipeline\",\"version\":1,\"pipe".utf8).write(to: URL(fileURLWithPath: model + ".bad"))
        #expect(rename(model + ".bad", model) == 0)
        var refused = false
        for _ in 0..<100 where !refused {
            send(64)
            refused = p.wait(seconds: 0.2) { p.stderr.contains("reload failed") }
        }
        #expect(refused, "\(p.stderr)")
        send(100)
        #expect(p.finish() == 0)
        #expect(p.stderr.contains("\(sent) frames"), "sent \(sent): \(p.stderr)")
        #expect(p.stderr.contains("1 reloads"))
    }

    @Test func udpAndOSCInputsAndOSCOutputOnLoopback() throws {
        let model = path("net.gesture")
        #expect(try CLI.run(["train", train, "--spec", liveSpec, "--sample-rate", "10", "-o", model]).status == 0)
        // Running frames from a test series make detections; send 300 of them.
        let series = try Dataset.load(test).examples[12].series
        func free() throws -> Int {
            let probe = try FrameReader(.udp(port: 0))
            defer { probe.close() }
            return try #require(probe.port)
        }

        // UDP: several lines per datagram.
        let udpPort = try free()
        let rx = try UDPSocket()
        try rx.bind(host: "127.0.0.1", port: 0)
        let u = try LiveProcess(["stream", model, "--input", "udp:\(udpPort)", "--frames", "300", "--seconds", "20",
                                 "--json", "--osc-out", "127.0.0.1:\(rx.localPort)"])
        #expect(u.wait { u.stderr.contains("streaming") })
        let tx = try UDPSocket()
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(udpPort).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var f = 0
        while f < 300 && u.process.isRunning {
            let lines = (f..<min(f + 3, 300)).map { i in
                (0..<6).map { "\(series[i % series.frameCount, $0])" }.joined(separator: ",")
            }.joined(separator: "\n") + "\n"
            try Array(lines.utf8).withUnsafeBytes { try tx.send($0, to: address) }
            f += 3
            usleep(2_000)
        }
        #expect(u.finish() == 0)
        #expect(u.stderr.contains("300 frames"), "\(u.stderr)")
        let detections = u.stdout.split(separator: "\n")
        #expect(!detections.isEmpty)
        // Each detection also went out as OSC: /wek/outputs class-number, confidence, label.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 8)
        defer { buffer.deallocate() }
        let n = try #require(try rx.receive(into: buffer, until: monotonicNanos() + 2_000_000_000))
        guard case .message(let m) = try OSCPacket(decoding: Array(buffer[0..<n])) else { Issue.record("not a message"); return }
        #expect(m.address == "/wek/outputs")
        #expect(m.arguments.count == 3)
        if case .string(let label) = m.arguments[2] { #expect(["Standing", "Running", "Walking", "Badminton"].contains(label)) }

        // OSC: one message per frame, Wekinator's address.
        let oscPort = try free()
        let o = try LiveProcess(["stream", model, "--input", "osc:\(oscPort)", "--frames", "200", "--seconds", "20"])
        #expect(o.wait { o.stderr.contains("streaming") })
        let sender = try OSCSender(port: oscPort, address: "/wek/inputs")
        var k = 0
        while k < 2000 && o.process.isRunning {
            try sender.send((0..<6).map { .float32(series[k % series.frameCount, $0]) })
            k += 1
            usleep(1_000)
        }
        #expect(o.finish() == 0)
        #expect(o.stderr.contains("200 frames"), "\(o.stderr)")
        #expect(o.stdout.contains("Running"))
    }
}
