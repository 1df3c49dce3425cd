import ArgumentParser
import Foundation
import GestureCLISupport
import GestureKit

@main
struct Gesture: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gesture",
        abstract: "Train, evaluate and run gesture recognisers on motion-sensor data.",
        version: "0.1.0",
        subcommands: [Info.self, Convert.self, Train.self, Evaluate.self, Predict.self, Stream.self, Record.self, Studio.self, Spec.self, Export.self, Version.self]
    )

    /// One error path for every command (runCommandLine): `error: ...` on stderr, exit 64 for bad
    /// usage (with the usage line) and 1 for bad input; help and version go to stdout with exit 0.
    static func main() {
        // exit(3) only once the error is released: called inside the catch, it left the error's
        // box for LeakSanitizer to report on every failing command.
        let code = runCommandLine(Gesture.self)
        if code != 0 { Foundation.exit(code) }
    }
}

/// Prints a default pipeline spec, the starting point for a hand-written one (and the source of
/// `pipelines/<name>.json`).
struct Spec: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the default pipeline spec of a classifier as JSON.")

    @Argument(help: ArgumentHelp(ClassifierName.help, valueName: "classifier"))
    var classifier: ClassifierName

    func validate() throws {
        if classifier.isAuto { throw ValidationError("auto is chosen while training; name a classifier: \(DefaultSpecs.names.joined(separator: ", "))") }
    }

    func run() throws {
        try reportingErrors { print(try DefaultSpecs.json(for: classifier.name), terminator: "") }
    }
}

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the GestureKit version.")
    func run() { print("gesture 0.1.0") }
}
