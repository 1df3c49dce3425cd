import Foundation

/// A live recogniser whose pipeline can be replaced while the stream runs, without stopping it: a
/// retrained or downloaded pipeline is offered from any thread and takes over at a frame boundary,
/// when the stream's owner calls ``adoptOffered()``.
///
/// ```swift
/// var live = try SwappableRecognizer(pipeline)
/// let mailbox = live.mailbox              // hand this to the thread that trains or downloads
/// for frame in sensor {
///     if case .refused(_, let why) = live.adoptOffered() { log(why) }
///     if let d = try live.push(frame) { show(d) }
/// }
/// ```
/// - Complexity: ``adoptOffered()`` is one uncontended lock when nothing is offered; a swap costs
///   making a fresh ``Recognizer``. ``push(_:)`` costs what ``Recognizer/push(_:)`` costs.
public struct SwappableRecognizer: Sendable {
    /// The recogniser running now.
    public private(set) var recognizer: Recognizer
    /// Where new pipelines are offered; safe to use from any thread.
    public let mailbox = Mailbox()

    /// What ``adoptOffered()`` did with an offered pipeline.
    public enum Outcome: Sendable {
        /// The offered pipeline took over.
        case swapped(Pipeline)
        /// The offered pipeline cannot take over this stream; the running one carries on.
        case refused(Pipeline, GestureKitError)
    }

    /// The latest pipeline offered and not yet adopted (an older offer is replaced by a newer one).
    public final class Mailbox: @unchecked Sendable {
        private let lock = NSLock()
        private var offered: Pipeline?

        /// Offers `pipeline` to the stream; replaces an offer not yet adopted. Safe from any thread.
        public func offer(_ pipeline: Pipeline) {
            lock.lock()
            offered = pipeline
            lock.unlock()
        }

        func take() -> Pipeline? {
            lock.lock()
            defer { offered = nil; lock.unlock() }
            return offered
        }
    }

    /// - Throws: when `pipeline` cannot decide while a stream runs (see ``Pipeline/decidesLive``).
    public init(_ pipeline: Pipeline) throws {
        try SwappableRecognizer.checkLive(pipeline)
        recognizer = pipeline.recognizer()
    }

    /// The pipeline running now.
    public var pipeline: Pipeline { recognizer.pipeline }

    /// Switches to the pipeline offered last, if any: it must read the same channels and decide
    /// live. The new recogniser starts fresh (filter history and post-processing state are not
    /// carried over, as they belong to the old stages).
    public mutating func adoptOffered() -> Outcome? {
        guard let next = mailbox.take() else { return nil }
        do {
            guard next.channelNames == pipeline.channelNames else {
                throw GestureKitError("the offered pipeline reads channels \(next.channelNames.joined(separator: ",")), the stream has \(pipeline.channelNames.joined(separator: ","))", field: "channelNames")
            }
            try SwappableRecognizer.checkLive(next)
        } catch let e as GestureKitError {
            return .refused(next, e)
        } catch {
            return .refused(next, GestureKitError("\(error)"))
        }
        recognizer = next.recognizer()
        return .swapped(next)
    }

    /// The buffer form of ``push(_:)``; package-only, as ``Recognizer``'s.
    package mutating func push(_ frame: UnsafeBufferPointer<Float>) throws -> Detection? {
        try recognizer.push(frame)
    }

    /// Pushes one frame through the running pipeline (see ``Recognizer/push(_:)``).
    public mutating func push(_ frame: [Float]) throws -> Detection? {
        try recognizer.push(frame)
    }

    /// The input has ended (see ``Recognizer/flush()``).
    public mutating func flush() -> [Detection] { recognizer.flush() }

    /// Live recognition needs decisions while the stream runs: a window, or a classifier that spots.
    static func checkLive(_ p: Pipeline) throws {
        guard p.decidesLive else {
            throw GestureKitError("this pipeline classifies whole examples and its file predates live decisions for them; train it again (or with --window SIZE[,HOP])", field: "spec.features.window")
        }
    }
}
