import Foundation
import GestureKit
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import NIOCore

/// `gesture studio`'s web server: the page at `/`, the live WebSocket at `/ws`. Binds to
/// 127.0.0.1 unless told otherwise; elsewhere every request must carry the access token.
public struct StudioServer: Sendable {
    public var host: String
    public var port: Int
    public let access: StudioAccess
    public let hub: StudioHub
    /// With a certificate the studio serves HTTPS and WSS only (`--tls`); without, plain HTTP.
    public let certificate: StudioCertificate?

    public init(host: String, port: Int, access: StudioAccess, hub: StudioHub, certificate: StudioCertificate? = nil) {
        self.host = host
        self.port = port
        self.access = access
        self.hub = hub
        self.certificate = certificate
    }

    /// The address to open, with the token when one is needed.
    public func url(host shownHost: String? = nil, port shownPort: Int? = nil) -> String {
        var h = shownHost ?? host
        if h.contains(":") && !h.hasPrefix("[") { h = "[\(h)]" }
        return (certificate == nil ? "http" : "https") + "://\(h):\(shownPort ?? port)/" + (access.token.map { "?token=\($0)" } ?? "")
    }

    /// Serves until SIGINT/SIGTERM. `onRunning` gets the bound port (useful with port 0).
    public func run(onRunning: @escaping @Sendable (Int) -> Void) async throws {
        let router = makeRouter()
        var logger = Logger(label: "gesture-studio")
        logger.logLevel = .warning
        let plain = HTTPServerBuilder.http1WebSocketUpgrade(
            webSocketRouter: router, configuration: .init(ws: .init(maxFrameSize: StudioLimits.maxMessageBytes)))
        let server = try certificate.map { try HTTPServerBuilder.tls(plain, tlsConfiguration: try $0.serverConfiguration()) } ?? plain
        let app = Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(host, port: port), serverName: "gesture-studio"),
            onServerRunning: { channel in onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
        try await app.runService()
    }

    func makeRouter() -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.middlewares.add(AccessMiddleware(access: access))
        router.get("/") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.cacheControl] = "no-store"
            headers[.init("Content-Security-Policy")!] = "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self' ws: wss:; img-src 'self' data:"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: StudioPage.html)))
        }
        let hub = self.hub
        router.ws("/ws", shouldUpgrade: { request, _ in
            guard StudioAccess.originMatches(origin: request.headers[.origin], host: request.head.authority) else {
                throw HTTPError(.forbidden, message: "cross-origin WebSocket refused")
            }
            return .upgrade([:])
        }) { inbound, outbound, _ in
            let (id, messages) = try hub.connect()
            defer { hub.disconnect(id) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await m in messages { try await outbound.write(.text(m)) }
                }
                group.addTask {
                    for try await message in inbound.messages(maxSize: StudioLimits.maxMessageBytes) {
                        if case .text(let text) = message { hub.receive(text, from: id) }
                    }
                }
                // Either side ending (page closed, socket error) ends the session.
                try await group.next()
                group.cancelAll()
            }
        }
        return router
    }
}

/// Token check on every request (page and WebSocket alike), GET only, no bodies: the studio
/// has no upload route, so anything else is refused before a route runs.
struct AccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: StudioAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard access.allows(query: request.uri.query) else {
            throw HTTPError(.unauthorized, message: "this studio needs the token printed when it started (?token=...)")
        }
        guard request.method == .get || request.method == .head else { throw HTTPError(.methodNotAllowed) }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > StudioLimits.maxRequestBodyBytes {
            throw HTTPError(.contentTooLarge)
        }
        return try await next(request, context)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension StudioServer {
    /// This machine's IPv4 addresses other than loopback: what a phone on the same network opens.
    public static func networkAddresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var out: [String] = []
        for p in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let sa = p.pointee.ifa_addr, sa.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            var buf = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard getnameinfo(sa, socklen_t(MemoryLayout<sockaddr_in>.size), &buf, socklen_t(buf.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let s = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !StudioAccess.isLoopback(s), !out.contains(s) { out.append(s) }
        }
        return out
    }
}
