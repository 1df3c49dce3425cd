import Foundation
import NIOSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The self-signed certificate `gesture studio --tls` serves, made at start: a phone's browser
/// gives DeviceMotion only to secure pages, and a studio on a laptop has no certificate a phone
/// trusts. The user accepts it once on the phone (the browser warns: nobody vouches for it).
///
/// A fresh P-256 key every start, kept in memory: nothing secret lands in the project folder
/// (which people copy and share) or anywhere else on disk, and the names always match the
/// addresses of this run. The price is one more warning to accept on the phone per start.
///
/// The key and the signature come from the `openssl` command (OpenSSL or LibreSSL, present on
/// Debian and macOS), the key passed through pipes only; the certificate itself is encoded here.
/// Linking a crypto library for one signature per start doubled the TLS part of the build.
public struct StudioCertificate: Sendable {
    /// The certificate, DER.
    public let certificateDER: [UInt8]
    /// Its private key, PEM (SEC 1). Never written anywhere.
    let privateKeyPEM: [UInt8]
    /// Hosts named in the certificate (subject alternative names), as given.
    public let names: [String]
    public let notValidBefore: Date
    public let notValidAfter: Date
    /// SHA-256 of the certificate as colon-separated hex, the form browsers show in a
    /// certificate's details: compare it on the phone to know the page is this studio's.
    public let fingerprint: String

    /// How long a certificate is valid: a studio runs for a session, not for a year.
    public static let lifetime: TimeInterval = 7 * 24 * 3600

    /// Makes a key and a certificate naming `hosts` (IP addresses or DNS names) plus loopback.
    /// - Parameter openssl: the `openssl` command to run, looked up in `PATH`.
    /// - Throws: ``StudioError`` naming the step that failed and why.
    public static func make(hosts: [String], now: Date = Date(), openssl: String = "openssl") throws -> StudioCertificate {
        var names: [String] = []
        for h in hosts + ["127.0.0.1", "::1", "localhost"] {
            let n = h.hasPrefix("[") && h.hasSuffix("]") ? String(h.dropFirst().dropLast()) : h
            // A wildcard bind address is not a name anyone opens.
            if n != "0.0.0.0", n != "::", !names.contains(n) { names.append(n) }
        }
        let alternativeNames = try names.map(generalName)
        // An hour back: a phone's clock a little behind the laptop's must not see "not yet valid".
        // Whole seconds: the certificate holds no fraction.
        let start = Date(timeIntervalSince1970: (now.timeIntervalSince1970 - 3600).rounded(.down))
        let end = start.addingTimeInterval(lifetime + 3600)
        let tool = OpenSSLCommand(path: openssl)
        let key = try tool.run(["ecparam", "-name", "prime256v1", "-genkey", "-noout"], step: "make a P-256 key")
        let publicKeyInfo = try tool.run(["ec", "-pubout", "-outform", "DER"], input: key, step: "read the key's public half")

        let subject = DER.sequence([
            DER.set([DER.sequence([DER.oid("2.5.4.10"), DER.utf8String("GestureKit")])]),
            DER.set([DER.sequence([DER.oid("2.5.4.3"), DER.utf8String("gesture studio")])]),
        ])
        let signatureAlgorithm = DER.sequence([DER.oid("1.2.840.10045.4.3.2")])  // ecdsa-with-SHA256
        var serial = (0..<16).map { _ in UInt8.random(in: 0...255) }
        serial[0] = serial[0] & 0x7F | 0x01  // positive, and 16 bytes long in DER
        let extensions = [
            // No KeyUsage: without keyCertSign a client that pins this certificate as its own
            // root (the tests, a careful user) cannot build the one-certificate chain.
            DER.sequence([DER.oid("2.5.29.19"), DER.boolean(true), DER.octetString(DER.sequence([]))]),  // basicConstraints, CA false
            // iOS refuses a TLS server certificate without serverAuth.
            DER.sequence([DER.oid("2.5.29.37"), DER.octetString(DER.sequence([DER.oid("1.3.6.1.5.5.7.3.1")]))]),
            DER.sequence([DER.oid("2.5.29.17"), DER.octetString(DER.sequence(alternativeNames))]),
        ]
        let toBeSigned = DER.sequence([
            DER.tlv(0xA0, DER.integer([2])),  // [0] version: v3
            DER.integer(serial),
            signatureAlgorithm,
            subject,
            DER.sequence([DER.time(start), DER.time(end)]),
            subject,
            publicKeyInfo,
            DER.tlv(0xA3, DER.sequence(extensions)),  // [3] extensions
        ])
        // The key comes in on stdin (read as a file named /dev/stdin), the data from a file:
        // what is on disk is only what the certificate shows anyway.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gesture-studio-\(UUID().uuidString)")
        let signature: [UInt8]
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            defer { try? FileManager.default.removeItem(at: directory) }
            let data = directory.appendingPathComponent("tbs.der")
            try Data(toBeSigned).write(to: data)
            signature = try tool.run(["dgst", "-sha256", "-sign", "/dev/stdin", data.path], input: key, step: "sign the certificate")
        } catch let e as StudioError {
            throw e
        } catch {
            throw StudioError("--tls: could not write the certificate to sign in \(directory.path): \(error.localizedDescription)")
        }
        let der = DER.sequence([toBeSigned, signatureAlgorithm, DER.bitString(signature)])
        let digest = try tool.run(["dgst", "-sha256", "-binary"], input: der, step: "hash the certificate")
        guard digest.count == 32 else {
            throw StudioError("--tls: `\(openssl) dgst -sha256 -binary` gave \(digest.count) bytes, not the 32 of a SHA-256")
        }
        return StudioCertificate(certificateDER: der, privateKeyPEM: key, names: names, notValidBefore: start, notValidAfter: end,
                                 fingerprint: digest.map { String(format: "%02X", $0) }.joined(separator: ":"))
    }

    /// A server configuration presenting this certificate (TLS 1.2 and later).
    /// - Throws: ``StudioError`` when the TLS library does not accept the certificate or key.
    public func serverConfiguration() throws -> TLSConfiguration {
        do {
            let cert = try NIOSSLCertificate(bytes: certificateDER, format: .der)
            let key = try NIOSSLPrivateKey(bytes: privateKeyPEM, format: .pem)
            var c = TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(cert)], privateKey: .privateKey(key))
            c.minimumTLSVersion = .tlsv12
            return c
        } catch {
            throw StudioError("--tls: the TLS library refused the generated certificate or key: \(error)")
        }
    }

    /// An IP address as its bytes, anything else as a DNS name (letters, digits, `-`, `.`), each
    /// as a GeneralName of a subjectAltName.
    static func generalName(_ host: String) throws -> [UInt8] {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return DER.tlv(0x87, withUnsafeBytes(of: &v4) { Array($0) })
        }
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return DER.tlv(0x87, withUnsafeBytes(of: &v6) { Array($0) })
        }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard !host.isEmpty, host.utf8.count <= 253, labels.allSatisfy({ label in
            (1...63).contains(label.count) && label.first != "-" && label.last != "-"
                && label.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
        }) else {
            throw StudioError("--tls: cannot name host \"\(host)\" in a certificate: it is neither an IP address nor a DNS name")
        }
        return DER.tlv(0x82, Array(host.utf8))
    }
}

/// The `openssl` command, run with pipes for its input and output.
struct OpenSSLCommand {
    let path: String

    /// Runs `openssl arguments` with `input` on stdin; its stdout, or a ``StudioError`` naming
    /// `step` with what openssl said.
    func run(_ arguments: [String], input: [UInt8] = [], step: String) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [path] + arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        do { try process.run() } catch {
            throw StudioError("--tls: could not run `\(path)` to \(step): \(error.localizedDescription)")
        }
        // Outputs are a few hundred bytes, inputs too: far below a pipe's buffer, so writing
        // all before reading cannot block. An openssl that exits before reading its input would
        // raise SIGPIPE and end the studio: ignored (a server's usual setting), the write fails
        // instead and the exit status below says why.
        signal(SIGPIPE, SIG_IGN)
        try? stdin.fileHandleForWriting.write(contentsOf: Data(input))
        try? stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let said = String(decoding: err, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if process.terminationStatus == 127 {
                throw StudioError("--tls makes its certificate with the `\(path)` command, which was not found: install OpenSSL (Debian: apt-get install openssl)")
            }
            throw StudioError("--tls: `\(path) \(arguments.joined(separator: " "))` could not \(step) (exit \(process.terminationStatus)): \(said.prefix(400))")
        }
        return Array(out)
    }
}

/// The few DER encodings a certificate needs (X.690).
enum DER {
    static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        let n = content.count
        var length: [UInt8]
        if n < 0x80 {
            length = [UInt8(n)]
        } else {
            length = []
            var m = n
            while m > 0 { length.insert(UInt8(m & 0xFF), at: 0); m >>= 8 }
            length.insert(0x80 | UInt8(length.count), at: 0)
        }
        return [tag] + length + content
    }

    static func sequence(_ items: [[UInt8]]) -> [UInt8] { tlv(0x30, items.flatMap { $0 }) }
    static func set(_ items: [[UInt8]]) -> [UInt8] { tlv(0x31, items.flatMap { $0 }) }
    static func boolean(_ value: Bool) -> [UInt8] { tlv(0x01, [value ? 0xFF : 0x00]) }
    static func octetString(_ bytes: [UInt8]) -> [UInt8] { tlv(0x04, bytes) }
    static func bitString(_ bytes: [UInt8]) -> [UInt8] { tlv(0x03, [0] + bytes) }
    static func utf8String(_ s: String) -> [UInt8] { tlv(0x0C, Array(s.utf8)) }

    /// A non-negative integer from its big-endian bytes, minimal and with a leading zero when
    /// its top bit is set.
    static func integer(_ bytes: [UInt8]) -> [UInt8] {
        var b = Array(bytes.drop { $0 == 0 })
        if b.isEmpty || b[0] & 0x80 != 0 { b.insert(0, at: 0) }
        return tlv(0x02, b)
    }

    /// An object identifier from its dotted form (each arc in base 128).
    static func oid(_ dotted: String) -> [UInt8] {
        let arcs = dotted.split(separator: ".").compactMap { UInt64($0) }
        var out: [UInt8] = []
        for arc in [arcs[0] * 40 + arcs[1]] + arcs.dropFirst(2) {
            var chunk: [UInt8] = [UInt8(arc & 0x7F)]
            var rest = arc >> 7
            while rest > 0 { chunk.insert(UInt8(rest & 0x7F) | 0x80, at: 0); rest >>= 7 }
            out += chunk
        }
        return tlv(0x06, out)
    }

    /// UTCTime through 2049, GeneralizedTime after, as RFC 5280 requires.
    static func time(_ date: Date) -> [UInt8] {
        var t = time_t(date.timeIntervalSince1970), parts = tm()
        gmtime_r(&t, &parts)
        let year = Int(parts.tm_year) + 1900
        let rest = String(format: "%02d%02d%02d%02d%02dZ", parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec)
        return year < 2050 ? tlv(0x17, Array((String(format: "%02d", year % 100) + rest).utf8))
                           : tlv(0x18, Array((String(format: "%04d", year) + rest).utf8))
    }
}
