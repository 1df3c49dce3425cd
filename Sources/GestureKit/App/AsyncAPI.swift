import Foundation

extension Pipeline {
    /// Trains off the caller's thread; cancelling the calling task stops training at the next
    /// epoch, fold or stage boundary and throws `CancellationError`.
    /// - Parameters:
    ///   - spec: what to train.
    ///   - dataset: the labelled examples (unlabelled ones are skipped).
    ///   - progress: called on the training thread with each step.
    /// - Complexity: that of ``train(_:on:negatives:progress:isCancelled:)``.
    public static func training(_ spec: PipelineSpec, on dataset: Dataset,
                                progress: (@Sendable (TrainingProgress) -> Void)? = nil) async throws -> Pipeline {
        let flag = CancelFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Pipeline, Error>) in
                DispatchQueue.global(qos: .userInitiated).async {
                    c.resume(with: Result { try Pipeline.train(spec, on: dataset, progress: progress, isCancelled: flag.get) })
                }
            }
        } onCancel: { flag.set() }
    }

    /// The detections of this pipeline's live recogniser over `frames`, in order: exactly what
    /// pushing each frame to ``recognizer()`` gives. Ends when `frames` ends; throws on a bad
    /// frame or when the sequence throws.
    /// - Complexity: one ``Recognizer/push(_:)`` per frame.
    public func detections<S: AsyncSequence & Sendable>(from frames: S) -> AsyncThrowingStream<Detection, Error>
    where S.Element == [Float] {
        let pipeline = self
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var live = pipeline.recognizer()
                    for try await frame in frames {
                        if let d = try live.push(frame) { continuation.yield(d) }
                    }
                    for d in live.flush() { continuation.yield(d) }
                    continuation.finish()
                } catch { continuation.finish(throwing: error) }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

extension SwappableRecognizer {
    /// Like ``Pipeline/detections(from:)``, with hot swap: a pipeline offered to this recogniser's
    /// ``mailbox`` (from any thread) takes over at the next frame boundary; a refused offer is
    /// reported to `onRefused` and the running pipeline carries on.
    /// - Complexity: one ``push(_:)`` per frame plus an uncontended lock.
    public func detections<S: AsyncSequence & Sendable>(
        from frames: S, onRefused: (@Sendable (GestureKitError) -> Void)? = nil
    ) -> AsyncThrowingStream<Detection, Error> where S.Element == [Float] {
        let start = self
        return AsyncThrowingStream { continuation in
            let task = Task {
                var live = start
                do {
                    for try await frame in frames {
                        if case .refused(_, let why) = live.adoptOffered() { onRefused?(why) }
                        if let d = try live.push(frame) { continuation.yield(d) }
                    }
                    for d in live.flush() { continuation.yield(d) }
                    continuation.finish()
                } catch { continuation.finish(throwing: error) }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// Set once from a cancellation handler, read by the training loops.
private final class CancelFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    func set() { lock.lock(); cancelled = true; lock.unlock() }
    @Sendable func get() -> Bool { lock.lock(); defer { lock.unlock() }; return cancelled }
}
