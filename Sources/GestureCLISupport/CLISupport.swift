import ArgumentParser
import Foundation
import GestureKit

// What `gesture` and `gesture-studio` share: one error path and the helpers their commands call.
// Its own target so that `gesture` builds without the studio's web server and the studio without
// the other commands.

/// Parses the command line as `Root` and runs the chosen command, with one error path for every
/// command: `error: ...` on stderr, 64 for bad usage (with the usage line) and 1 for bad input;
/// help and version go to stdout with 0. Returns the exit code, to be passed to exit(3) by the
/// caller once this frame (and the error it held) is gone: called inside the catch, exit(3) left
/// the error's box for LeakSanitizer to report on every failing command.
package func runCommandLine<Root: ParsableCommand>(_: Root.Type) -> Int32 {
    do {
        var command = try Root.parseAsRoot()
        try command.run()
        return 0
    } catch {
        let code = Root.exitCode(for: error)
        let message = Root.fullMessage(for: error)
        if code == .success {
            if !message.isEmpty { print(message) }
        } else if !message.isEmpty {
            let text = message.hasPrefix("Error: ") ? "error: " + message.dropFirst(7) : message
            FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
        }
        return code.rawValue
    }
}

/// Prints `error: ...` on stderr.
package func printError(_ message: String) {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
}

/// Prints a line on stderr (progress, warnings, summaries that are not the command's result).
package func printStderr(_ message: String) {
    FileHandle.standardError.write(Data("\(message)\n".utf8))
}

/// Runs a command body, turning user errors into `error: FILE:LINE: ...` on stderr and exit code 1;
/// usage errors found while running (a flag the chosen classifier does not have) exit with 64.
package func reportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let e as GestureKitError {
        printError(e.description)
        throw ExitCode(1)
    } catch let e as ExitCode {
        throw e
    } catch let e as ValidationError {
        printError(e.message)
        throw ExitCode(64)
    } catch let e as CleanExit {
        throw e
    } catch {
        printError("\(error)")
        throw ExitCode(1)
    }
}

/// `HOST:PORT` as given to `--osc-out` (an empty host is 127.0.0.1); nil unless the port is 1-65535.
package func parseHostPort(_ s: String) -> (host: String, port: Int)? {
    guard let colon = s.lastIndex(of: ":"), let port = Int(s[s.index(after: colon)...]), (1...65535).contains(port) else { return nil }
    let host = String(s[..<colon])
    return (host.isEmpty ? "127.0.0.1" : host, port)
}

/// Encodes a value as one JSON document on stdout.
package func printJSON<T: Encodable>(_ value: T) throws {
    let enc = JSONEncoder()
    enc.outputFormatting = [.sortedKeys]
    enc.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    let data = try enc.encode(value)
    FileHandle.standardOutput.write(data)
    FileHandle.standardOutput.write(Data("\n".utf8))
}
