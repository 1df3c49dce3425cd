import ArgumentParser
import Foundation
import GestureCLISupport
import GestureKit

/// `gesture studio`: runs `gesture-studio`, the web studio, from beside this binary with every
/// argument as given. The studio is its own product because it links a web server (Hummingbird,
/// SwiftNIO and NIOSSL's BoringSSL), most of a fresh build's time, which no other command needs.
struct Studio: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record, train and watch live recognition in a web page; a phone can be the sensor.",
        discussion: """
            Runs gesture-studio from beside this binary with the same arguments; `gesture studio --help` \
            lists its options. The studio is its own product, so that the other commands build without its \
            web server: `swift build -c release --product gesture-studio` builds it.
            """,
        // --help goes to gesture-studio, which knows the options.
        helpNames: [])

    @Argument(parsing: .captureForPassthrough, help: "gesture-studio's arguments.")
    var arguments: [String] = []

    /// Where `gesture-studio` is looked for: the folder of this binary, symbolic links resolved.
    static var studioPath: String {
        let me = Bundle.main.executableURL?.resolvingSymlinksInPath()
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return me.deletingLastPathComponent().appendingPathComponent("gesture-studio").path
    }

    func run() throws {
        let path = Self.studioPath
        guard FileManager.default.isExecutableFile(atPath: path) else {
            printError("""
                gesture studio runs \(path), which is not built. The studio is its own product (its web \
                server is most of a fresh build's time, which the other commands do not need); build it \
                with `swift build -c release --product gesture-studio` in the GestureKit checkout, then run \
                this again.
                """)
            throw ExitCode(1)
        }
        // The studio replaces this process (same pid, terminal and signals); execv returns only on failure.
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        printError("cannot run \(path): \(String(cString: strerror(errno)))")
        throw ExitCode(1)
    }
}
