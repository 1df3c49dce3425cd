import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The self-signed certificate `gesture studio --tls` serves, made at start: a phone's browser
/// gives DeviceMotion only to secure pages, and a studio on a laptop has no certificate a phone
/// trusts. The user accepts it once on the phone (the browser warns: nobody vouches for it).
///
/// A fresh P-256 key every start, kept in memory only: nothing secret lands in the project folder
/// (which people copy and share), and the names always match the addresses of this run. The price
/// is one more warning to accept on the phone per start.
public struct StudioCertificate: Sendable {
    /// The certificate, DER.
    public let certificateDER: [UInt8]
    /// Its private key, DER (PKCS#8). Never written anywhere.
    let privateKeyDER: [UInt8]
    /// Hosts named in the certificate (subject alternative names), as given.
    public let names: [String]
    public let notValidBefore: Date
    public let notValidAfter: Date

    /// How long a certificate is valid: a studio runs for a session, not for a year.
    public static let lifetime: TimeInterval = 7 * 24 * 3600

    /// Makes a key and a certificate naming `hosts` (IP addresses or DNS names) plus loopback.
    /// - Throws: ``StudioError`` naming the step that failed and why.
    public static func make(hosts: [String], now: Date = Date()) throws -> StudioCertificate {
        var names: [String] = []
        for h in hosts + ["127.0.0.1", "::1", "localhost"] {
            let n = h.hasPrefix("[") && h.hasSuffix("]") ? String(h.dropFirst().dropLast()) : h
            // A wildcard bind address is not a name anyone opens.
            if n != "0.0.0.0", n != "::", !names.contains(n) { names.append(n) }
        }
        let alternativeNames = try names.map(generalName)
        let key = P256.Signing.PrivateKey()
        // An hour back: a phone's clock a little behind the laptop's must not see "not yet valid".
        let start = now.addingTimeInterval(-3600), end = now.addingTimeInterval(lifetime)
        let der: [UInt8]
        do {
            let subject = try DistinguishedName {
                OrganizationName("GestureKit")
                CommonName("gesture studio")
            }
            let certificate = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
                notValidBefore: start, notValidAfter: end, issuer: subject, subject: subject,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    // No KeyUsage: without keyCertSign a client that pins this certificate as its
                    // own root (the tests, a careful user) cannot build the one-certificate chain.
                    Critical(BasicConstraints.notCertificateAuthority)
                    // iOS refuses a TLS server certificate without serverAuth.
                    try ExtendedKeyUsage([.serverAuth])
                    SubjectAlternativeNames(alternativeNames)
                },
                issuerPrivateKey: .init(key))
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            der = serializer.serializedBytes
        } catch {
            throw StudioError("--tls: could not sign the self-signed certificate: \(error)")
        }
        return StudioCertificate(certificateDER: der, privateKeyDER: Array(key.derRepresentation), names: names,
                                 notValidBefore: start, notValidAfter: end)
    }

    /// A server configuration presenting this certificate (TLS 1.2 and later).
    /// - Throws: ``StudioError`` when the TLS library does not accept the certificate or key.
    public func serverConfiguration() throws -> TLSConfiguration {
        do {
            let cert = try NIOSSLCertificate(bytes: certificateDER, format: .der)
            let key = try NIOSSLPrivateKey(bytes: privateKeyDER, format: .der)
            var c = TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(cert)], privateKey: .privateKey(key))
            c.minimumTLSVersion = .tlsv12
            return c
        } catch {
            throw StudioError("--tls: the TLS library refused the generated certificate or key: \(error)")
        }
    }

    /// SHA-256 of the certificate as colon-separated hex, the form browsers show in a
    /// certificate's details: compare it on the phone to know the page is this studio's.
    public var fingerprint: String {
        SHA256.hash(data: certificateDER).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// An IP address as its bytes, anything else as a DNS name (letters, digits, `-`, `.`).
    static func generalName(_ host: String) throws -> GeneralName {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return .ipAddress(ASN1OctetString(contentBytes: withUnsafeBytes(of: &v4) { ArraySlice($0) }))
        }
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return .ipAddress(ASN1OctetString(contentBytes: withUnsafeBytes(of: &v6) { ArraySlice($0) }))
        }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard !host.isEmpty, host.utf8.count <= 253, labels.allSatisfy({ label in
            (1...63).contains(label.count) && label.first != "-" && label.last != "-"
                && label.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
        }) else {
            throw StudioError("--tls: cannot name host \"\(host)\" in a certificate: it is neither an IP address nor a DNS name")
        }
        return .dnsName(host)
    }
}
