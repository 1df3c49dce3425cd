#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Sends OSC messages over UDP, e.g. detections to Wekinator-style listeners.
///
/// ```swift
/// let out = try OSCSender(host: "127.0.0.1", port: 12000)
/// try out.send([.string("wave"), .float32(0.93)])          // to /wek/outputs
/// try out.send(OSCMessage("/gesture/start", [.int32(120)]))
/// ```
///
/// - Complexity: O(message size) per send; the encoding buffer is reused.
package final class OSCSender {
    /// Wekinator's default output address.
    package static let wekinatorOutputAddress = "/wek/outputs"

    /// The destination host.
    package let host: String
    /// The destination UDP port.
    package let port: Int
    /// Address used when sending bare arguments.
    package let address: String

    private let socket: UDPSocket
    private let destination: sockaddr_in
    private var scratch: [UInt8] = []

    /// - Throws: ``GestureKitError`` when the host cannot be resolved or the port is out of range.
    package init(host: String = InputSpec.loopback, port: Int, address: String = OSCSender.wekinatorOutputAddress) throws {
        guard address.hasPrefix("/") else { throw GestureKitError("OSC address must start with /, found \"\(address)\"", field: "address") }
        self.host = host
        self.port = port
        self.address = address
        destination = try ipv4Address(host: host, port: port)
        socket = try UDPSocket()
        scratch.reserveCapacity(256)
    }

    /// Sends `arguments` to ``address``.
    package func send(_ arguments: [OSCArgument]) throws {
        try send(OSCMessage(address, arguments))
    }

    /// Sends one message.
    package func send(_ message: OSCMessage) throws {
        try send(.message(message))
    }

    /// Sends a message or bundle as one datagram.
    package func send(_ packet: OSCPacket) throws {
        scratch.removeAll(keepingCapacity: true)
        packet.encode(into: &scratch)
        try scratch.withUnsafeBytes { try socket.send($0, to: destination) }
    }
}
