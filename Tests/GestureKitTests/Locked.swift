import Foundation

/// A value behind a lock, for tests that collect from other threads. Not Synchronization's `Mutex`:
/// that needs macOS 15 / iOS 18, and the package declares macOS 13 / iOS 16.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
