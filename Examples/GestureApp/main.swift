// The core loop of a gesture app, without UI: a "sensor" plays a recording at 50 Hz, the user holds
// a Train button for two gestures with rest between, the app trains in the background, recognises
// live, and swaps in a pipeline retrained on more data without stopping the stream.
// Run: swift run -c release GestureAppExample [path/to/BasicMotions_TRAIN.ts] [--fast]
import Foundation
import GestureKit

let args = CommandLine.arguments.dropFirst()
let fast = args.contains("--fast")
let path = args.first { !$0.hasPrefix("--") } ?? "datasets/basicmotions/BasicMotions_TRAIN.ts"
let source = try Dataset.load(path)
let gestures = ["Running", "Badminton"], restClass = "Standing"
func takes(_ label: String) -> [Example] { source.examples.filter { $0.label == label } }

/// A motion sensor: delivers frames at 50 Hz (the rate of a phone's motion updates).
func sensor(_ frames: [[Float]]) -> AsyncStream<[Float]> {
    AsyncStream { c in
        let task = Task {
            for f in frames {
                if !fast { try? await Task.sleep(for: .milliseconds(20)) }
                c.yield(f)
            }
            c.finish()
        }
        c.onTermination = { _ in task.cancel() }
    }
}
func frames(_ e: Example) -> [[Float]] { (0..<e.series.frameCount).map { Array(e.series.frame($0)) } }

// 1. Record: the button sets the label while held; frames without it are rest.
func record(takes n: Range<Int>, after earlier: GestureRecorder? = nil) async throws -> GestureRecorder {
    var recorder = earlier ?? GestureRecorder(channelNames: source.channelNames, sampleRate: 50, rest: "rest")
    for i in n {
        for g in gestures {
            recorder.label = nil                                 // button up: rest
            for try await f in sensor(Array(frames(takes(restClass)[i]).prefix(40))) { try recorder.push(f) }
            recorder.label = g                                   // button held
            for try await f in sensor(frames(takes(g)[i])) { try recorder.push(f) }
        }
    }
    recorder.label = nil
    return recorder
}

let spec = try DefaultSpecs.build(classifier: "knn", specFile: nil,
                                  overrides: .init(window: .init(size: 20, hop: 10), rest: "rest"))
let recorder = try await record(takes: 0..<2)
print("recorded \(recorder.frameCount) frames: \(recorder.dataset.classCounts.map { "\($0.label) x\($0.count)" }.joined(separator: ", "))")
try recorder.save(to: NSTemporaryDirectory() + "gesture-example.csv")  // kept for later, as an app would

// 2. Train off the main thread, with progress.
let first = try await Pipeline.training(spec, on: recorder.dataset) { print("  training: \($0)") }

// 3. Recognise live; 4. meanwhile record more takes, retrain, and offer the new pipeline.
let live = try SwappableRecognizer(first)
let mailbox = live.mailbox
let test = [takes("Running")[5], takes(restClass)[5], takes("Badminton")[5], takes("Running")[6], takes("Badminton")[6]]
let retrain = Task {
    let more = try await record(takes: 2..<3, after: recorder)   // one more take of each
    let second = try await Pipeline.training(spec, on: more.dataset)
    print("offering a pipeline trained on \(second.training.examples) examples")
    mailbox.offer(second)
}
var last: String?? = .none
var shown = 0
for try await d in live.detections(from: sensor(test.flatMap(frames))) {
    if d.label != last { print("frame \(d.end): \(d.label ?? "(rest)")  confidence \(String(format: "%.2f", d.confidence))"); shown += 1 }
    last = d.label
}
try await retrain.value
print("live stream ended after \(test.count) takes; \(shown) changes of label shown")
