#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A line (or OSC message) that could not become a frame, and why. Reported, never fatal.
package struct MalformedInput: Sendable, Hashable, CustomStringConvertible {
    /// The source's name (`stdin`, the file path, `udp:127.0.0.1:9000`, ...).
    package var source: String
    /// 1-based line number for text sources (counting every line, header and blanks included),
    /// or 1-based message number for OSC (counting every message received, bundles unpacked).
    package var line: Int
    /// What is wrong, e.g. `expected 6 values, found 5`.
    package var reason: String

    /// A malformed input; every parameter is the property of the same name.
    package init(source: String, line: Int, reason: String) {
        self.source = source
        self.line = line
        self.reason = reason
    }

    /// `source:line: reason`.
    package var description: String { "\(source):\(line): \(reason)" }

    /// The same report as an error, for callers that want to stop on the first bad line.
    package var error: GestureKitError { GestureKitError(reason, file: source, line: line) }
}

/// What ``FrameSource/next(timeout:)`` produced.
package enum FrameEvent: Sendable, Hashable {
    /// One frame, `channelNames.count` values in channel order. The reader reuses this array's
    /// storage for the next frame, so keeping it past the next call costs one copy.
    case frame([Float])
    /// A line or message that was skipped; the reader's `malformedCount` has been incremented.
    case malformed(MalformedInput)
    /// The timeout passed with no frame (the source is still open).
    case idle
}

/// Anything that yields frames of a known channel layout, one at a time, from a loop.
///
/// ```swift
/// while let event = try source.next(timeout: 0.1) {
///     switch event {
///     case .frame(let values): recognizer.push(values)
///     case .malformed(let bad): log(bad)
///     case .idle: if watcher.changed() { reload() }
///     }
/// }
/// // nil: the input ended (end of file / stdin closed, or the source was closed)
/// ```
package protocol FrameSource: AnyObject {
    /// Channel names in frame order; empty until the first line when they are inferred.
    var channelNames: [String] { get }
    /// The next event, waiting at most `timeout` seconds (nil = until something happens, 0 = poll).
    /// Returns nil when the input has ended.
    func next(timeout: Double?) throws -> FrameEvent?
}

/// Reads frames from standard input, a file, UDP datagrams of text lines, or OSC over UDP.
///
/// Text lines are parsed by ``InputLineParser`` (CSV or whitespace, optional header picking
/// channels by name). OSC messages whose address matches the spec's pattern give one frame each
/// from their numeric arguments (`f i d h`, in order); bundles (nested too) are unpacked, time
/// tags ignored (delivered on arrival). Bad lines and messages are counted and reported as
/// ``FrameEvent/malformed(_:)``; only unusable configuration (missing header column, unreadable
/// file, port in use) throws.
///
/// Network sources never end by themselves: drive them with a timeout and call ``close()``.
///
/// - Complexity: each ``next(timeout:)`` is O(bytes consumed); no allocation per frame once
///   warmed up (reasons of malformed lines allocate).
package final class FrameReader: FrameSource {
    /// Where the frames come from.
    package let spec: InputSpec
    /// Replay pacing in frames per second (files and stdin only).
    package let rate: Double?
    /// For `udp`/`osc` sources, the port actually bound (useful after asking for port 0).
    package let port: Int?

    /// Frames returned so far.
    package private(set) var framesRead = 0
    /// Malformed lines/messages reported so far.
    package private(set) var malformedCount = 0
    /// The most recent malformed report.
    package private(set) var lastMalformed: MalformedInput?
    /// OSC messages skipped because their address did not match (not malformed).
    package private(set) var ignoredMessages = 0
    /// For `udp`/`osc` sources on Linux, datagrams the kernel dropped because they arrived faster
    /// than they were read (the socket's receive queue was full). The kernel reports the count
    /// with later datagrams, so drops at the very end of a burst appear with the next one. nil
    /// for files and stdin, and on Darwin, which does not report drops per socket.
    package var kernelDrops: Int? {
        switch transport {
        case let .datagram(s), let .osc(s, _): s.kernelDrops
        case .stream: nil
        case .closed: dropsAtClose
        }
    }
    private var dropsAtClose: Int?

    package var channelNames: [String] {
        if case .osc = transport { return oscChannelNames }
        return parser.channelNames
    }

    /// The input's header columns, when a text input had a header row.
    package var header: [String]? { parser.header }

    private enum Transport {
        case stream(fd: Int32, owned: Bool)
        case datagram(UDPSocket)
        case osc(UDPSocket, pattern: [UInt8])
        case closed
    }

    private enum LineStep { case line(Range<Int>), timeout, end, tooLong }
    private enum Pending { case frame(Int), malformed(MalformedInput) }

    private var transport: Transport
    private let name: String
    private var parser: InputLineParser
    private var frame: [Float] = []

    private var buffer: UnsafeMutableRawBufferPointer
    private var start = 0, end = 0
    private var streamEnded = false
    private var lineNumber = 0
    private var skippingLongLine = false
    private static let maxLineBytes = 1 << 20

    private var pacingStart: UInt64?
    private var framePending = false

    private var oscChannelNames: [String]
    private var messageNumber = 0
    private var pendingValues: [Float] = []
    private var pendingEvents: [Pending] = []
    private var pendingIndex = 0

    /// Opens `spec`.
    /// - Parameters:
    ///   - spec: where frames come from (stdin, a file, UDP or OSC).
    ///   - channelNames: the expected channels in order (a text header then picks them by name);
    ///     empty to take the layout from the input.
    ///   - rate: replay a file or stdin at this many frames per second, paced from the first
    ///     frame's time so it does not drift; nil = as fast as it can be read.
    /// - Throws: ``GestureKitError`` when the file cannot be opened, the port cannot be bound, or
    ///   `rate` is given for a network source or is not positive.
    package init(_ spec: InputSpec, channelNames: [String] = [], rate: Double? = nil) throws {
        if let rate {
            guard rate.isFinite, rate > 0 else { throw GestureKitError("rate must be a positive number of Hz, found \(rate)", field: "rate") }
            guard spec.isFinite else { throw GestureKitError("--rate paces a file or stdin replay; \(spec) is paced by its sender", field: "rate") }
        }
        self.spec = spec
        self.rate = rate
        self.name = spec.description
        self.parser = InputLineParser(channelNames: channelNames)
        self.oscChannelNames = channelNames
        var bufferSize = 1 << 16
        switch spec {
        case .stdin:
            transport = .stream(fd: 0, owned: false)
            port = nil
        case let .file(path):
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else { throw GestureKitError("cannot open: \(errnoText())", file: path) }
            transport = .stream(fd: fd, owned: true)
            port = nil
        case let .udp(host, p):
            let s = try UDPSocket()
            try s.bind(host: host, port: p)
            s.countKernelDrops()
            transport = .datagram(s)
            port = s.localPort
        case let .osc(host, p, address):
            let s = try UDPSocket()
            try s.bind(host: host, port: p)
            s.countKernelDrops()
            transport = .osc(s, pattern: Array(address.utf8))
            port = s.localPort
            bufferSize = 65536
        }
        buffer = .allocate(byteCount: bufferSize, alignment: 8)
        frame.reserveCapacity(max(channelNames.count, 16))
    }

    /// Reads text lines from an open file descriptor (a pipe in tests, a socket pair); the caller
    /// keeps ownership of `fd`.
    package init(fileDescriptor fd: Int32, name: String, channelNames: [String] = [], rate: Double? = nil) throws {
        if let rate {
            guard rate.isFinite, rate > 0 else { throw GestureKitError("rate must be a positive number of Hz, found \(rate)", field: "rate") }
        }
        spec = .file(name)
        self.rate = rate
        self.name = name
        port = nil
        parser = InputLineParser(channelNames: channelNames)
        oscChannelNames = channelNames
        transport = .stream(fd: fd, owned: false)
        buffer = .allocate(byteCount: 1 << 16, alignment: 8)
    }

    deinit {
        close()
        buffer.deallocate()
    }

    /// Releases the file or socket; later ``next(timeout:)`` calls return nil.
    package func close() {
        dropsAtClose = kernelDrops
        if case let .stream(fd, true) = transport { _ = systemClose(fd) }
        transport = .closed
    }

    /// The next frame, malformed report, or `.idle` after `timeout` seconds without a frame.
    ///
    /// - Parameter timeout: seconds to wait at most; nil waits until something happens (for a
    ///   network source: forever), 0 only takes what is already available.
    /// - Returns: nil when a file/stdin has ended or the reader was closed.
    /// - Throws: ``GestureKitError`` for a header that lacks an expected channel, or a read error.
    /// - Complexity: O(bytes consumed) plus the wait; no allocation per frame.
    package func next(timeout: Double? = nil) throws -> FrameEvent? {
        let deadline = timeout.map { monotonicNanos() &+ UInt64(max(0, $0) * 1e9) }
        if framePending { return pace(until: deadline) }
        switch transport {
        case .closed:
            return nil
        case .stream, .datagram:
            while true {
                switch try nextLine(until: deadline) {
                case .timeout:
                    return .idle
                case .end:
                    return nil
                case .tooLong:
                    lineNumber += 1
                    return reportMalformed("line longer than \(Self.maxLineBytes) bytes", at: lineNumber)
                case let .line(range):
                    lineNumber += 1
                    let kind: InputLineParser.LineKind
                    do {
                        kind = try parser.parse(UnsafeRawBufferPointer(rebasing: buffer[range]), into: &frame)
                    } catch let e as GestureKitError {
                        var e = e
                        e.file = name
                        e.line = lineNumber
                        throw e
                    }
                    switch kind {
                    case .frame:
                        if rate != nil {
                            framePending = true
                            return pace(until: deadline)
                        }
                        framesRead += 1
                        return .frame(frame)
                    case .header, .skipped:
                        continue
                    case let .malformed(reason):
                        return reportMalformed(reason, at: lineNumber)
                    }
                }
            }
        case let .osc(socket, pattern):
            while true {
                if pendingIndex < pendingEvents.count {
                    let e = pendingEvents[pendingIndex]
                    pendingIndex += 1
                    switch e {
                    case let .frame(offset):
                        let n = oscChannelNames.count
                        if frame.count != n { frame = [Float](repeating: 0, count: n) }
                        frame.withUnsafeMutableBufferPointer { out in
                            pendingValues.withUnsafeBufferPointer { src in
                                for c in 0..<n { out[c] = src[offset + c] }
                            }
                        }
                        framesRead += 1
                        return .frame(frame)
                    case let .malformed(m):
                        malformedCount += 1
                        lastMalformed = m
                        return .malformed(m)
                    }
                }
                guard let n = try socket.receive(into: buffer, until: deadline) else { return .idle }
                decodeOSC(UnsafeRawBufferPointer(rebasing: buffer[0..<n]), pattern: pattern)
            }
        }
    }

    // MARK: - Text lines

    private func reportMalformed(_ reason: String, at line: Int) -> FrameEvent {
        let m = MalformedInput(source: name, line: line, reason: reason)
        malformedCount += 1
        lastMalformed = m
        return .malformed(m)
    }

    /// Waits for the current frame's slot on the replay clock (frame k at start + k / rate).
    private func pace(until deadline: UInt64?) -> FrameEvent {
        let now = monotonicNanos()
        if pacingStart == nil { pacingStart = now }
        let due = pacingStart! &+ UInt64((Double(framesRead) / rate! * 1e9).rounded())
        if due > now {
            if let deadline, deadline < due {
                sleepUntil(nanos: deadline)
                return .idle
            }
            sleepUntil(nanos: due)
        }
        framePending = false
        framesRead += 1
        return .frame(frame)
    }

    private func nextLine(until deadline: UInt64?) throws -> LineStep {
        while true {
            if start < end, let nl = findNewline() {
                let range = start..<nl
                start = nl + 1
                if skippingLongLine {
                    skippingLongLine = false
                    continue
                }
                return .line(range)
            }
            switch transport {
            case let .stream(fd, _):
                if streamEnded {
                    if start < end && !skippingLongLine {
                        let range = start..<end
                        start = end
                        return .line(range)
                    }
                    return .end
                }
                if skippingLongLine {
                    start = 0; end = 0
                } else if start > 0 {
                    // Keep the partial line at the front.
                    let n = end - start
                    if n > 0 { buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: n) }
                    start = 0; end = n
                }
                if end == buffer.count {
                    if buffer.count < Self.maxLineBytes {
                        let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.count * 2, alignment: 8)
                        bigger.baseAddress!.copyMemory(from: buffer.baseAddress!, byteCount: end)
                        buffer.deallocate()
                        buffer = bigger
                    } else {
                        skippingLongLine = true
                        start = 0; end = 0
                        return .tooLong
                    }
                }
                guard waitReadable(fd, until: deadline) else { return .timeout }
                let n = read(fd, buffer.baseAddress! + end, buffer.count - end)
                if n > 0 {
                    end += n
                } else if n == 0 {
                    streamEnded = true
                } else if errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK {
                    throw GestureKitError("read failed: \(errnoText())", file: name)
                }
            case let .datagram(socket):
                if start < end {
                    // The datagram's last line needs no newline.
                    let range = start..<end
                    start = end
                    return .line(range)
                }
                guard let n = try socket.receive(into: buffer, until: deadline) else { return .timeout }
                start = 0; end = n
            case .osc, .closed:
                return .end
            }
        }
    }

    private func findNewline() -> Int? {
        guard let p = memchr(buffer.baseAddress! + start, Int32(UInt8(ascii: "\n")), end - start) else { return nil }
        return UnsafeRawPointer(p) - UnsafeRawPointer(buffer.baseAddress!)
    }

    // MARK: - OSC

    /// Turns one datagram into pending frames and malformed reports.
    private func decodeOSC(_ packet: UnsafeRawBufferPointer, pattern: [UInt8]) {
        pendingValues.removeAll(keepingCapacity: true)
        pendingEvents.removeAll(keepingCapacity: true)
        pendingIndex = 0
        pattern.withUnsafeBytes { pat in
            do {
                try OSCWire.forEachMessage(packet) { (view) throws(OSCDecodeError) in
                    messageNumber += 1
                    guard OSCAddressPattern.matches(pat, view.address) else {
                        ignoredMessages += 1
                        return
                    }
                    let offset = pendingValues.count
                    var it = view.arguments
                    var count = 0
                    var problem: String?
                    while let item = try it.next() {
                        count += 1
                        if let v = item.number {
                            let f = Float(v)
                            if f.isFinite {
                                pendingValues.append(f)
                            } else if problem == nil {
                                problem = "argument \(count) is not finite (\(v))"
                            }
                        } else if problem == nil {
                            problem = "argument \(count) has type '\(Character(Unicode.Scalar(item.tag)))', expected a number (f, i, d or h)"
                        }
                    }
                    if problem == nil, count == 0 { problem = "no arguments" }
                    if oscChannelNames.isEmpty, problem == nil {
                        oscChannelNames = TimeSeries.defaultNames(count)
                    }
                    if problem == nil, count != oscChannelNames.count {
                        problem = "expected \(oscChannelNames.count) values, found \(count)"
                    }
                    if let problem {
                        pendingValues.removeSubrange(offset...)
                        pendingEvents.append(.malformed(MalformedInput(
                            source: name, line: messageNumber, reason: "\(String(decoding: view.address, as: UTF8.self)): \(problem)")))
                    } else {
                        pendingEvents.append(.frame(offset))
                    }
                }
            } catch {
                pendingEvents.append(.malformed(MalformedInput(
                    source: name, line: messageNumber + 1, reason: "invalid OSC packet: \(error)")))
            }
        }
    }
}

@inline(__always)
private func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
    return Darwin.close(fd)
    #elseif canImport(Musl)
    return Musl.close(fd)
    #else
    return Glibc.close(fd)
    #endif
}
