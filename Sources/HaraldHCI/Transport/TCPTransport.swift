#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// H4 framing over a TCP connection: what Bumble's virtual controllers (and many HCI bridges)
/// serve. Written as `tcp:HOST:PORT`.
public final class TCPTransport: HCITransport {
    private let connection: SocketConnection
    /// The host and port this transport is connected to.
    public let host: String
    /// The TCP port it connected to.
    public let port: UInt16

    /// Connects to `host:port`; gives up after `connectTimeoutSeconds` (whole seconds).
    ///
    /// `backlogCapacity`: how many packets read from the controller may wait for the host; when
    /// that many wait, reading pauses until the host takes one (nothing is dropped).
    public init(
        host: String, port: UInt16, connectTimeoutSeconds: Int = 5, backlogCapacity: Int = 4096
    ) throws(HCITransportError) {
        self.host = host
        self.port = port
        let fd = try Self.openSocket(host: host, port: port, timeoutSeconds: connectTimeoutSeconds)
        connection = try SocketConnection(descriptor: fd, name: "tcp:\(host):\(port)", backlogCapacity: backlogCapacity)
    }

    /// Packets read from the controller that the host has not taken yet (for tests).
    var waitingPackets: Int { connection.packets.count }

    /// True when called on the thread that reads the socket (for tests).
    var isReadingThread: Bool { connection.isReadingThread }

    public var packets: HCIPacketInbox { connection.packets }

    /// The transport's reading thread, as the host's executor.
    public var executor: (any SerialExecutor)? { connection.executor }

    /// The reading thread as a task executor (see ``HCITransport/taskExecutor``).
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public var taskExecutor: (any TaskExecutor)? { connection.taskExecutor }

    public func send(_ packet: HCIPacket) async throws(HCITransportError) {
        try connection.send(packet.h4Bytes)
    }

    public func close() async {
        connection.close()
    }

    deinit { connection.close() }

    private static func openSocket(host: String, port: UInt16, timeoutSeconds: Int) throws(HCITransportError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw .connectFailed("cannot resolve \(host) (getaddrinfo \(status))")
        }
        defer { freeaddrinfo(first) }
        var lastErrno: Int32 = 0
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd < 0 {
                lastErrno = errno
                continue
            }
            // SO_SNDTIMEO bounds connect() on Linux as well as each send.
            var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var one: Int32 = 1
            // Small HCI packets must not wait for Nagle's algorithm.
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            #if canImport(Darwin)
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            var result: Int32
            repeat {
                result = systemConnect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen)
            } while result < 0 && errno == EINTR
            if result == 0 { return fd }
            lastErrno = errno
            systemClose(fd)
        }
        throw .connectFailed("\(host):\(port): \(describeErrno(lastErrno))")
    }
}

@inline(__always)
private func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>?, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}

/// The system's text for an error number.
func describeErrno(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "errno \(code)" }
    return "\(String(cString: text)) (errno \(code))"
}
