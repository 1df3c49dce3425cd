import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import SwiftASN1
import Testing
import X509
@testable import GestureStudio

/// `gesture studio --tls`: the certificate made at start, and the real server asked over TLS by a
/// client that trusts only that certificate (full verification, the address checked against it).
@Suite struct StudioTLSTests {
    @Test func theCertificateNamesTheHostsIsShortLivedAndSelfSigned() throws {
        let now = Date()
        let made = try StudioCertificate.make(hosts: ["192.168.1.20", "[fe80::1]", "studio.local", "0.0.0.0"], now: now)
        let cert = try Certificate(derEncoded: made.certificateDER)
        let names = try #require(try cert.extensions.subjectAlternativeNames)
        #expect(names.contains(.ipAddress(ASN1OctetString(contentBytes: [192, 168, 1, 20]))))
        #expect(names.contains(.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))))
        #expect(names.contains(.ipAddress(ASN1OctetString(contentBytes: [0xfe, 0x80] + Array(repeating: 0, count: 13) + [1]))))
        #expect(names.contains(.dnsName("studio.local")) && names.contains(.dnsName("localhost")))
        #expect(!names.contains(.ipAddress(ASN1OctetString(contentBytes: [0, 0, 0, 0]))), "a wildcard bind address is no name")
        #expect(cert.notValidBefore <= now && cert.notValidAfter > now)
        #expect(cert.notValidAfter.timeIntervalSince(cert.notValidBefore) <= 8 * 24 * 3600)
        #expect(try cert.extensions.extendedKeyUsage?.contains(.serverAuth) == true)
        #expect(try cert.extensions.basicConstraints == .notCertificateAuthority)
        #expect(cert.publicKey.isValidSignature(cert.signature, for: cert))
        // A fresh key every start.
        let again = try Certificate(derEncoded: try StudioCertificate.make(hosts: []).certificateDER)
        #expect(again.publicKey != cert.publicKey)
        #expect(made.fingerprint.split(separator: ":").count == 32)
    }

    @Test(arguments: ["bad host", "-lead.example", "exämple.local", ""])
    func aHostThatCannotBeNamedIsRefusedByName(host: String) {
        #expect {
            try StudioCertificate.make(hosts: [host])
        } throws: { error in
            (error as? StudioError)?.message.contains("\"\(host)\"") == true
        }
    }

    @Test func theStudioServesHTTPSAndWSSWithTheGeneratedCertificate() async throws {
        let certificate = try StudioCertificate.make(hosts: [])
        let token = StudioServerTests.token
        let server = StudioServer(host: "127.0.0.1", port: 0, access: StudioAccess(token: token),
                                  hub: try StudioHub(store: try temporaryProject()), certificate: certificate)
        #expect(server.url().hasPrefix("https://127.0.0.1:"))
        let (p, task) = try await start(server)
        defer { task.cancel() }

        let page = try await exchange(p, trusting: certificate, "GET /?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(p)\r\nConnection: close\r\n\r\n")
        #expect(page.hasPrefix("HTTP/1.1 200"), "\(page.prefix(80))")
        #expect(page.contains("<!doctype html>"))
        let refused = try await exchange(p, trusting: certificate, "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(p)\r\nConnection: close\r\n\r\n")
        #expect(refused.hasPrefix("HTTP/1.1 401"), "the token still applies over TLS")

        // WSS: the upgrade is accepted (RFC 6455's sample key and its answer) and the first frame
        // is the studio's state, as a text frame.
        let upgrade = "GET /ws?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(p)\r\nOrigin: https://127.0.0.1:\(p)\r\n"
            + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        let ws = try await exchangeBytes(p, trusting: certificate, upgrade, until: { $0.contains("\"t\":\"state\"") && $0.hasSuffix("}") })
        let text = String(decoding: ws, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 101"), "\(text.prefix(80))")
        #expect(text.lowercased().contains("sec-websocket-accept: s3pplmbitxaq9kygzzhzrbk+xoo="))
        // The frame: FIN + text, unmasked, 16-bit length (the state is over 125 bytes), then JSON.
        let end = try #require(text.range(of: "\r\n\r\n")).upperBound.utf16Offset(in: text)
        try #require(ws.count >= end + 4 && ws[end] == 0x81 && ws[end + 1] == 126, "a final text frame follows the upgrade")
        let length = Int(ws[end + 2]) << 8 | Int(ws[end + 3])
        try #require(ws.count >= end + 4 + length)
        let state = try JSONSerialization.jsonObject(with: Data(ws[(end + 4)..<(end + 4 + length)])) as? [String: Any]
        #expect(state?["t"] as? String == "state")
    }

    @Test func aClientTrustingAnotherCertificateOrSpeakingPlainHTTPIsNotServed() async throws {
        let certificate = try StudioCertificate.make(hosts: [])
        let server = StudioServer(host: "127.0.0.1", port: 0, access: StudioAccess(token: nil),
                                  hub: try StudioHub(store: try temporaryProject()), certificate: certificate)
        let (p, task) = try await start(server)
        defer { task.cancel() }
        let get = "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(p)\r\nConnection: close\r\n\r\n"
        #expect(try await exchange(p, trusting: certificate, get).hasPrefix("HTTP/1.1 200"))
        // Verification is real: another studio's certificate is not this one.
        let other = try? await exchange(p, trusting: try StudioCertificate.make(hosts: []), get)
        #expect(other.map { !$0.contains("HTTP/1.1") } ?? true, "\(other?.prefix(40) ?? "refused")")
        // No plain-HTTP fallback on the TLS port.
        let plain = try await exchange(p, trusting: nil, get)
        #expect(!plain.hasPrefix("HTTP/1.1"), "\(plain.prefix(40))")
    }

    /// Runs `server` on its free port; cancel the task to stop it.
    func start(_ server: StudioServer) async throws -> (port: Int, task: Task<Void, any Error>) {
        let port = StudioServerTests.Port()
        let task = Task { try await server.run { port.set($0) } }
        for _ in 0..<500 where port.get == nil { try await Task.sleep(for: .milliseconds(10)) }
        guard let p = port.get else { task.cancel(); throw StudioError("the studio did not start in 5 s") }
        return (p, task)
    }

    /// Writes `request` over TLS (trusting only `certificate`; plain TCP when nil) and reads until
    /// the server closes or `until` holds.
    func exchange(_ port: Int, trusting certificate: StudioCertificate?, _ request: String) async throws -> String {
        String(decoding: try await exchangeBytes(port, trusting: certificate, request), as: UTF8.self)
    }

    func exchangeBytes(_ port: Int, trusting certificate: StudioCertificate?, _ request: String,
                       until: @escaping @Sendable (String) -> Bool = { _ in false }) async throws -> [UInt8] {
        let context = try certificate.map { c in
            var config = TLSConfiguration.makeClientConfiguration()
            config.trustRoots = .certificates([try NIOSSLCertificate(bytes: c.certificateDER, format: .der)])
            config.certificateVerification = .fullVerification
            return try NIOSSLContext(configuration: config)
        }
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    // No server name: NIOSSL then checks the peer's IP against the certificate's names.
                    if let context { try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: nil)) }
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: request))
            var got: [UInt8] = []
            do {
                for try await chunk in inbound {
                    got += chunk.readableBytesView
                    if until(String(decoding: got, as: UTF8.self)) { break }
                }
            } catch let e as NIOSSLError where e == .uncleanShutdown {
                // The server may close without close_notify after a Connection: close response.
            }
            return got
        }
    }
}
