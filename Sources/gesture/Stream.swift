import ArgumentParser
import Foundation
import GestureCLISupport
import GestureKit

struct Stream: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Recognise gestures live in a stream of samples.",
        discussion: """
            Frames are text lines (CSV or whitespace-separated values in the pipeline's channel order; an \
            optional header row picks channels by name) from stdin (without --input), a file, UDP \
            datagrams, or OSC messages whose float arguments are one frame (Wekinator's /wek/inputs on \
            port 6448 by default). \
            One line is printed per detection. Malformed lines are counted and reported, never fatal. \
            At the end a summary goes to stderr: frames, detections, malformed lines, reloads and, for \
            UDP/OSC on Linux, datagrams the kernel dropped because they came faster than they were read.
            """)

    @Argument(help: "A trained pipeline (.gesture).")
    var pipeline: String

    @OptionGroup var source: InputOption

    @Option(help: "Replay a file at this many frames per second (default: as fast as it is read).")
    var rate: Double?

    @Flag(help: "Print detections as JSON lines: frame, time, label, confidence, start.")
    var json = false

    @Flag(help: "Watch the pipeline file; when it is replaced, load it in the background and switch at a frame boundary.")
    var reload = false

    @OptionGroup var osc: OSCOutOptions

    @Option(help: "Print at most this many malformed-line reports (all are counted).")
    var maxReports: Int = 10

    @OptionGroup var limits: StopOptions

    func validate() throws {
        if let rate, !(rate > 0) { throw ValidationError("--rate must be positive") }
    }

    func run() throws {
        try reportingErrors {
            // Watch before loading and before saying so: a replacement from then on is seen (under
            // load one slipped in between the message and the watcher's first look, and was missed).
            let watcher = reload ? FileWatcher(path: pipeline, interval: .milliseconds(200)) : nil
            var live: SwappableRecognizer
            do { live = try SwappableRecognizer(try Pipeline.load(pipeline)) } catch let e as GestureKitError { throw e.inFile(pipeline) }
            let first = live.pipeline
            let reader = try FrameReader(try InputSpec(parsing: source.text), channelNames: first.channelNames, rate: rate)
            defer { reader.close() }
            let sender = try osc.sender()
            var session = Session(reload: watcher.map { Reloader(path: pipeline, mailbox: live.mailbox, watcher: $0) })
            printStderr("streaming \(source.text == "-" ? "stdin" : source.text) through \(pipeline) (\(first.spec.classifier.kind), \(first.classes.count) classes, channels \(first.channelNames.joined(separator: ",")))\(reload ? ", watching it for changes" : "")")
            let stop = StopFlag()
            let signalSources = stop.install()
            defer { signalSources.forEach { $0.cancel() } }
            let frameLimit = limits.frames ?? .max
            func timeUp() -> Bool {
                stop.isSet || (limits.seconds.map { Date().timeIntervalSince(session.started) >= $0 } ?? false)
            }
            func emit(_ d: Detection, frame index: Int) throws {
                session.detections += 1
                session.out.write(json ? jsonLine(d, frame: index) : textLine(d, frame: index))
                try sender?.send([.float32(Float((d.classIndex ?? -1) + 1)), .float32(d.confidence), .string(d.label ?? "null")])
            }

            loop: while session.frames < frameLimit, let event = try reader.next(timeout: 0.05) {
                switch event {
                case .frame(let values):
                    let index = session.frames
                    session.frames += 1
                    if let d = try live.push(values) { try emit(d, frame: index) }
                    if session.frames & 63 == 0 {
                        session.checkReload(&live)
                        if timeUp() { break loop }
                    }
                case .malformed(let bad):
                    if reader.malformedCount <= maxReports {
                        session.out.flush()
                        printStderr("warning: \(bad)")
                    }
                case .idle:
                    session.out.flush()
                    session.checkReload(&live)
                    if timeUp() { break loop }
                }
            }
            if !timeUp() {
                for d in live.flush() { try emit(d, frame: session.frames - 1) }
            }
            session.out.flush()
            let elapsed = Date().timeIntervalSince(session.started)
            let perSecond: Double = Double(session.frames) / max(elapsed, 1e-9)
            var counts = "\(session.frames) frames, \(session.detections) detections, \(reader.malformedCount) malformed, \(session.reloads) reloads"
            // Datagrams that never reached us (receive queue full); Linux reports them, Darwin cannot.
            if let drops = reader.kernelDrops {
                counts += ", \(drops) datagrams dropped by the kernel"
            } else if reader.port != nil {
                counts += ", kernel drops not reported on this platform"
            }
            printStderr(counts + String(format: " in %.2f s (%.0f frames/s)", elapsed, perSecond))
        }
    }

    /// Counters and output of one `stream` run.
    struct Session {
        let reload: Reloader?
        var frames = 0, detections = 0, reloads = 0
        let started = Date()
        let out = OutputBuffer()

        /// Takes over a reloaded pipeline at this frame boundary, or says why not.
        mutating func checkReload(_ live: inout SwappableRecognizer) {
            guard let reload else { return }
            reload.poll()
            switch live.adoptOffered() {
            case .swapped(let next):
                reloads += 1
                out.flush()
                printStderr("reloaded \(reload.path) at frame \(frames): \(next.spec.classifier.kind), classes \(next.classes.joined(separator: ", "))")
            case .refused(_, let why):
                printStderr("error: reload refused: \(why.inFile(reload.path)); keeping the previous pipeline")
            case nil:
                break
            }
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
        do { _ = try SwappableRecognizer(p) } catch let e as GestureKitError { throw e.inFile(file) }
    }
}

/// Watches the pipeline file; a replaced file is loaded on a background thread and offered to the
/// stream, which takes it over at a frame boundary. A file that fails to load is reported and skipped.
final class Reloader: @unchecked Sendable {
    let path: String
    let mailbox: SwappableRecognizer.Mailbox
    private var watcher: FileWatcher

    init(path: String, mailbox: SwappableRecognizer.Mailbox, watcher: FileWatcher) {
        self.path = path
        self.mailbox = mailbox
        self.watcher = watcher
    }

    func poll() {
        guard watcher.changed() else { return }
        let (path, mailbox) = (self.path, self.mailbox)
        Thread.detachNewThread {
            do { mailbox.offer(try Pipeline.load(path)) } catch {
                printStderr("error: reload failed: \(error); keeping the previous pipeline")
            }
        }
    }
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
