import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Testing
@testable import GestureStudio

/// `gesture studio --tls`: the certificate made at start, and the real server asked over TLS by a
/// client that trusts only that certificate (full verification, the address checked against it).
@Suite struct StudioTLSTests {
    @Test func theCertificateNamesTheHostsIsShortLivedAndSelfSigned() throws {
        let now = Date()
        let made = try StudioCertificate.make(hosts: ["192.168.1.20", "[fe80::1]", "studio.local", "0.0.0.0"], now: now)
        let cert = try NIOSSLCertificate(bytes: made.certificateDER, format: .der)
        var ips: [[UInt8]] = [], dns: [String] = []
        for name in cert._subjectAlternativeNames() {
            let bytes = name.contents.withUnsafeBufferPointer { Array($0) }
            switch name.nameType {
            case .ipAddress: ips.append(bytes)
            case .dnsName: dns.append(String(decoding: bytes, as: UTF8.self))
            default: Issue.record("an unexpected name type \(name.nameType)")
            }
        }
        #expect(ips.contains([192, 168, 1, 20]) && ips.contains([127, 0, 0, 1]))
        #expect(ips.contains([0xfe, 0x80] + Array(repeating: 0, count: 13) + [1]))
        #expect(ips.contains(Array(repeating: 0, count: 15) + [1]))
        #expect(dns == ["studio.local", "localhost"])
        #expect(!ips.contains([0, 0, 0, 0]), "a wildcard bind address is no name")
        #expect(Double(cert.notValidBefore) <= now.timeIntervalSince1970 - 3599 && Double(cert.notValidAfter) > now.timeIntervalSince1970)
        #expect(Double(cert.notValidBefore) == made.notValidBefore.timeIntervalSince1970 && Double(cert.notValidAfter) == made.notValidAfter.timeIntervalSince1970)
        #expect(made.notValidAfter.timeIntervalSince(made.notValidBefore) <= 8 * 24 * 3600)

        // Read by OpenSSL, which parses and checks it on its own: the extensions, and the
        // signature verified with the certificate's own key.
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pem = dir.appendingPathComponent("c.pem")
        let text = try openssl(["x509", "-inform", "DER", "-noout", "-text"], input: made.certificateDER)
        #expect(text.contains("Version: 3"))
        #expect(text.contains("Signature Algorithm: ecdsa-with-SHA256"))
        #expect(text.contains("O = GestureKit, CN = gesture studio") || text.contains("O=GestureKit, CN=gesture studio"))
        #expect(text.contains("X509v3 Basic Constraints: critical") && text.contains("CA:FALSE"))
        #expect(text.contains("TLS Web Server Authentication"))
        #expect(text.contains("DNS:studio.local") && text.contains("IP Address:192.168.1.20") && text.contains("IP Address:FE80:0:0:0:0:0:0:1"))
        #expect(text.contains("prime256v1") || text.contains("P-256"))
        #expect(!text.contains("X509v3 Key Usage"), "no KeyUsage, so a client can pin it as its own root")
        try Data(try openssl(["x509", "-inform", "DER", "-outform", "PEM"], input: made.certificateDER).utf8).write(to: pem)
        let verified = try openssl(["verify", "-check_ss_sig", "-partial_chain", "-trusted", pem.path, pem.path])
        #expect(verified.contains(": OK"), "\(verified)")
        // The printed fingerprint is the certificate's SHA-256.
        let sha = try openssl(["x509", "-inform", "DER", "-noout", "-fingerprint", "-sha256"], input: made.certificateDER)
        #expect(sha.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("=" + made.fingerprint), "\(sha) against \(made.fingerprint)")
        #expect(made.fingerprint.split(separator: ":").count == 32)

        // A fresh key every start.
        let again = try NIOSSLCertificate(bytes: try StudioCertificate.make(hosts: []).certificateDER, format: .der)
        #expect(try again.extractPublicKey().toSPKIBytes() != cert.extractPublicKey().toSPKIBytes())
    }

    @Test func withoutTheOpensslCommandTheErrorSaysWhatToInstall() {
        #expect {
            try StudioCertificate.make(hosts: [], openssl: "gesture-no-such-openssl")
        } throws: { error in
            let m = (error as? StudioError)?.message ?? ""
            return m.contains("gesture-no-such-openssl") && m.contains("not found") && m.contains("install")
        }
    }

    /// An openssl that fails without reading the key it is given: an error naming the step, not
    /// a studio ended by SIGPIPE.
    @Test func anOpensslThatFailsEarlyIsReportedByStep() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fake = dir.appendingPathComponent("openssl")
        try "#!/bin/sh\necho 'no such option' >&2\nexit 3\n".write(to: fake, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake.path)
        #expect {
            try OpenSSLCommand(path: fake.path).run(["ec"], input: Array(repeating: 65, count: 200_000), step: "read the key's public half")
        } throws: { error in
            let m = (error as? StudioError)?.message ?? ""
            return m.contains("read the key's public half") && m.contains("exit 3") && m.contains("no such option")
        }
    }

    @Test func derLengthsAndObjectIdentifiersFollowX690() {
        #expect(DER.tlv(0x04, Array(repeating: 7, count: 127)).prefix(2) == [0x04, 0x7F])
        #expect(DER.tlv(0x04, Array(repeating: 7, count: 128)).prefix(3) == [0x04, 0x81, 0x80])
        #expect(DER.tlv(0x04, Array(repeating: 7, count: 300)).prefix(4) == [0x04, 0x82, 0x01, 0x2C])
        // X.690 8.19.5's example arcs and a real one with a multi-byte arc.
        #expect(DER.oid("2.999.3") == [0x06, 0x03, 0x88, 0x37, 0x03])
        #expect(DER.oid("1.2.840.10045.4.3.2") == [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, 0x02])
        #expect(DER.integer([0x00, 0x00, 0x05]) == [0x02, 0x01, 0x05])
        #expect(DER.integer([0x80]) == [0x02, 0x02, 0x00, 0x80])
        #expect(DER.integer([]) == [0x02, 0x01, 0x00])
        // UTCTime until 2049, GeneralizedTime from 2050 (RFC 5280 4.1.2.5).
        #expect(DER.time(Date(timeIntervalSince1970: 0)) == DER.tlv(0x17, Array("700101000000Z".utf8)))
        #expect(DER.time(Date(timeIntervalSince1970: 2_524_608_000)) == DER.tlv(0x18, Array("20500101000000Z".utf8)))
    }

    /// A fresh empty folder; the caller removes it.
    func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("studio-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Runs the openssl command with `input` on stdin; its stdout (throws, with its stderr, when it fails).
    func openssl(_ arguments: [String], input: [UInt8] = []) throws -> String {
        String(decoding: try OpenSSLCommand(path: "openssl").run(arguments, input: input, step: "check the certificate"), as: UTF8.self)
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
