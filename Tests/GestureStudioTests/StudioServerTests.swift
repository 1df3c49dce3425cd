import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import GestureStudio

/// The real server on a free loopback port, asked over HTTP.
@Suite struct StudioServerTests {
    final class Port: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Int?
        func set(_ p: Int) { lock.withLock { value = p } }
        var get: Int? { lock.withLock { value } }
    }

    static let token = "00112233445566778899aabbccddeeff"

    func status(_ port: Int, _ path: String, method: String = "GET", body: Data? = nil) async throws -> Int {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.httpBody = body
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? -1
    }

    @Test func everyRequestNeedsTheTokenAndOnlyGETsAreServed() async throws {
        let hub = try StudioHub(store: try temporaryProject())
        let server = StudioServer(host: "127.0.0.1", port: 0, access: StudioAccess(token: Self.token), hub: hub)
        let port = Port()
        let task = Task { try await server.run { port.set($0) } }
        defer { task.cancel() }
        for _ in 0..<500 where port.get == nil { try await Task.sleep(for: .milliseconds(10)) }
        let p = try #require(port.get)
        #expect(try await status(p, "/") == 401)
        #expect(try await status(p, "/?token=00112233445566778899aabbccddeefe") == 401)
        #expect(try await status(p, "/ws") == 401)
        #expect(try await status(p, "/?token=\(Self.token)") == 200)
        #expect(try await status(p, "/?token=\(Self.token)", method: "POST", body: Data(count: 16)) == 405)
        #expect(try await status(p, "/?token=\(Self.token)", method: "PUT", body: Data(count: 1 << 20)) != 200)
        #expect(try await status(p, "/secret.csv?token=\(Self.token)") == 404)
    }

    @Test func thePageIsCompiledInAndComplete() {
        let html = String(decoding: StudioPage.html, as: UTF8.self)
        #expect(html.hasPrefix("<!doctype html>"))
        #expect(html.contains("DeviceMotionEvent.requestPermission"))
        #expect(!html.contains("http://") && !html.contains("https://"), "no CDN: the page loads nothing from elsewhere")
    }
}
