import ArgumentParser
import Foundation
import GestureKit

struct Stream: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Recognise gestures live in a stream of samples.",
        discussion: """
            Frames are text lines (CSV or whitespace-separated values in the pipeline's channel order; an
            optional header row picks channels by name) from stdin, a file, UDP datagrams, or OSC messages
            whose float arguments are one frame (Wekinator's /wek/inputs on port 6448 by default).
            One line is printed per detection. Malformed lines are counted and reported, never fatal.
            """)

    @Argument(help: "A trained pipeline (.gesture).")
    var pipeline: String

    @Option(help: "Where frames come from: - (stdin), FILE, udp:PORT, osc:PORT[/address].")
    var input: String = "-"

    @Option(help: "Replay a file at this many frames per second (default: as fast as it is read).")
    var rate: Double?

    @Flag(help: "Print detections as JSON lines: frame, time, label, confidence, start.")
    var json = false

    @Flag(help: "Watch the pipeline file; when it is replaced, load it in the background and switch at a frame boundary.")
    var reload = false

    @Option(help: "Also send each detection as OSC to HOST:PORT.")
    var oscOut: String?

    @Option(help: "OSC address for --osc-out.")
    var oscAddress: String = OSCSender.wekinatorOutputAddress

    @Option(help: "Print at most this many malformed-line reports (all are counted).")
    var maxReports: Int = 10

    @Option(help: "Stop after this many frames.")
    var frames: Int?

    @Option(help: "Stop after this many seconds.")
    var seconds: Double?

    func validate() throws {
        if let rate, !(rate > 0) { throw ValidationError("--rate must be positive") }
        if let frames, frames < 1 { throw ValidationError("--frames must be positive") }
        if let seconds, !(seconds > 0) { throw ValidationError("--seconds must be positive") }
        if let o = oscOut, parseHostPort(o) == nil { throw ValidationError("--osc-out expects HOST:PORT, got \"\(o)\"") }
    }

    func run() throws {
        try reportingErrors {
            var current = try Pipeline.load(pipeline)
            try StreamSession.checkLive(current, file: pipeline)
            let reader = try FrameReader(try InputSpec(parsing: input), channelNames: current.channelNames, rate: rate)
            defer { reader.close() }
            let sender = try oscOut.flatMap(parseHostPort).map { try OSCSender(host: $0.host, port: $0.port, address: oscAddress) }
            var recognizer = current.liveRecognizer()
            var watcher = reload ? FileWatcher(path: pipeline, interval: .milliseconds(200)) : nil
            printStderr("streaming \(input == "-" ? "stdin" : input) through \(pipeline) (\(current.spec.classifier.kind), \(current.classes.count) classes, channels \(current.channelNames.joined(separator: ",")))\(reload ? ", watching it for changes" : "")")
            let pending = PendingReload()
            var frames = 0, detections = 0, reloads = 0
            let started = Date()
            let out = OutputBuffer()
            let stop = StopFlag()
            let signalSources = stop.install()
            defer { signalSources.forEach { $0.cancel() } }
            let frameLimit = self.frames ?? .max
            func timeUp() -> Bool {
                stop.isSet || (seconds.map { Date().timeIntervalSince(started) >= $0 } ?? false)
            }

            func checkReload() {
                if watcher?.changed() == true {
                    let path = pipeline
                    Thread.detachNewThread { pending.put(Result { try Pipeline.load(path) }) }
                }
                guard let result = pending.take() else { return }
                switch result {
                case .success(let next):
                    do {
                        guard next.channelNames.count == current.channelCount else {
                            throw GestureKitError("the new pipeline expects \(next.channelCount) channels, the stream has \(current.channelCount)", file: pipeline)
                        }
                        try StreamSession.checkLive(next, file: pipeline)
                        current = next
                        recognizer = next.liveRecognizer()
                        reloads += 1
                        out.flush()
                        printStderr("reloaded \(pipeline) at frame \(frames): \(next.spec.classifier.kind), classes \(next.classes.joined(separator: ", "))")
                    } catch {
                        printStderr("error: reload refused: \(error); keeping the previous pipeline")
                    }
                case .failure(let error):
                    printStderr("error: reload failed: \(error); keeping the previous pipeline")
                }
            }

            loop: while frames < frameLimit, let event = try reader.next(timeout: 0.05) {
                switch event {
                case .frame(let values):
                    let index = frames
                    frames += 1
                    if let d = try recognizer.push(values) {
                        detections += 1
                        out.write(json ? jsonLine(d, frame: index) : textLine(d, frame: index))
                        if let sender {
                            let number = Float((d.classIndex ?? -1) + 1)
                            let args: [OSCArgument] = [.float32(number), .float32(d.confidence), .string(d.label ?? "null")]
                            try sender.send(args)
                        }
                    }
                    if frames & 63 == 0 {
                        if reload { checkReload() }
                        if timeUp() { break loop }
                    }
                case .malformed(let bad):
                    if reader.malformedCount <= maxReports {
                        out.flush()
                        printStderr("warning: \(bad)")
                    }
                case .idle:
                    out.flush()
                    if reload { checkReload() }
                    if timeUp() { break loop }
                }
            }
            out.flush()
            let elapsed = Date().timeIntervalSince(started)
            let perSecond: Double = Double(frames) / max(elapsed, 1e-9)
            let counts = "\(frames) frames, \(detections) detections, \(reader.malformedCount) malformed, \(reloads) reloads"
            printStderr(counts + String(format: " in %.2f s (%.0f frames/s)", elapsed, perSecond))
        }
    }

    private func textLine(_ d: Detection, frame: Int) -> String {
        var s = "frame \(frame)"
        if let t = d.time { s += String(format: "  t=%.2fs", t) }
        return s + "  \(d.label ?? "null")  " + String(format: "%.3f", d.confidence) + "  (frames \(d.start)-\(d.end))"
    }

    private func jsonLine(_ d: Detection, frame: Int) -> String {
        let time = d.time.map { String(format: "%.6g", $0) } ?? "null"
        let label = d.label.map { "\"\(jsonEscape($0))\"" } ?? "null"
        return "{\"frame\":\(frame),\"time\":\(time),\"label\":\(label),\"confidence\":\(d.confidence),\"start\":\(d.start)}"
    }
}

enum StreamSession {
    /// Live recognition needs decisions while the stream runs: a window, or a classifier that spots.
    static func checkLive(_ p: Pipeline, file: String) throws {
        guard p.spec.window != nil || p.supportsSpotting else {
            throw GestureKitError("this pipeline classifies whole examples and cannot decide while a stream runs; train it with --window N [--hop H], or use a DTW pipeline without resampling or z-normalisation (as the default --classifier dtw), which spots", file: file)
        }
    }
}

func parseHostPort(_ s: String) -> (host: String, port: Int)? {
    guard let colon = s.lastIndex(of: ":"), let port = Int(s[s.index(after: colon)...]), (1...65535).contains(port) else { return nil }
    let host = String(s[..<colon])
    return (host.isEmpty ? "127.0.0.1" : host, port)
}

func jsonEscape(_ s: String) -> String {
    var out = ""
    for ch in s.unicodeScalars {
        switch ch {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case _ where ch.value < 0x20: out += String(format: "\\u%04x", ch.value)
        default: out.unicodeScalars.append(ch)
        }
    }
    return out
}

/// A pipeline loaded in the background, waiting for the stream loop to take it.
final class PendingReload: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Result<Pipeline, Error>?
    func put(_ r: Result<Pipeline, Error>) { lock.lock(); value = r; lock.unlock() }
    func take() -> Result<Pipeline, Error>? { lock.lock(); defer { value = nil; lock.unlock() }; return value }
}

/// Detections written to stdout in blocks: one write per idle moment instead of one per line.
final class OutputBuffer {
    private var data = Data()
    func write(_ line: String) {
        data.append(contentsOf: line.utf8)
        data.append(10)
        if data.count > 1 << 14 { flush() }
    }
    func flush() {
        guard !data.isEmpty else { return }
        FileHandle.standardOutput.write(data)
        data.removeAll(keepingCapacity: true)
    }
}
