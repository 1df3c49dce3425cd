import ArgumentParser
import GestureKit

// The live-input options `record`, `stream` and the studio share, declared once so that they read
// and check alike everywhere. Each command says in its discussion what it does without --input.

/// `--input`: where live frames come from.
package struct InputOption: ParsableArguments {
    @Option(help: "Where frames come from: - (stdin), FILE, udp:[HOST:]PORT or osc[:[HOST:]PORT][/ADDRESS]; network inputs listen on 127.0.0.1 unless HOST is given.")
    package var input: String?

    package init() {}

    /// The source as written, `-` (stdin) when none was given.
    package var text: String { input ?? "-" }
}

/// `--frames` and `--seconds`: when a live run stops by itself.
package struct StopOptions: ParsableArguments {
    @Option(help: "Stop after this many frames.")
    package var frames: Int?

    @Option(help: "Stop after this many seconds.")
    package var seconds: Double?

    package init() {}

    package func validate() throws {
        if let frames, frames < 1 { throw ValidationError("--frames must be at least 1") }
        if let seconds, !(seconds > 0 && seconds.isFinite) { throw ValidationError("--seconds must be a positive number") }
    }
}

/// `--osc-out` and `--osc-address`: where detections are also sent as OSC.
package struct OSCOutOptions: ParsableArguments {
    @Option(help: "Also send each detection as OSC to HOST:PORT.")
    package var oscOut: String?

    @Option(help: "OSC address for --osc-out.")
    package var oscAddress: String = OSCSender.wekinatorOutputAddress

    package init() {}

    package func validate() throws {
        if let o = oscOut, parseHostPort(o) == nil { throw ValidationError("--osc-out expects HOST:PORT, got \"\(o)\"") }
    }

    /// The sender for `--osc-out`, nil without it.
    package func sender() throws -> OSCSender? {
        try oscOut.flatMap(parseHostPort).map { try OSCSender(host: $0.host, port: $0.port, address: oscAddress) }
    }
}
