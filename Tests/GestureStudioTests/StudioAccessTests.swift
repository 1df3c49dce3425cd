import Foundation
import Testing
@testable import GestureStudio

@Suite struct StudioAccessTests {
    @Test(arguments: ["127.0.0.1", "127.1.2.3", "localhost", "::1", "LOCALHOST"])
    func loopbackNeedsNoToken(host: String) {
        #expect(StudioAccess.isLoopback(host))
        #expect(StudioAccess.forHost(host).token == nil)
        #expect(StudioAccess.forHost(host).allows(query: nil))
    }

    @Test(arguments: ["0.0.0.0", "192.168.1.20", "::", "example.org", "127.0.0.1.evil.org", "1270.0.0.1"])
    func otherHostsNeedARandomToken(host: String) throws {
        #expect(!StudioAccess.isLoopback(host))
        let token = try #require(StudioAccess.forHost(host).token)
        #expect(token.count == 32 && token.allSatisfy(\.isHexDigit))
        #expect(StudioAccess.forHost(host).token != token, "a fresh token each start")
    }

    @Test func everyRequestMustCarryTheToken() {
        let a = StudioAccess(token: "0123456789abcdef0123456789abcdef")
        #expect(a.allows(query: "token=0123456789abcdef0123456789abcdef"))
        #expect(a.allows(query: "x=1&token=0123456789abcdef0123456789abcdef"))
        #expect(!a.allows(query: nil))
        #expect(!a.allows(query: ""))
        #expect(!a.allows(query: "token="))
        #expect(!a.allows(query: "token=0123456789abcdef0123456789abcdee"))
        #expect(!a.allows(query: "token=0123456789abcdef0123456789abcdef0"))
        #expect(!a.allows(query: "tok=0123456789abcdef0123456789abcdef"))
    }

    @Test func webSocketsMustComeFromTheStudiosOwnPage() {
        #expect(StudioAccess.originMatches(origin: nil, host: "127.0.0.1:8080"))
        #expect(StudioAccess.originMatches(origin: "http://127.0.0.1:8080", host: "127.0.0.1:8080"))
        #expect(StudioAccess.originMatches(origin: "https://studio.local:8443", host: "Studio.local:8443"))
        #expect(!StudioAccess.originMatches(origin: "http://evil.example", host: "127.0.0.1:8080"))
        #expect(!StudioAccess.originMatches(origin: "http://127.0.0.1:9999", host: "127.0.0.1:8080"))
        #expect(!StudioAccess.originMatches(origin: "null", host: "127.0.0.1:8080"))
        #expect(!StudioAccess.originMatches(origin: "http://127.0.0.1:8080", host: nil))
    }
}
