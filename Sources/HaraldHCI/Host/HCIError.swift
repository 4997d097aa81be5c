import HaraldCodec
import HaraldCore
import HaraldL2CAP

/// Why an operation of the HCI host failed.
public enum HCIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The transport failed or closed.
    case transport(HCITransportError)
    /// The host was closed (by ``HCIHost/close()`` or because its transport ended).
    case closed
    /// The controller refused or failed a command.
    case commandFailed(HCIOpcode, HCIStatus)
    /// The controller did not answer a command within the host's command timeout.
    case commandTimedOut(HCIOpcode)
    /// The controller reported a Hardware Error (event 0x10, with its vendor-specific code): its
    /// state is unknown, so the host closed.
    case controllerHardwareError(UInt8)
    /// The controller answered in a way the command does not allow (wrong event, short reply).
    case unexpectedResponse(HCIOpcode, String)
    /// A packet from the controller could not be decoded.
    case malformed(ByteDecodingError)
    /// Connecting failed with the status the controller gave.
    case connectionFailed(BluetoothAddress, HCIStatus)
    /// The peer was not found (or did not answer) before the connection timeout.
    case connectionTimedOut(BluetoothAddress)
    /// The connection is gone; `reason` is the disconnection reason.
    case disconnected(reason: HCIStatus)
    /// Another operation of the same kind is in progress (one scan, one connection attempt at a time).
    case busy(String)
    /// The caller's task was cancelled.
    case cancelled
    /// Not available with this controller or argument.
    case unsupported(String)
    /// Encrypting the link failed with this status (0x06 PIN or Key Missing: the peer has no key).
    case encryptionFailed(HCIStatus)
    /// The peer did not open a credit-based channel: it refused (with the spec's result), rejected
    /// the command, or answered with parameters the mode forbids.
    case channelOpenFailed(ChannelOpenFailure)
    /// The credit-based channel is closed.
    case channelClosed(ChannelCloseReason)

    /// What failed in words, with the command opcode, HCI status, peer address or reason where the case
    /// carries one, e.g. `command 0x200D LE Create Connection failed: 0x0C (command disallowed)`.
    public var description: String {
        switch self {
        case let .transport(error): return "transport: \(error)"
        case .closed: return "HCI host closed"
        case let .commandFailed(opcode, status): return "command \(opcode) failed: \(status)"
        case let .commandTimedOut(opcode): return "command \(opcode) got no answer from the controller"
        case let .controllerHardwareError(code): return "the controller reported hardware error 0x\(Hex.byte(code))"
        case let .unexpectedResponse(opcode, detail): return "unexpected answer to \(opcode): \(detail)"
        case let .malformed(error): return "malformed packet from the controller: \(error)"
        case let .connectionFailed(peer, status): return "connecting to \(peer) failed: \(status)"
        case let .connectionTimedOut(peer): return "connecting to \(peer) timed out"
        case let .disconnected(reason): return "disconnected: \(reason)"
        case let .busy(detail): return "busy: \(detail)"
        case .cancelled: return "cancelled"
        case let .unsupported(detail): return "unsupported: \(detail)"
        case let .encryptionFailed(status): return "encryption failed: \(status)"
        case let .channelOpenFailed(failure): return "opening the channel failed: \(failure)"
        case let .channelClosed(reason): return "the channel is closed: \(reason)"
        }
    }
}
