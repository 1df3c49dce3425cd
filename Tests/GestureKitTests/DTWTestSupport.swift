import Foundation
@testable import GestureKit

/// Real datasets for the DTW/kNN/spotter tests, from ../shared/datasets beside the repository.
enum DTWTestData {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/datasets")

    static var available: Bool { FileManager.default.fileExists(atPath: root.appendingPathComponent("grt").path) }

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    static func load(_ relative: String) throws -> Dataset { try Dataset.load(path(relative)) }

    static func labels(_ d: Dataset) -> [Int] { d.labelIndices.map { $0! } }
}
