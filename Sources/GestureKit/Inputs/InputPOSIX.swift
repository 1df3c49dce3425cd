#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Thin POSIX helpers shared by the input sources, the OSC sender and the file watcher. IPv4 only:
// the sources we talk to (phones, Wekinator, Max/Pd sketches) all speak IPv4 on the local network.

/// Monotonic time in nanoseconds (never jumps with the wall clock).
@inline(__always)
func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// Sleeps until the monotonic clock reaches `deadline` (restarts after signals).
func sleepUntil(nanos deadline: UInt64) {
    while true {
        let now = monotonicNanos()
        if now >= deadline { return }
        let left = deadline - now
        var ts = timespec(tv_sec: Int(left / 1_000_000_000), tv_nsec: Int(left % 1_000_000_000))
        _ = nanosleep(&ts, nil)
    }
}

/// The last `errno` as text, for error messages.
func errnoText(_ code: Int32 = errno) -> String {
    String(cString: strerror(code))
}

/// Waits until `fd` is readable or `deadline` (monotonic ns, nil = forever) passes.
/// Returns false on timeout. Readable includes end of file and errors, which the read then reports.
func waitReadable(_ fd: Int32, until deadline: UInt64?) -> Bool {
    #if canImport(Darwin)
    // Darwin's poll() answers POLLNVAL for terminals: interactive input would lose its idle
    // ticks, timeouts and reloads. select() works on them.
    let terminal = isatty(fd) == 1
    #endif
    while true {
        var timeoutMs: Int32 = -1
        if let deadline {
            let now = monotonicNanos()
            if now >= deadline {
                timeoutMs = 0
            } else {
                // Round up so a wait never returns early and spins.
                timeoutMs = Int32(clamping: (deadline - now + 999_999) / 1_000_000)
            }
        }
        #if canImport(Darwin)
        let r = terminal ? selectReadable(fd, timeoutMs: timeoutMs) ?? pollReadable(fd, timeoutMs: timeoutMs)
            : pollReadable(fd, timeoutMs: timeoutMs)
        #else
        let r = pollReadable(fd, timeoutMs: timeoutMs)
        #endif
        if r > 0 { return true }
        if r == 0 {
            if let deadline, monotonicNanos() < deadline { continue }
            return false
        }
        if errno == EINTR { continue }
        return true  // let the read report the error
    }
}

/// poll(2) for one descriptor's input: > 0 readable, 0 timeout, < 0 error; -1 ms = forever.
func pollReadable(_ fd: Int32, timeoutMs: Int32) -> Int32 {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&p, 1, timeoutMs)
}

/// select(2) for one descriptor, as poll() answers (> 0 readable, 0 timeout, < 0 error; -1 ms =
/// forever); nil when `fd` does not fit an `fd_set`. Compiled everywhere so Linux tests cover it.
func selectReadable(_ fd: Int32, timeoutMs: Int32) -> Int32? {
    #if !_endian(little)
    return nil  // the bit layout below is the little-endian one
    #endif
    var set = fd_set()
    guard fd >= 0, Int(fd) < MemoryLayout<fd_set>.size * 8 else { return nil }
    // fd_set is an array of words (32-bit on Darwin, 64-bit on glibc) with fd's bit at
    // fd % wordBits of word fd / wordBits: on a little-endian machine, bit fd % 8 of byte fd / 8.
    withUnsafeMutableBytes(of: &set) { $0[Int(fd) / 8] |= UInt8(1) << UInt8(fd % 8) }
    if timeoutMs < 0 { return select(fd + 1, &set, nil, nil, nil) }
    var tv = timeval(tv_sec: time_t(timeoutMs / 1000), tv_usec: suseconds_t((timeoutMs % 1000) * 1000))
    return select(fd + 1, &set, nil, nil, &tv)
}

/// Resolves an IPv4 host name or dotted address and port to a socket address.
func ipv4Address(host: String, port: Int) throws -> sockaddr_in {
    guard (0...65535).contains(port) else {
        throw GestureKitError("port \(port) is out of range 0-65535")
    }
    var addr = sockaddr_in()
    #if canImport(Darwin)
    addr.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    #endif
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = UInt16(port).bigEndian
    if host.isEmpty || host == "*" {
        addr.sin_addr.s_addr = INADDR_ANY.bigEndian
        return addr
    }
    if inet_pton(AF_INET, host, &addr.sin_addr) == 1 { return addr }
    var hints = addrinfo()
    hints.ai_family = AF_INET
    hints.ai_socktype = datagramSocketType
    var result: UnsafeMutablePointer<addrinfo>?
    let rc = getaddrinfo(host, nil, &hints, &result)
    defer { if let result { freeaddrinfo(result) } }
    guard rc == 0, let info = result, let sa = info.pointee.ai_addr else {
        throw GestureKitError("cannot resolve host \"\(host)\": \(String(cString: gai_strerror(rc)))")
    }
    let found = sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
    addr.sin_addr = found.sin_addr
    return addr
}

/// `SOCK_DGRAM` as the Int32 `socket(2)` takes: glibc declares it as an enum case, Darwin, musl
/// and Bionic as a plain integer.
#if canImport(Glibc)
let datagramSocketType = Int32(SOCK_DGRAM.rawValue)
#else
let datagramSocketType = Int32(SOCK_DGRAM)
#endif

/// An IPv4 UDP socket that closes itself when released.
final class UDPSocket {
    let fd: Int32

    init() throws {
        let s = socket(AF_INET, datagramSocketType, 0)
        guard s >= 0 else { throw GestureKitError("cannot create a UDP socket: \(errnoText())") }
        fd = s
    }

    deinit {
        close(fd)
        #if os(Linux)
        control.deallocate()
        #endif
    }

    /// Binds to `host:port` (port 0 = any free port, see ``localPort``).
    func bind(host: String, port: Int) throws {
        var addr = try ipv4Address(host: host, port: port)
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                systemBind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            throw GestureKitError("cannot listen on UDP \(host):\(port): \(errnoText())")
        }
    }

    /// The port the socket is bound to (useful after binding port 0).
    var localPort: Int {
        var addr = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// Datagrams the kernel dropped because this socket's receive queue was full, as of the last
    /// datagram received; nil until ``countKernelDrops()`` is on, and always nil on Darwin, which
    /// has no per-socket drop counter (SO_RXQ_OVFL is Linux only).
    private(set) var kernelDrops: Int?
    #if os(Linux)
    /// Control-message buffer for recvmsg: room for one SO_RXQ_OVFL counter (cmsghdr + UInt32).
    private let control = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 8)
    #endif

    /// Asks the kernel to attach its drop counter to each datagram (Linux SO_RXQ_OVFL). The
    /// counter comes with datagrams queued after a drop, so drops that end a burst show up with
    /// the next datagram. Returns false where that is not available (Darwin).
    @discardableResult
    func countKernelDrops() -> Bool {
        #if os(Linux)
        var yes: Int32 = 1
        guard setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &yes, socklen_t(MemoryLayout<Int32>.size)) == 0 else { return false }
        kernelDrops = 0
        return true
        #else
        return false
        #endif
    }

    /// Receives one datagram into `buffer`; nil when `deadline` passes first.
    func receive(into buffer: UnsafeMutableRawBufferPointer, until deadline: UInt64?) throws -> Int? {
        while true {
            guard waitReadable(fd, until: deadline) else { return nil }
            #if os(Linux)
            let n = kernelDrops == nil ? recv(fd, buffer.baseAddress, buffer.count, 0) : receiveCountingDrops(into: buffer)
            #else
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            #endif
            if n >= 0 { return n }
            if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
            throw GestureKitError("UDP receive failed: \(errnoText())")
        }
    }

    #if os(Linux)
    /// recvmsg(2) that reads the SO_RXQ_OVFL counter from the control messages. The CMSG_* macros
    /// do not import into Swift; the layout is cmsghdr (size_t len, int level, int type), the data
    /// at the header size rounded up to size_t, each message padded the same way.
    private func receiveCountingDrops(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var iov = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
        return withUnsafeMutablePointer(to: &iov) { iovp in
            var msg = msghdr()
            msg.msg_iov = iovp
            msg.msg_iovlen = 1
            msg.msg_control = control.baseAddress
            msg.msg_controllen = .init(control.count)  // size_t in glibc, socklen_t in musl
            let n = recvmsg(fd, &msg, 0)
            guard n >= 0 else { return n }
            let align = MemoryLayout<Int>.size
            func padded(_ x: Int) -> Int { (x + align - 1) & ~(align - 1) }
            let header = padded(MemoryLayout<cmsghdr>.size)
            var offset = 0
            let total = Int(msg.msg_controllen)
            while offset + MemoryLayout<cmsghdr>.size <= total {
                let h = control.load(fromByteOffset: offset, as: cmsghdr.self)
                let len = Int(h.cmsg_len)
                guard len >= header, offset + len <= total else { break }
                if h.cmsg_level == SOL_SOCKET, h.cmsg_type == SO_RXQ_OVFL, len >= header + 4 {
                    kernelDrops = Int(control.loadUnaligned(fromByteOffset: offset + header, as: UInt32.self))
                }
                offset += padded(len)
            }
            return n
        }
    }
    #endif

    /// Sends one datagram to `address`.
    func send(_ bytes: UnsafeRawBufferPointer, to address: sockaddr_in) throws {
        var addr = address
        while true {
            let n = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            if n >= 0 { return }
            if errno == EINTR { continue }
            throw GestureKitError("UDP send failed: \(errnoText())")
        }
    }
}

/// `bind(2)`, named apart from ``UDPSocket/bind(host:port:)``.
@inline(__always)
private func systemBind(_ fd: Int32, _ addr: UnsafePointer<sockaddr>, _ len: socklen_t) -> Int32 {
    #if canImport(Darwin)
    return Darwin.bind(fd, addr, len)
    #elseif canImport(Musl)
    return Musl.bind(fd, addr, len)
    #else
    return Glibc.bind(fd, addr, len)
    #endif
}
