import Foundation

/// Bounds on everything a page or a network peer can send, so no client can make the studio
/// allocate without limit.
public enum StudioLimits {
    /// Largest WebSocket message accepted (one frame or a reassembled message).
    public static let maxMessageBytes = 64 << 10
    /// Largest HTTP request body (the studio serves only GETs; nothing needs a body).
    public static let maxRequestBodyBytes = 1 << 10
    /// Motion frames in one page message (a phone sends a few per 20 ms batch).
    public static let maxFramesPerMessage = 64
    /// Channels in one frame.
    public static let maxChannels = 64
    /// Characters in a class label.
    public static let maxLabelLength = 48
    /// Frames in one recorded example (2.5 minutes at 200 frames/s); longer holds are cut here.
    public static let maxExampleFrames = 30_000
    /// Messages queued for one page; a page that cannot keep up loses the oldest frames instead
    /// of growing the server's memory.
    public static let clientQueue = 2048
    /// Pages connected at once.
    public static let maxClients = 16
}

/// Who may talk to the studio. On loopback anyone on this machine may (like any local dev
/// server); on any other address every request and WebSocket must carry `token=` with a random
/// secret printed at start, so a neighbour on the network cannot drive or read the studio.
public struct StudioAccess: Sendable, Hashable {
    /// nil: no token needed (loopback).
    public let token: String?

    public init(token: String?) { self.token = token }

    /// No token on a loopback host, else a fresh random 128-bit token.
    public static func forHost(_ host: String) -> StudioAccess {
        isLoopback(host) ? StudioAccess(token: nil) : StudioAccess(token: randomToken())
    }

    /// `127.x.x.x`, `::1` and `localhost`.
    public static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased()
        if h == "localhost" || h == "::1" || h == "[::1]" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// 32 hex digits from the system's secure generator.
    public static func randomToken() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let v = g.next() as UInt64
            let s = String(v, radix: 16)
            return String(repeating: "0", count: 16 - s.count) + s
        }.joined()
    }

    /// Whether a request with this query string (`a=1&token=...`, without `?`) may proceed.
    /// - Complexity: O(query length); the token compare takes the same time wherever it differs.
    public func allows(query: String?) -> Bool {
        guard let token else { return true }
        guard let query else { return false }
        for pair in query.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if kv.count == 2, kv[0] == "token" { return StudioAccess.sameBytes(Array(kv[1].utf8), Array(token.utf8)) }
        }
        return false
    }

    /// A page's WebSocket must come from the page the studio served: a browser sends `Origin`,
    /// and another web site open in the same browser must not reach a studio on loopback.
    /// No `Origin` (a script, not a browser) is allowed; the token still applies.
    public static func originMatches(origin: String?, host: String?) -> Bool {
        guard let origin else { return true }
        guard let host, let url = URL(string: origin), let oHost = url.host else { return false }
        let oPort = url.port.map { ":\($0)" } ?? ""
        let bracketed = oHost.contains(":") ? "[\(oHost)]" : oHost
        return (bracketed + oPort).lowercased() == host.lowercased()
    }

    private static func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for i in a.indices { diff |= a[i] ^ b[i] }
        return diff == 0
    }
}
