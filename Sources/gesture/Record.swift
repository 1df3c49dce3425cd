import ArgumentParser
import Dispatch
import Foundation
import GestureCLISupport
import GestureKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `gesture record`: appends labelled live frames to a recording CSV.
///
/// The file is `session,label,<channels>` rows. The header is written only when the file is new or
/// empty; an existing file keeps its header and columns (input columns are mapped to them by
/// name), and a file whose header is not of that form, or whose channels differ from
/// `--channels`, is refused untouched. Each row goes out in one write(2) on an O_APPEND descriptor,
/// so a kill loses at most the row being formatted and never damages what is saved.
///
/// Users: the dataset convention takes the user id from the file name prefix before the first
/// `-` (`u03-walk.csv` is user `u03`); there is no user column. `--user U` checks that the output
/// file is named that way.
struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record labelled frames from stdin, a file, UDP or OSC into a recording CSV.",
        discussion: """
        Appends rows `session,label,<channels>` to FILE.csv (the header is written only when the file \
        is new or empty; an existing file must have a matching header and keeps its columns). Each row \
        is written with a single append, so stopping or killing the recorder never damages saved rows. \
        Frames come from stdin unless --input names another source. \
        Stops at end of input, after --frames or --seconds, or on Ctrl-C. Malformed input lines are \
        skipped, counted and reported on stderr. The user id is the file name prefix before the first \
        '-' (e.g. u03-walk.csv); --user checks the name follows that convention.
        """
    )

    @Option(help: "Label given to every frame of this run.")
    var label: String

    @OptionGroup var source: InputOption

    @Option(name: [.short, .customLong("output")], help: "Recording CSV to append to (created if missing).")
    var output: String

    @Option(help: "Session id for these rows (default: the UTC start time, e.g. 20261121-132635).")
    var session: String?

    @Option(help: "User id; the output file name must start with USER- (the dataset convention).")
    var user: String?

    @Option(help: "Channel names, comma-separated (default: the existing file's, else the input header's, else ch0, ch1, ...).")
    var channels: String?

    @OptionGroup var limits: StopOptions

    @Flag(help: "Print the summary as JSON.")
    var json = false

    func validate() throws {
        try Record.checkField(label, "--label")
        if let session { try Record.checkField(session, "--session") }
        if let user {
            guard !user.isEmpty, !user.contains("-"), !user.contains("/") else {
                throw ValidationError("--user must be non-empty without '-' or '/'")
            }
            let base = (output as NSString).lastPathComponent
            guard base.hasPrefix(user + "-") else {
                throw ValidationError("--user \(user): the user id is taken from the file name prefix; name the output \(user)-\(base.hasSuffix(".csv") ? base : base + ".csv")")
            }
        }
        if let channels { _ = try Record.parseChannels(channels) }
    }

    func run() throws {
        try reportingErrors {
            let summary = try record()
            if json {
                try printJSON(summary)
            } else {
                var text = "recorded \(summary.frames) frame\(summary.frames == 1 ? "" : "s") labelled \(summary.label) (session \(summary.session)) to \(summary.output)"
                text += "; \(summary.malformed) malformed input line\(summary.malformed == 1 ? "" : "s")"
                if let last = summary.lastMalformed { text += " (last: \(last))" }
                print(text)
            }
        }
    }

    struct Summary: Encodable {
        var output: String
        var label: String
        var session: String
        var channels: [String]
        var frames: Int
        var malformed: Int
        var lastMalformed: String?
        var headerWritten: Bool
    }

    private func record() throws -> Summary {
        let spec = try InputSpec(parsing: source.text)
        let wanted = try channels.map(Record.parseChannels)
        let existing = try Record.existingLayout(output)
        if let existing, let wanted, existing.channels != wanted {
            throw GestureKitError("the file has channels \(existing.channels.joined(separator: ",")) but --channels asks for \(wanted.joined(separator: ",")); refusing to mix layouts (nothing was written)",
                                  file: output)
        }
        let session = self.session ?? Record.defaultSession()
        let reader = try FrameReader(spec, channelNames: existing?.channels ?? wanted ?? [])

        let fd = open(output, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw GestureKitError("cannot open for appending: \(String(cString: strerror(errno)))", file: output) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw GestureKitError("cannot stat: \(String(cString: strerror(errno)))", file: output) }
        var needsHeader = st.st_size == 0
        if !needsHeader, existing?.endsWithNewline == false {
            // Someone else's partial last row: start ours on a fresh line rather than joining it.
            printStderr("warning: \(output) did not end with a newline; starting a new line")
            try Record.writeAll(fd, Array("\n".utf8), file: output)
        }

        let stop = StopFlag()
        let sources = stop.install()
        defer { sources.forEach { $0.cancel() } }
        if !spec.isFinite {
            var place = spec.description
            if case let .udp(host, _) = spec, let port = reader.port { place = "udp:\(host):\(port)" }
            if case let .osc(host, _, address) = spec, let port = reader.port { place = "osc:\(host):\(port)\(address)" }
            printStderr("recording \(label) from \(place) (Ctrl-C to stop)")
        }

        let prefix = Array("\(session),\(label),".utf8)
        var line: [UInt8] = []
        line.reserveCapacity(256)
        var written = 0
        var shownMalformed = 0
        let started = Date()
        var headerWritten = false

        while !stop.isSet {
            if let frames = limits.frames, written >= frames { break }
            var timeout = 0.2
            if let seconds = limits.seconds {
                let left = seconds - Date().timeIntervalSince(started)
                if left <= 0 { break }
                timeout = min(timeout, left)
            }
            guard let event = try reader.next(timeout: timeout) else { break }
            switch event {
            case .idle:
                continue
            case let .malformed(m):
                if shownMalformed < 20 {
                    printStderr("warning: \(m)")
                    shownMalformed += 1
                    if shownMalformed == 20 { printStderr("warning: further malformed lines are counted but not shown") }
                }
            case let .frame(values):
                if needsHeader {
                    let names = reader.channelNames
                    try Record.checkChannelNames(names)
                    try Record.writeAll(fd, Array(("session,label," + names.joined(separator: ",") + "\n").utf8), file: output)
                    needsHeader = false
                    headerWritten = true
                }
                line.removeAll(keepingCapacity: true)
                line.append(contentsOf: prefix)
                for (i, v) in values.enumerated() {
                    if i > 0 { line.append(UInt8(ascii: ",")) }
                    // `description` is the shortest text that reads back to the same Float.
                    line.append(contentsOf: v.description.utf8)
                }
                line.append(UInt8(ascii: "\n"))
                try Record.writeAll(fd, line, file: output)
                written += 1
            }
        }
        return Summary(output: output, label: label, session: session, channels: reader.channelNames,
                       frames: written, malformed: reader.malformedCount,
                       lastMalformed: reader.lastMalformed?.description, headerWritten: headerWritten)
    }

    // MARK: - Helpers

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], file: String) throws {
        try RecordingAppend.writeAll(fd, bytes, file: file)
    }

    static func existingLayout(_ path: String) throws -> (channels: [String], endsWithNewline: Bool)? {
        try RecordingAppend.existingLayout(path)
    }

    static func parseChannels(_ text: String) throws -> [String] {
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        try checkChannelNames(names)
        return names
    }

    static func checkChannelNames(_ names: [String]) throws {
        guard !names.isEmpty else { throw ValidationError("--channels needs at least one name") }
        for n in names {
            guard !n.isEmpty else { throw ValidationError("channel names must not be empty") }
            guard n != "session", n != "label" else { throw ValidationError("a channel cannot be called \(n)") }
            guard !n.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else {
                throw ValidationError("channel name \"\(n)\" must not contain commas, quotes or newlines")
            }
        }
        guard Set(names).count == names.count else { throw ValidationError("channel names must be unique: \(names.joined(separator: ","))") }
    }

    static func checkField(_ value: String, _ option: String) throws {
        guard !value.isEmpty else { throw ValidationError("\(option) must not be empty") }
        guard !value.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else {
            throw ValidationError("\(option) \"\(value)\" must not contain commas, quotes or newlines")
        }
    }

    /// `YYYYMMDD-HHMMSS` in UTC.
    static func defaultSession() -> String {
        var t = time(nil)
        var parts = tm()
        gmtime_r(&t, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))-\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))"
    }
}

/// Set by SIGINT/SIGTERM so the record loop can finish its summary instead of dying mid-loop.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }

    func set() { lock.withLock { value = true } }

    /// Routes SIGINT and SIGTERM to this flag; the returned sources must stay alive.
    func install() -> [DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { sig in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [self] in set() }
            source.resume()
            return source
        }
    }
}
