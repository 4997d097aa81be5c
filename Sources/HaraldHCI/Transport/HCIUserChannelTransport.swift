#if os(Linux)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A real Bluetooth adapter driven through the Linux kernel's HCI user channel (`hci:N`).
///
/// The socket is `AF_BLUETOOTH`/`BTPROTO_HCI` bound with channel `HCI_CHANNEL_USER`: the kernel
/// gives this process the adapter exclusively and passes HCI packets through untouched (each read
/// is one packet, led by its H4 indicator byte). The adapter must be down and not held by BlueZ
/// (`hciconfig hciN down` or `btmgmt power off`), and the process needs CAP_NET_ADMIN.
public final class HCIUserChannelTransport: HCITransport {
    private let connection: SocketConnection
    /// The adapter index, as in `hci0`.
    public let adapterIndex: UInt16

    static let addressFamilyBluetooth: Int32 = 31  // AF_BLUETOOTH
    static let protocolHCI: Int32 = 1  // BTPROTO_HCI
    static let channelUser: UInt16 = 1  // HCI_CHANNEL_USER

    /// `struct sockaddr_hci` from the kernel's `hci_sock.h`.
    struct SocketAddress {
        var family: UInt16
        var device: UInt16
        var channel: UInt16
    }

    /// Opens adapter `hciN`. Errors say what to do: ``HCITransportError/noSuchAdapter(_:)``,
    /// ``HCITransportError/adapterBusy(_:)``, ``HCITransportError/permissionDenied(_:)``.
    public init(adapterIndex: UInt16) throws(HCITransportError) {
        self.adapterIndex = adapterIndex
        let name = "hci\(adapterIndex)"
        let fd = socket(Self.addressFamilyBluetooth, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), Self.protocolHCI)
        guard fd >= 0 else {
            throw Self.error(errno, adapter: name, step: "socket(AF_BLUETOOTH)")
        }
        var address = SocketAddress(family: UInt16(Self.addressFamilyBluetooth), device: adapterIndex, channel: Self.channelUser)
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, socklen_t(MemoryLayout<SocketAddress>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            systemClose(fd)
            throw Self.error(code, adapter: name, step: "bind")
        }
        connection = try SocketConnection(descriptor: fd, name: name)
    }

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

    /// Maps the errno of `socket`/`bind` to an error that tells the user what is wrong.
    static func error(_ code: Int32, adapter: String, step: String) -> HCITransportError {
        switch code {
        case ENODEV:
            return .noSuchAdapter("\(adapter) does not exist (\(step): \(describeErrno(code)))")
        case EAFNOSUPPORT, EPROTONOSUPPORT:
            return .noSuchAdapter("this kernel has no Bluetooth sockets, so \(adapter) cannot be opened (\(step): \(describeErrno(code)))")
        case EBUSY, EALREADY:
            return .adapterBusy(
                "\(adapter) is in use, probably by bluetoothd; bring it down first (`hciconfig \(adapter) down` or `btmgmt --index \(adapter.dropFirst(3)) power off`) (\(step): \(describeErrno(code)))"
            )
        case EPERM, EACCES:
            return .permissionDenied("opening \(adapter) needs CAP_NET_ADMIN (run as root or `setcap cap_net_admin+ep`) (\(step): \(describeErrno(code)))")
        default:
            return .io(operation: "\(step) \(adapter)", errno: code)
        }
    }
}
#endif
