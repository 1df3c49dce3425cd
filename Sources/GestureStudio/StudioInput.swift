import Foundation
import GestureKit

/// Feeds `--input` (stdin, a file, udp:PORT, osc:PORT) into the hub on its own thread, with the
/// same ``FrameReader`` that `gesture stream` and `gesture record` use. Malformed lines are
/// counted by the reader and the first few reported to `report`; the studio keeps serving when a
/// finite input ends.
public final class StudioInput: @unchecked Sendable {
    private let reader: FrameReader
    private let hub: StudioHub
    private let report: @Sendable (String) -> Void
    private let lock = NSLock()
    private var stopped = false

    /// - Throws: when the input cannot be opened (a missing file, a port in use).
    package init(_ spec: InputSpec, hub: StudioHub, channelNames: [String], rate: Double?, report: @escaping @Sendable (String) -> Void) throws {
        reader = try FrameReader(spec, channelNames: channelNames, rate: rate)
        self.hub = hub
        self.report = report
    }

    /// The port a udp/osc input bound.
    public var port: Int? { reader.port }

    public func start() {
        Thread.detachNewThread { [self] in run() }
    }

    public func stop() { lock.withLock { stopped = true } }

    private func run() {
        var reported = 0
        defer { reader.close() }
        do {
            while !lock.withLock({ stopped }), let event = try reader.next(timeout: 0.1) {
                switch event {
                case .frame(let values):
                    do { try hub.push(values, names: reader.channelNames) } catch {
                        reported += 1
                        if reported <= 10 { report("warning: \(reader.spec): \(error)") }
                    }
                case .malformed(let bad):
                    reported += 1
                    if reported <= 10 { report("warning: \(bad)") }
                case .idle:
                    continue
                }
            }
            if reader.spec.isFinite { report("input \(reader.spec) ended after \(reader.framesRead) frames") }
        } catch {
            report("error: input \(reader.spec): \(error)")
        }
    }
}
