/// Where a controller is, written the way the command line takes it.
///
/// - `tcp:HOST:PORT`: H4 over TCP (Bumble's virtual controllers); HOST may be a name, an IPv4
///   address or a bracketed IPv6 address (`tcp:[::1]:9000`).
/// - `hci:N`: the Linux HCI user channel on adapter `hciN` (also accepted: `hciN`).
public enum HCITransportSpecification: Sendable, Hashable, CustomStringConvertible {
    /// `tcp:HOST:PORT`: H4 packets over a TCP socket (Bumble's virtual controllers, a serial bridge).
    case tcp(host: String, port: UInt16)
    /// `hci:N`: the Linux HCI user channel of adapter hciN.
    case hciUserChannel(adapter: UInt16)

    /// Parses the text form; throws ``HCITransportError/invalidSpecification(_:)`` with the reason.
    public init(parsing text: String) throws(HCITransportError) {
        if text.hasPrefix("tcp:") {
            let rest = text.dropFirst(4)
            guard let colon = rest.lastIndex(of: ":") else {
                throw .invalidSpecification("'\(text)': expected tcp:HOST:PORT")
            }
            var host = String(rest[rest.startIndex..<colon])
            if host.hasPrefix("[") && host.hasSuffix("]") && host.count > 2 {
                host = String(host.dropFirst().dropLast())
            }
            let portText = rest[rest.index(after: colon)...]
            guard !host.isEmpty else { throw .invalidSpecification("'\(text)': the host is empty") }
            guard let port = UInt16(portText), port != 0 else {
                throw .invalidSpecification("'\(text)': the port must be a number from 1 to 65535")
            }
            self = .tcp(host: host, port: port)
        } else if text.hasPrefix("hci:") || text.hasPrefix("hci") {
            let number = text.hasPrefix("hci:") ? text.dropFirst(4) : text.dropFirst(3)
            guard let index = UInt16(number) else {
                throw .invalidSpecification("'\(text)': expected hci:N with N an adapter number such as 0")
            }
            self = .hciUserChannel(adapter: index)
        } else {
            throw .invalidSpecification("'\(text)': expected tcp:HOST:PORT or hci:N")
        }
    }

    /// The text form the command line takes: `tcp:HOST:PORT` (an IPv6 host in brackets) or `hci:N`.
    public var description: String {
        switch self {
        case let .tcp(host, port): return host.contains(":") ? "tcp:[\(host)]:\(port)" : "tcp:\(host):\(port)"
        case let .hciUserChannel(adapter): return "hci:\(adapter)"
        }
    }

    /// Opens the transport this specification names.
    public func open() throws(HCITransportError) -> any HCITransport {
        switch self {
        case let .tcp(host, port):
            return try TCPTransport(host: host, port: port)
        case let .hciUserChannel(adapter):
            #if os(Linux)
            return try HCIUserChannelTransport(adapterIndex: adapter)
            #else
            throw .unsupported("hci:\(adapter): the HCI user channel exists only on Linux")
            #endif
        }
    }
}

/// Opens a transport from its text form (`tcp:127.0.0.1:9000`, `hci:0`).
public func openHCITransport(_ specification: String) throws(HCITransportError) -> any HCITransport {
    try HCITransportSpecification(parsing: specification).open()
}
