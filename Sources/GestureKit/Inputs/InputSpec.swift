/// Where live frames come from, as written on the command line (`--input`).
///
/// | text | meaning |
/// |---|---|
/// | `-` | text lines on standard input |
/// | `FILE` | text lines from a file (use `./udp:x` for a file whose name looks like a network spec) |
/// | `udp:PORT`, `udp:HOST:PORT` | text lines in UDP datagrams (one or more lines per datagram) |
/// | `osc`, `osc:PORT`, `osc:PORT/ADDR`, `osc:HOST:PORT/ADDR` | OSC messages over UDP (default port 6448, address `/wek/inputs`, as Wekinator) |
///
/// Network sources listen on 127.0.0.1 unless a host is given; use `0.0.0.0` to accept datagrams
/// from other machines (a phone on the local network).
package enum InputSpec: Sendable, Hashable, CustomStringConvertible {
    /// Standard input (`-`).
    case stdin
    /// A file, read to its end.
    case file(String)
    /// Datagrams of text lines on a UDP port.
    case udp(host: String = InputSpec.loopback, port: Int)
    /// `address` is an OSC address pattern (`*`, `?`, `[a-z]`, `{a,b}`) matched against each
    /// incoming message's address; other messages are counted as ignored.
    case osc(host: String = InputSpec.loopback, port: Int = InputSpec.wekinatorInputPort,
             address: String = InputSpec.wekinatorInputAddress)

    /// The address network inputs listen on unless told otherwise.
    package static let loopback = "127.0.0.1"
    /// Wekinator's default input port and address.
    package static let wekinatorInputPort = 6448
    /// Wekinator's default input address.
    package static let wekinatorInputAddress = "/wek/inputs"

    /// Parses `-`, `FILE`, `udp:[HOST:]PORT` or `osc[:[HOST:]PORT][/ADDRESS]`.
    /// - Throws: ``GestureKitError`` for a malformed port or address.
    package init(parsing text: String) throws {
        if text == "-" { self = .stdin; return }
        if text.hasPrefix("udp:") {
            let (host, port) = try InputSpec.hostPort(String(text.dropFirst(4)), in: text)
            guard let port else { throw GestureKitError("expected udp:PORT or udp:HOST:PORT, found \"\(text)\"", field: "input") }
            self = .udp(host: host, port: port)
            return
        }
        if text == "osc" || text.hasPrefix("osc:") || text.hasPrefix("osc/") {
            var rest = Substring(text.dropFirst(3))
            if rest.hasPrefix(":") { rest = rest.dropFirst() }
            var address = InputSpec.wekinatorInputAddress
            if let slash = rest.firstIndex(of: "/") {
                address = String(rest[slash...])
                rest = rest[..<slash]
            }
            let (host, port) = try InputSpec.hostPort(String(rest), in: text)
            guard address.count > 1 else {
                throw GestureKitError("OSC address must not be empty in \"\(text)\"", field: "input")
            }
            self = .osc(host: host, port: port ?? InputSpec.wekinatorInputPort, address: address)
            return
        }
        guard !text.isEmpty else { throw GestureKitError("empty input; use - for standard input", field: "input") }
        self = .file(text)
    }

    /// `PORT` or `HOST:PORT`; an empty string gives the loopback host and no port.
    private static func hostPort(_ s: String, in whole: String) throws -> (String, Int?) {
        if s.isEmpty { return (loopback, nil) }
        var host = loopback
        var portText = Substring(s)
        if let colon = s.lastIndex(of: ":") {
            host = String(s[..<colon])
            portText = s[s.index(after: colon)...]
        }
        guard let port = Int(portText), (0...65535).contains(port) else {
            throw GestureKitError("port must be a number 0-65535, found \"\(portText)\" in \"\(whole)\"", field: "input")
        }
        return (host.isEmpty ? loopback : host, port)
    }

    /// A short name used in messages (`stdin`, the file path, `udp:127.0.0.1:9000`).
    package var description: String {
        switch self {
        case .stdin: return "stdin"
        case let .file(path): return path
        case let .udp(host, port): return "udp:\(host):\(port)"
        case let .osc(host, port, address): return "osc:\(host):\(port)\(address)"
        }
    }

    /// True for sources that end (stdin, files); network sources run until closed.
    package var isFinite: Bool {
        switch self {
        case .stdin, .file: return true
        case .udp, .osc: return false
        }
    }
}
