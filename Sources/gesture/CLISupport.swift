import ArgumentParser
import Foundation
import GestureKit

/// Prints `error: ...` on stderr.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
}

/// Prints a line on stderr (progress, warnings, summaries that are not the command's result).
func printStderr(_ message: String) {
    FileHandle.standardError.write(Data("\(message)\n".utf8))
}

/// Runs a command body, turning user errors into `error: FILE:LINE: ...` on stderr and exit code 1;
/// usage errors found while running (a flag the chosen classifier does not have) exit with 64.
func reportingErrors(_ body: () throws -> Void) throws {
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

/// Encodes a value as one JSON document on stdout.
func printJSON<T: Encodable>(_ value: T) throws {
    let enc = JSONEncoder()
    enc.outputFormatting = [.sortedKeys]
    enc.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    let data = try enc.encode(value)
    FileHandle.standardOutput.write(data)
    FileHandle.standardOutput.write(Data("\n".utf8))
}
