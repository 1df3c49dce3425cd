import Foundation
import Testing

/// `gesture studio` runs the gesture-studio built beside `gesture` (its own product, so that
/// `gesture` builds without the studio's web server), with every argument and the exit code as is.
@Suite struct StudioLauncherTests {
    @Test func helpIsTheStudiosOwn() throws {
        let r = try CLI.run(["studio", "--help"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("USAGE: gesture studio"))
        #expect(r.stdout.contains("--input") && r.stdout.contains("--tls") && r.stdout.contains("--project"))
    }

    @Test func argumentsAndExitCodesPassThrough() throws {
        let r = try CLI.run(["studio", "--port", "70000"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--port must be 0-65535"), "\(r.stderr)")
    }

    @Test func withoutTheStudioBuiltItSaysHowToBuildIt() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("launcher-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let alone = dir.appendingPathComponent("gesture")
        try FileManager.default.copyItem(at: CLI.binary, to: alone)
        let p = Process()
        p.executableURL = alone
        p.arguments = ["studio", "--project", dir.appendingPathComponent("project").path]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = Pipe()
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 1)
        #expect(text.hasPrefix("error: gesture studio runs \(dir.resolvingSymlinksInPath().appendingPathComponent("gesture-studio").path), which is not built"), "\(text)")
        #expect(text.contains("swift build -c release --product gesture-studio"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("project").path))
    }
}
