import HaraldCodec
/// Why a transport to a Bluetooth controller failed or stopped.
public enum HCITransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The byte stream held a packet indicator that is not one of 0x01…0x05: the framing is lost
    /// for good, so the transport closes. `offset` counts bytes from the start of the stream.
    case invalidPacketIndicator(UInt8, offset: Int)
    /// The transport specification text could not be understood (`tcp:HOST:PORT`, `hci:N`).
    case invalidSpecification(String)
    /// The transport is closed (by ``HCITransport/close()`` or by the other end).
    case closed
    /// Connecting failed; `detail` says how (host unknown, refused, …).
    case connectFailed(String)
    /// No Bluetooth adapter with this index exists (ENODEV), or the kernel has no Bluetooth
    /// sockets at all.
    case noSuchAdapter(String)
    /// The adapter is in use by someone else, typically the BlueZ daemon (EBUSY).
    case adapterBusy(String)
    /// The process may not open the HCI user channel (needs CAP_NET_ADMIN, EPERM/EACCES).
    case permissionDenied(String)
    /// This transport does not exist on this platform (the HCI user channel outside Linux).
    case unsupported(String)
    /// A read or write on the socket failed; `errno` is the system error number.
    case io(operation: String, errno: Int32)

    /// What went wrong with the controller's transport, with the detail the case carries, e.g.
    /// `invalid H4 packet indicator 0x07 at stream offset 512` or `send failed (errno 32)`.
    public var description: String {
        switch self {
        case let .invalidPacketIndicator(byte, offset):
            return "invalid H4 packet indicator 0x\(Hex.byte(byte)) at stream offset \(offset)"
        case let .invalidSpecification(detail): return "invalid transport: \(detail)"
        case .closed: return "transport closed"
        case let .connectFailed(detail): return "cannot connect: \(detail)"
        case let .noSuchAdapter(detail): return "no Bluetooth adapter: \(detail)"
        case let .adapterBusy(detail): return "Bluetooth adapter busy: \(detail)"
        case let .permissionDenied(detail): return "permission denied: \(detail)"
        case let .unsupported(detail): return "unsupported transport: \(detail)"
        case let .io(operation, errno): return "\(operation) failed (errno \(errno))"
        }
    }
}
