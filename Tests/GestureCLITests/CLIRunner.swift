import Foundation
import Testing

/// Runs the built `gesture` binary and captures what it prints.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum CLI {
    /// The `gesture` executable in the build folder these tests were built into. On Linux the
    /// test binary is the main executable; on macOS the main executable is `xctest` or
    /// `swiftpm-testing-helper` in the toolchain, so the search also starts from the image this
    /// code was loaded from (the `.xctest` bundle's binary) and from loaded `.xctest` bundles.
    static var binary: URL {
        var starts: [URL] = []
        #if canImport(Darwin)
        var info = Dl_info()
        if dladdr(#dsohandle, &info) != 0, let name = info.dli_fname {
            starts.append(URL(fileURLWithPath: String(cString: name)).deletingLastPathComponent())
        }
        starts += Bundle.allBundles.map(\.bundleURL).filter { $0.pathExtension == "xctest" }
        #endif
        starts.append(Bundle.main.bundleURL)
        for start in starts {
            var dir = start
            for _ in 0..<5 {  // .build/debug/X.xctest/Contents/MacOS on macOS
                let candidate = dir.appendingPathComponent("gesture")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                dir = dir.deletingLastPathComponent()
            }
        }
        let fromTests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return fromTests.appendingPathComponent(".build/debug/gesture")
    }

    /// The repository root (for bundled datasets and pipelines).
    static var repo: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `../shared/datasets` beside the repository, where the real recordings live.
    static var sharedDatasets: URL {
        repo.deletingLastPathComponent().appendingPathComponent("shared/datasets")
    }

    /// The reason a test skipped for want of ../shared gives; .ci/test counts skipped tests by reason.
    static let needsShared: Comment = "needs ../shared/datasets"

    @discardableResult
    static func run(_ arguments: [String], stdin: Data? = nil) throws -> CLIResult {
        let p = Process()
        p.executableURL = binary
        p.arguments = arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        let input = Pipe()
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        // Read both pipes concurrently so a full stderr pipe cannot block the child.
        // The semaphore orders the reader's write before our read (polling isFinished did not,
        // as ThreadSanitizer reported).
        nonisolated(unsafe) var errData = Data()
        let done = DispatchSemaphore(value: 0)
        let reader = Thread {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }
        reader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        done.wait()
        return CLIResult(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
    }
}

@Suite struct CLISmokeTests {
    @Test func versionRuns() throws {
        let r = try CLI.run(["--version"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("0.1.0"))
    }
}
