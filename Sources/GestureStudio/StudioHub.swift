import Foundation
import GestureKit

/// The studio's live state, shared by the input thread, every page and the training task:
/// the channel layout, the live recogniser, the example being recorded and the connected pages.
///
/// Frames from any source (`--input`, a page's DeviceMotion) go through ``push(_:names:)``:
/// checked, numbered, sent to every page, added to the example being recorded, and pushed to the
/// recogniser, whose detections go to every page (and to `--osc-out`). A retrained pipeline takes
/// over at a frame boundary through ``SwappableRecognizer``, the path `stream --reload` uses.
///
/// - Complexity: ``push(_:names:)`` is one recogniser push plus one queued message per page,
///   under one lock; pages that fall behind lose their oldest frames (bounded queues).
public final class StudioHub: @unchecked Sendable {
    /// The class recorded by "rest": trained like any class, reported as silence.
    public static let restLabel = "rest"

    public let store: ProjectStore
    private let oscOut: OSCSender?
    /// Spec files offered beside the default pipelines, by name (`spec:NAME`).
    private let specs: [String: PipelineSpec]
    private let lock = NSLock()
    private var channelNames: [String]?
    private var live: SwappableRecognizer?
    private var frameCount = 0
    private var recording: (label: String, values: [Float])?
    /// The page that holds the record button; if it goes away mid-hold, the example is dropped.
    private var recordingClient: Int?
    private var examples: [ExampleInfo]
    private var clients: [Int: AsyncStream<String>.Continuation] = [:]
    private var nextClient = 0
    private var training = false
    private var lastID: Int64 = 0
    private var share: StateMessage.Share?
    /// The replay running now (see ``play(_:rate:)``); a newer replay or a recording ends it.
    private var replay: (generation: Int, id: String, label: String, start: Int, frames: Int, rate: Double)?
    private var replayGeneration = 0

    /// Opens the project: its recording fixes the channels, and its last trained pipeline (if it
    /// reads those channels and decides live) recognises from the first frame.
    package init(store: ProjectStore, oscOut: OSCSender? = nil, specs: [String: PipelineSpec] = [:]) throws {
        self.store = store
        self.oscOut = oscOut
        self.specs = specs
        examples = try store.examples()
        channelNames = try store.channels()
        if FileManager.default.fileExists(atPath: store.pipelinePath) {
            let p = try Pipeline.load(store.pipelinePath)
            if channelNames == nil || channelNames == p.channelNames, let l = try? SwappableRecognizer(p) {
                live = l
                channelNames = p.channelNames
            }
        }
    }

    // MARK: Pages

    /// The address a phone should open, shown on every page with its QR code, and with `--tls`
    /// the certificate's fingerprint to compare with what the phone's browser shows.
    public func setShareURL(_ url: String, fingerprint: String? = nil) {
        lock.withLock {
            share = QRCode(url).map { StateMessage.Share(url: url, qr: $0.rows, fingerprint: fingerprint) }
            broadcastLocked(stateMessage())
        }
    }

    /// Registers a page; its stream starts with the studio's state.
    public func connect() throws -> (id: Int, messages: AsyncStream<String>) {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(StudioLimits.clientQueue))
        return try lock.withLock {
            guard clients.count < StudioLimits.maxClients else { throw StudioError("too many pages are open") }
            let id = nextClient
            nextClient += 1
            clients[id] = continuation
            continuation.yield(stateMessage())
            return (id, stream)
        }
    }

    public func disconnect(_ id: Int) {
        let c = lock.withLock { clients.removeValue(forKey: id) }
        c?.finish()
        if lock.withLock({ recordingClient == id }) { try? stopRecording(keep: false) }
    }

    /// Handles one text message from page `client`; problems are said back to that page.
    public func receive(_ text: String, from client: Int) {
        do {
            switch try PageMessage(parsing: text) {
            case .motion(let frames):
                for f in frames { try push(f, names: MotionLayout.channels) }
            case .record(let label): try startRecording(label, by: client)
            case .stop: try stopRecording(keep: true)
            case .cancel: try stopRecording(keep: false)
            case .delete(let id): try delete(id)
            case .train(let request): try train(request)
            case .play(let id, let rate): try play(id, rate: rate)
            }
        } catch let e as StudioError {
            send(StudioOutbound.error(e.message), to: client)
        } catch let e as GestureKitError {
            send(StudioOutbound.error(e.description), to: client)
        } catch {
            send(StudioOutbound.error("\(error)"), to: client)
        }
    }

    private func send(_ message: String, to client: Int) {
        _ = lock.withLock { clients[client]?.yield(message) }
    }

    /// Call with the lock held.
    private func broadcastLocked(_ message: String) {
        for c in clients.values { c.yield(message) }
    }

    private func broadcast(_ message: String) { lock.withLock { broadcastLocked(message) } }

    // MARK: Frames

    /// One frame from a source whose channels are `names`. The first frame the studio sees fixes
    /// the layout (unless the project's recording already did); later frames must be as wide.
    /// - Throws: ``StudioError`` for a frame of another width or with a non-finite value.
    public func push(_ frame: [Float], names: [String]) throws {
        try lock.withLock {
            // A replay has the timeline: live frames would interleave with it on the plot.
            guard replay == nil else { return }
            if channelNames == nil {
                guard names.count == frame.count else { throw StudioError("frame has \(frame.count) values for \(names.count) channels") }
                channelNames = names
                broadcastLocked(stateMessage())
            }
            let channels = channelNames!
            guard frame.count == channels.count else {
                throw StudioError("frame has \(frame.count) values; this studio's channels are \(channels.joined(separator: ",")) (\(channels.count))")
            }
            guard frame.allSatisfy(\.isFinite) else { throw StudioError("frame holds a value that is not a finite number") }
            let (index, at) = showLocked(frame)
            if recording != nil, recording!.values.count < StudioLimits.maxExampleFrames * channels.count {
                recording!.values += frame
            }
            guard live != nil else { return }
            if let outcome = live!.adoptOffered() {
                switch outcome {
                case .swapped: broadcastLocked(stateMessage())
                case .refused(_, let why): broadcastLocked(StudioOutbound.error("the new pipeline was refused: \(why)"))
                }
            }
            guard let d = try live!.push(frame) else { return }
            broadcastDetectionLocked(d, index: index, recognizerFrames: live!.recognizer.frameCount, at: at)
            try? oscOut?.send([.float32(Float((d.classIndex ?? -1) + 1)), .float32(d.confidence), .string(d.label ?? "null")])
        }
    }

    /// Numbers a frame and sends it to every page. Call with the lock held.
    private func showLocked(_ frame: [Float]) -> (index: Int, at: Double) {
        let index = frameCount
        frameCount += 1
        let at = Date().timeIntervalSince1970 * 1000
        broadcastLocked(StudioOutbound.frame(index: index, at: at, values: frame))
        return (index, at)
    }

    /// Call with the lock held.
    private func broadcastDetectionLocked(_ d: Detection, index: Int, recognizerFrames: Int, at: Double) {
        // Recogniser frames count from its own start; place the detection on the studio's count.
        let shift = index - (recognizerFrames - 1)
        broadcastLocked(StudioOutbound.encode(StudioOutbound.DetectionMessage(
            label: d.label ?? "", confidence: d.confidence, start: d.start + shift, end: d.end + shift,
            frame: index, at: Int64(at))))
    }

    // MARK: Replay

    /// Replays saved example `id` onto every page's live view at `rate` frames/s, through a fresh
    /// recogniser of the current pipeline (if any), so the page shows what it detects. Writes
    /// nothing and sends no OSC (a replay is a check, not a performance); live frames are set aside
    /// until it ends. A newer replay replaces it; pressing record ends it.
    public func play(_ id: String, rate: Double) throws {
        guard let found = try store.series(id: id) else { throw StudioError("no example \(id)") }
        let (label, series) = found
        let (generation, recognizer): (Int, Recognizer?) = try lock.withLock {
            guard recording == nil else { throw StudioError("stop recording first") }
            guard series.channelCount == channelNames?.count else {
                throw StudioError("example \(id) has \(series.channelCount) channels; the live view has \(channelNames?.count ?? 0)")
            }
            endReplayLocked()
            replayGeneration += 1
            replay = (replayGeneration, id, label, frameCount, series.frameCount, rate)
            broadcastLocked(StudioOutbound.encode(ReplayMessage(id: id, label: label, frames: series.frameCount, rate: rate, start: frameCount)))
            return (replayGeneration, live?.pipeline.recognizer())
        }
        Task.detached { [self] in
            var recognizer = recognizer
            let clock = ContinuousClock(), start = clock.now, n = series.channelCount
            for k in 0..<series.frameCount {
                // On a schedule from the start, so the replay keeps its rate however long a push takes.
                try? await clock.sleep(until: start + .seconds(Double(k) / rate))
                let going: Bool = lock.withLock {
                    guard replay?.generation == generation else { return false }
                    let frame = Array(series.values[k * n..<(k + 1) * n])
                    let (index, at) = showLocked(frame)
                    if let d = try? recognizer?.push(frame) {
                        broadcastDetectionLocked(d, index: index, recognizerFrames: recognizer!.frameCount, at: at)
                    }
                    return true
                }
                if !going { return }
            }
            lock.withLock { if replay?.generation == generation { endReplayLocked() } }
        }
    }

    /// Call with the lock held.
    private func endReplayLocked() {
        guard let r = replay else { return }
        replay = nil
        broadcastLocked(StudioOutbound.encode(ReplayMessage(id: r.id, label: r.label, frames: r.frames, rate: r.rate, start: r.start, end: frameCount - 1)))
    }

    // MARK: Recording

    private func startRecording(_ label: String, by client: Int) throws {
        try lock.withLock {
            guard recording == nil else { throw StudioError("already recording \(recording!.label)") }
            guard !training else { throw StudioError("wait for training to finish") }
            endReplayLocked()
            recording = (label, [])
            recordingClient = client
            broadcastLocked(StudioOutbound.encode(RecordingState(label: label)))
        }
    }

    private func stopRecording(keep: Bool) throws {
        let (taken, channels): ((label: String, values: [Float])?, [String]?) = lock.withLock {
            defer { recording = nil; recordingClient = nil }
            broadcastLocked(StudioOutbound.encode(RecordingState(label: nil)))
            return (recording, channelNames)
        }
        guard keep, let taken else { return }
        guard let channels, taken.values.count >= 2 * channels.count else {
            throw StudioError("no frames arrived while recording \(taken.label); is a sensor streaming?")
        }
        let info = try store.append(taken.values, channels: channels, label: taken.label, id: newID())
        lock.withLock {
            examples.append(info)
            broadcastLocked(StudioOutbound.encode(ExamplesMessage(examples: examples)))
        }
    }

    /// `exMILLISECONDS`, strictly increasing within this run.
    private func newID() -> String {
        lock.withLock {
            lastID = max(lastID + 1, Int64(Date().timeIntervalSince1970 * 1000))
            return "ex\(lastID)"
        }
    }

    private func delete(_ id: String) throws {
        guard try store.delete(id: id) else { throw StudioError("no example \(id)") }
        let list = try store.examples()
        lock.withLock {
            examples = list
            broadcastLocked(StudioOutbound.encode(ExamplesMessage(examples: examples)))
        }
    }

    // MARK: Training

    private func train(_ request: TrainRequest) throws {
        let counts: [String: Int] = try lock.withLock {
            guard !training else { throw StudioError("already training") }
            guard recording == nil else { throw StudioError("stop recording first") }
            training = true
            return Dictionary(examples.map { ($0.label, 1) }, uniquingKeysWith: +)
        }
        let hasRest = counts[StudioHub.restLabel] != nil
        Task.detached { [self] in
            do {
                guard counts.keys.filter({ $0 != StudioHub.restLabel }).count + (hasRest ? 1 : 0) >= 2 else {
                    throw StudioError("record at least two classes (rest counts as one) before training")
                }
                let spec = try StudioHub.spec(for: request, rest: hasRest ? StudioHub.restLabel : nil, specs: specs)
                try await runTraining(spec)
            } catch {
                broadcast(StudioOutbound.encode(TrainingMessage(state: "failed", message: "\(error)")))
            }
            lock.withLock { training = false }
        }
    }

    /// The default pipeline of `request.classifier` (or the spec file of that name), with the
    /// request's window and the rest class.
    static func spec(for request: TrainRequest, rest: String?, specs: [String: PipelineSpec] = [:]) throws -> PipelineSpec {
        let base = try specs[request.classifier] ?? DefaultSpecs.pipeline(named: request.classifier).spec
        return try base.applying(PipelineSpec.Overrides(window: request.window, rest: rest))
    }

    private func runTraining(_ spec: PipelineSpec) async throws {
        broadcast(StudioOutbound.encode(TrainingMessage(state: "started", message: "training \(spec.classifier.kind)")))
        let data = try store.dataset(window: spec.window)
        let pipeline = try await Pipeline.training(spec, on: data, progress: { [self] p in
            broadcast(StudioOutbound.encode(TrainingMessage(state: "progress", message: p.description)))
        })
        guard pipeline.decidesLive else {
            throw StudioError("a \(spec.classifier.kind) pipeline needs a window to recognise live; set one")
        }
        try pipeline.save(to: store.pipelinePath)
        lock.withLock {
            if live == nil || channelNames != pipeline.channelNames {
                live = try? SwappableRecognizer(pipeline)
                channelNames = pipeline.channelNames
                broadcastLocked(stateMessage())
            } else {
                live!.mailbox.offer(pipeline)
            }
        }
        broadcast(StudioOutbound.encode(TrainingMessage(
            state: "trained",
            message: String(format: "trained %@ on %d examples in %.2f s; cross-validating", spec.classifier.kind, pipeline.training.examples, pipeline.training.seconds))))
        let sessions = Set(data.examples.compactMap(\.session)).count
        let folds = min(5, sessions)
        guard folds >= 2 else {
            broadcast(StudioOutbound.encode(TrainingMessage(state: "done", message: "too few examples to cross-validate")))
            return
        }
        do {
            let report = try await withCheckedThrowingContinuation { (c: CheckedContinuation<ClassificationReport, Error>) in
                DispatchQueue.global(qos: .userInitiated).async {
                    c.resume(with: Result { try Evaluation.crossValidate(spec, on: data, folds: folds, groupBy: .session) })
                }
            }
            var m = TrainingMessage(state: "done", message: String(format: "%d-fold cross-validation by example: accuracy %.1f%%", folds, report.accuracy * 100))
            m.accuracy = report.accuracy
            m.confusion = report.confusion
            broadcast(StudioOutbound.encode(m))
        } catch {
            broadcast(StudioOutbound.encode(TrainingMessage(state: "done", message: "cross-validation not possible: \(error)")))
        }
    }

    // MARK: State messages

    struct RecordingState: Encodable {
        var t = "recording"
        var label: String?
    }

    /// A replay starting (no `end`) or ended, on the studio's frame count.
    struct ReplayMessage: Encodable {
        var t = "replay"
        var id: String
        var label: String
        var frames: Int
        var rate: Double
        var start: Int
        var end: Int?
    }

    struct ExamplesMessage: Encodable {
        var t = "examples"
        var examples: [ExampleInfo]
    }

    struct TrainingMessage: Encodable {
        var t = "training"
        var state: String
        var message: String
        var accuracy: Double?
        var confusion: ClassificationReport.Confusion?
    }

    struct StateMessage: Encodable {
        var t = "state"
        var channels: [String]?
        var examples: [ExampleInfo]
        var classifiers: [String]
        var model: Model?
        var recording: String?
        var training: Bool
        var frames: Int
        var rest = StudioHub.restLabel
        var motionChannels = MotionLayout.channels
        var share: Share?

        struct Share: Encodable {
            var url: String
            /// QR code modules, one string of "0"/"1" per row.
            var qr: [String]
            /// SHA-256 of the `--tls` certificate, colon-separated hex.
            var fingerprint: String?
        }

        struct Model: Encodable {
            var kind: String
            var classes: [String]
            var window: Int?
        }
    }

    /// Call with the lock held.
    private func stateMessage() -> String {
        let model = live.map { l in
            StateMessage.Model(kind: l.pipeline.spec.classifier.kind, classes: l.pipeline.classes, window: l.pipeline.spec.window?.size)
        }
        return StudioOutbound.encode(StateMessage(channels: channelNames, examples: examples, classifiers: DefaultSpecs.names + specs.keys.sorted(),
                                                  model: model, recording: recording?.label, training: training, frames: frameCount,
                                                  share: share))
    }
}
