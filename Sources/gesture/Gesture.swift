import ArgumentParser
import Foundation
import GestureKit

@main
struct Gesture: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gesture",
        abstract: "Train, evaluate and run gesture recognisers on motion-sensor data.",
        version: "0.1.0",
        subcommands: [Info.self, Convert.self, Train.self, Evaluate.self, Predict.self, Stream.self, Record.self, Version.self]
    )
}

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the GestureKit version.")
    func run() { print("gesture 0.1.0") }
}
