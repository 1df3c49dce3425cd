import Foundation
import Testing
import GestureKit

/// The plain DTW flow of the README: `gesture train DATA --classifier dtw -o P`, then
/// `gesture stream P` with no other flag, on isolated gestures written to a GRT file.
@Suite struct SpottingCLITests {
    let dir: URL

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("gesture-spot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// A gesture of class `cls` (0: a loop, 1: a zigzag) at random speed and size, from and back to rest.
    static func gesture(_ cls: Int, _ rng: inout SeededGenerator) -> [[Float]] {
        let n = Int(50 * (0.8 + 0.4 * rng.nextUnit())), a = 1 + 0.2 * (rng.nextUnit() - 0.5)
        return (0..<n).map { i in
            let u = Float(i) / Float(n - 1)
            let p: [Float] = cls == 0 ? [sinf(2 * .pi * u), 1 - cosf(2 * .pi * u)] : [sinf(4 * .pi * u), 0.5 * sinf(.pi * u)]
            return [a * p[0] + 0.02 * rng.nextGaussian(), a * p[1] + 0.02 * rng.nextGaussian()]
        }
    }

    @Test func defaultDTWPipelineStreamsWithNoOtherFlag() throws {
        var rng = SeededGenerator(seed: 11)
        var examples: [Example] = []
        for _ in 0..<10 {
            for c in 0..<2 { examples.append(Example(series: TimeSeries(frames: Self.gesture(c, &rng)), label: ["loop", "zigzag"][c])) }
        }
        let data = path("gestures.grt")
        try Dataset(examples: examples).write(to: data)
        let model = path("p.gesture")
        let t = try CLI.run(["train", data, "--classifier", "dtw", "-o", model])
        #expect(t.status == 0, "\(t.stderr)")

        // Rest, a zigzag, rest, a loop, rest: two detections in that order, nothing at rest.
        var frames: [[Float]] = Array(repeating: [0, 0], count: 150)
        frames += Self.gesture(1, &rng) + Array(repeating: [0, 0], count: 150)
        frames += Self.gesture(0, &rng) + Array(repeating: [0, 0], count: 150)
        let text = frames.map { $0.map { String($0) }.joined(separator: ",") }.joined(separator: "\n") + "\n"
        let s = try CLI.run(["stream", model, "--json"], stdin: Data(text.utf8))
        #expect(s.status == 0, "\(s.stderr)")
        let labels = s.stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["label"] as? String
        }
        #expect(labels == ["zigzag", "loop"], "\(s.stdout)")

        let r = try CLI.run(["evaluate", data, "--classifier", "dtw", "--spotting-replay", "--holdout", "2",
                             "--partitions", "2", "--gap", "100", "--still", "all", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let replayed = report?["partitions"] as? [[String: Any]] ?? []
        #expect(replayed.count == 6)
        // The two shapes lie far apart: classified whole, every held-out gesture is named rightly.
        #expect(replayed.allSatisfy { $0["gestures"] as? Int == 4 && $0["wholeCorrect"] as? Int == 4 }, "\(r.stdout)")
        let bad = try CLI.run(["evaluate", data, "--classifier", "dtw", "--spotting-replay", "--holdout", "10"])
        #expect(bad.status != 0 && bad.stderr.contains("holdout"))

        // Each class left out in turn: a loop is no zigzag, so the one learned class rejects it.
        let u = try CLI.run(["evaluate", data, "--classifier", "dtw", "--spotting-replay", "--unlearned", "--gap", "100", "--json"])
        #expect(u.status == 0, "\(u.stderr)")
        let unlearned = try JSONSerialization.jsonObject(with: Data(u.stdout.utf8)) as? [String: Any]
        let parts = unlearned?["partitions"] as? [[String: Any]] ?? []
        #expect(parts.compactMap { $0["unlearned"] as? String } == ["loop", "zigzag"], "\(u.stdout)")
        #expect(parts.allSatisfy { $0["gestures"] as? Int == 10 && $0["missed"] as? Int == 10 }, "\(u.stdout)")
        let plain = try CLI.run(["evaluate", data, "--classifier", "dtw", "--spotting-replay", "--unlearned", "--gap", "100"])
        #expect(plain.stdout.contains("total: 20 of 20 gestures of unlearned classes rejected"), "\(plain.stdout)")
        // --trace lists what went wrong, gesture by gesture; here nothing did (all 20 rejected).
        let traced = try CLI.run(["evaluate", data, "--classifier", "dtw", "--spotting-replay", "--unlearned", "--gap", "100", "--trace"])
        #expect(traced.stdout.hasSuffix("\nnothing to trace: every gesture as it should be (reported once with its label, or rejected if unlearned), no false detection\n"),
                "\(traced.stdout)")
        for flags in [["--spotting-replay", "--unlearned", "--holdout", "2"], ["--unlearned"], ["--partitions", "2"], ["--trace"]] {
            let r = try CLI.run(["evaluate", data, "--classifier", "dtw"] + flags)
            #expect(r.status == 64, "\(flags): \(r.stderr)")
        }
    }
}
