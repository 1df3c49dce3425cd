import ArgumentParser
import Dispatch
import Foundation
import GestureCLISupport
import GestureKit
import GestureStudio

/// `gesture-studio` (also run as `gesture studio`): a local web page to record examples, train and
/// watch live recognition, with frames from `--input` (as `stream` reads them) or from the page's
/// own motion sensors. Its own product, so that `gesture` builds without the web server.
@main
struct Studio: ParsableCommand {
    static let configuration = CommandConfiguration(
        // The name its usage lines print: `gesture studio` runs this binary with the same arguments.
        commandName: "gesture studio",
        abstract: "Record, train and watch live recognition in a web page; a phone can be the sensor.",
        discussion: """
            Serves a page at http://HOST:PORT/ that plots every channel live, records labelled examples \
            into PROJECT/recording.csv (the `gesture record` format, readable by `gesture train`), trains \
            in the background and shows each detection on the same timeline. Frames come from --input \
            (as `gesture stream` reads them) and from any page that shares its device's motion sensors; \
            without --input, from the pages alone. \
            Listens on 127.0.0.1 unless --host says otherwise; on any other address the printed URL \
            carries a random token that every request must present. A phone's browser shares its motion \
            only with a secure page: --tls --host 0.0.0.0 serves HTTPS with a self-signed certificate made \
            at start (accept the warning once per start; the printed fingerprint is the one to see).
            """)

    @OptionGroup var source: InputOption

    @Option(help: "Project folder: recording.csv and the trained studio.gesture (created if missing).")
    var project: String = "studio-project"

    @Option(help: "Port to serve on (0: any free port).")
    var port: Int = 8080

    @Option(help: "Address to listen on; anything but loopback needs the printed token.")
    var host: String = "127.0.0.1"

    @Flag(help: "Serve HTTPS and WSS with a self-signed certificate made at start (phones need it for motion).")
    var tls = false

    @Option(name: .customLong("spec"), help: "Also offer this pipeline spec (JSON) on the page, as spec:NAME (repeatable).")
    var specs: [String] = []

    @Option(help: "Replay --input FILE at this many frames per second.")
    var rate: Double?

    @OptionGroup var osc: OSCOutOptions

    /// The error path of every `gesture` command (exit 64 for bad usage, 1 for bad input).
    static func main() {
        let code = runCommandLine(Studio.self)
        if code != 0 { Foundation.exit(code) }
    }

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0-65535") }
        guard !host.isEmpty else { throw ValidationError("--host must not be empty") }
        if let rate, !(rate > 0 && rate.isFinite) { throw ValidationError("--rate must be positive") }
        if let input = source.input {
            do { _ = try InputSpec(parsing: input) } catch let e as GestureKitError { throw ValidationError("--input: \(e.message)") }
        }
    }

    func run() throws {
        try reportingErrors {
            let store = try ProjectStore(directory: project)
            let sender = try osc.sender()
            var named: [String: PipelineSpec] = [:]
            for path in specs {
                named["spec:" + ((path as NSString).lastPathComponent as NSString).deletingPathExtension] = try PipelineSpec.load(path)
            }
            let hub = try StudioHub(store: store, oscOut: sender, specs: named)
            let feed = try source.input.map { text in
                try StudioInput(try InputSpec(parsing: text), hub: hub, channelNames: (try store.channels()) ?? [], rate: rate,
                                report: { printStderr($0) })
            }
            let wildcard = host == "0.0.0.0" || host == "::"
            // The names a phone may use: every network address when bound to all of them.
            let certificate = try tls ? StudioCertificate.make(hosts: wildcard ? StudioServer.networkAddresses() : [host]) : nil
            let server = StudioServer(host: host, port: port, access: .forHost(host), hub: hub, certificate: certificate)
            let (host, input, project) = (self.host, source.input, self.project)
            try runBlocking {
                try await server.run { bound in
                    var lines = ["studio: \(server.url(port: bound))"]
                    if wildcard {
                        lines += StudioServer.networkAddresses().map { "  on the network: \(server.url(host: $0, port: bound))" }
                    }
                    if let certificate {
                        lines.append("  self-signed certificate, SHA-256 \(certificate.fingerprint)")
                        if StudioAccess.isLoopback(host) { lines.append("  only this machine can open it: add --host 0.0.0.0 for a phone") }
                    }
                    lines.append("  project \(project)" + (input.map { ", frames from \($0)" } ?? ", frames from the page") + "; Ctrl-C to stop")
                    // The address a phone can open: the first network address, or the host given.
                    let share = wildcard ? StudioServer.networkAddresses().first.map { server.url(host: $0, port: bound) }
                        : StudioAccess.isLoopback(host) ? nil : server.url(port: bound)
                    if let share {
                        hub.setShareURL(share, fingerprint: certificate?.fingerprint)
                        if isatty(STDOUT_FILENO) != 0, let qr = QRCode(share) { lines.append(qr.terminalText()) }
                    }
                    FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
                    feed?.start()
                }
            }
            feed?.stop()
        }
    }
}

/// Runs async work from a synchronous command and waits for it (the root command is synchronous).
func runBlocking(_ body: @escaping @Sendable () async throws -> Void) throws {
    final class Box: @unchecked Sendable { var result: Result<Void, Error> = .success(()) }
    let box = Box(), done = DispatchSemaphore(value: 0)
    Task.detached {
        do { try await body() } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    try box.result.get()
}
