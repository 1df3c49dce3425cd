#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Tells a stream loop when a file (a pipeline) has been replaced or rewritten, by polling its
/// identity: device, inode, size and modification time (nanoseconds).
///
/// Call ``changed()`` as often as you like (every frame is fine): it only calls `stat(2)` once per
/// `interval`. A change is reported once, when the file exists and its identity differs from the
/// last one reported **and** has stayed the same for one more poll, so a file still being written
/// in place is not reported half-written. An atomic replacement (write a temporary file, rename it
/// over the old one) gives a new inode and is therefore seen even when size and mtime match.
/// A deleted file is not a change; its reappearance is.
///
/// ```swift
/// var watcher = FileWatcher(path: "walk.gesture", interval: .milliseconds(250))
/// while let e = try reader.next(timeout: 0.25) {
///     if watcher.changed() { recognizer = try Recognizer(Pipeline.load(watcher.path)) }
///     ...
/// }
/// ```
///
/// - Complexity: O(1); one `stat(2)` per interval, no allocation.
package struct FileWatcher: Sendable {
    /// The identity the watcher compares.
    package struct Signature: Sendable, Hashable {
        /// The device holding the file.
        package var device: UInt64
        /// The file's inode (changes when a new file is renamed over the path).
        package var inode: UInt64
        /// Size in bytes.
        package var size: Int64
        /// Modification time, nanoseconds since 1970.
        package var modifiedNanos: Int64
    }

    /// The watched path.
    package let path: String
    /// Least time between two looks at the file, in nanoseconds.
    package let intervalNanos: UInt64
    /// The identity last reported (or seen at creation).
    package private(set) var current: Signature?
    private var candidate: Signature?
    private var lastPoll: UInt64

    /// Starts watching `path`, taking its present state as unchanged.
    package init(path: String, interval: Duration = .milliseconds(500)) {
        self.path = path
        let (s, atto) = interval.components
        intervalNanos = UInt64(max(0, s)) &* 1_000_000_000 &+ UInt64(max(0, atto) / 1_000_000_000)
        current = FileWatcher.signature(of: path)
        lastPoll = monotonicNanos()
    }

    /// True once after the file was replaced or rewritten; cheap when called more often than the
    /// interval (a clock read).
    package mutating func changed() -> Bool {
        let now = monotonicNanos()
        guard now &- lastPoll >= intervalNanos else { return false }
        lastPoll = now
        return poll()
    }

    /// Checks now, ignoring the interval (still requires the new state to be seen twice).
    package mutating func poll() -> Bool {
        guard let s = FileWatcher.signature(of: path) else {
            candidate = nil
            return false
        }
        if s == current {
            candidate = nil
            return false
        }
        if s == candidate {
            current = s
            candidate = nil
            return true
        }
        candidate = s
        return false
    }

    /// The file's identity now, nil when it cannot be stat'ed.
    package static func signature(of path: String) -> Signature? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        #if canImport(Darwin)
        let mtime = Int64(st.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(st.st_mtimespec.tv_nsec)
        #else
        let mtime = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        #endif
        return Signature(device: UInt64(truncatingIfNeeded: st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size), modifiedNanos: mtime)
    }
}
