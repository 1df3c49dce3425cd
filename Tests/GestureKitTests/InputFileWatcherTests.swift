import Foundation
import Testing
@testable import GestureKit

@Suite struct InputFileWatcherTests {
    @Test func atomicReplacementIsSeenOnceEvenWithSameSizeAndMtime() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("model.gesture").path
        try "version 1".write(toFile: path, atomically: false, encoding: .utf8)
        let before = try #require(FileWatcher.signature(of: path))
        var w = FileWatcher(path: path, interval: .zero)
        let seen1 = w.pollSequence(2)
        #expect(seen1 == [false, false])

        // Same length, same mtime, new inode: write a temporary file and rename it over.
        let tmp = dir.appendingPathComponent(".model.tmp").path
        try "version 2".write(toFile: tmp, atomically: false, encoding: .utf8)
        var times = [timespec](repeating: timespec(tv_sec: 0, tv_nsec: 0), count: 2)
        times[0].tv_sec = Int(before.modifiedNanos / 1_000_000_000)
        times[0].tv_nsec = Int(before.modifiedNanos % 1_000_000_000)
        times[1] = times[0]
        #expect(utimensat(AT_FDCWD, tmp, times, 0) == 0)
        #expect(rename(tmp, path) == 0)
        let after = try #require(FileWatcher.signature(of: path))
        #expect(after.size == before.size && after.modifiedNanos == before.modifiedNanos)
        #expect(after.inode != before.inode)

        // Reported after the new state is seen twice, then only once.
        let seen2 = w.pollSequence(4)
        #expect(seen2 == [false, true, false, false])
    }

    @Test func inPlaceRewriteAndDeletionThenReappearance() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("p.json").path
        try "a".write(toFile: path, atomically: false, encoding: .utf8)
        var w = FileWatcher(path: path, interval: .zero)
        try "abc".write(toFile: path, atomically: false, encoding: .utf8)   // size changes
        let seen3 = w.pollSequence(2)
        #expect(seen3 == [false, true])
        try FileManager.default.removeItem(atPath: path)
        let seen4 = w.pollSequence(2)
        #expect(seen4 == [false, false])
        try "abcdef".write(toFile: path, atomically: false, encoding: .utf8)
        let seen5 = w.pollSequence(2)
        #expect(seen5 == [false, true])
    }

    @Test func missingFileAtStartIsReportedWhenItAppears() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("later.json").path
        var w = FileWatcher(path: path, interval: .zero)
        #expect(w.current == nil)
        let seen6 = w.pollSequence(1)
        #expect(seen6 == [false])
        try "x".write(toFile: path, atomically: true, encoding: .utf8)
        let seen7 = w.pollSequence(2)
        #expect(seen7 == [false, true])
    }

    @Test func changedRespectsTheInterval() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("q.json").path
        try "1".write(toFile: path, atomically: true, encoding: .utf8)
        var w = FileWatcher(path: path, interval: .seconds(3600))
        try "22".write(toFile: path, atomically: true, encoding: .utf8)
        // Within the hour no stat happens, so nothing is reported however often we ask.
        let seen8 = w.changedSequence(1000)
        #expect(seen8 == [Bool](repeating: false, count: 1000))
        #expect(w.intervalNanos == 3_600_000_000_000)
    }
}

extension FileWatcher {
    /// The results of `n` consecutive polls (`#expect` cannot call mutating methods).
    mutating func pollSequence(_ n: Int) -> [Bool] { (0..<n).map { _ in poll() } }
    mutating func changedSequence(_ n: Int) -> [Bool] { (0..<n).map { _ in changed() } }
}
