import HaraldCodec
import HaraldCore

/// Why a GATT client operation failed.
public enum GATTError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server answered with an Error Response: `code` for `request` at `handle`.
    case attribute(ATTErrorCode, handle: UInt16, request: ATTOpcode)
    /// The operation's timeout passed before it finished. If its request was already sent, the
    /// transaction stays open until the response or the ATT transaction timeout.
    case timeout
    /// The calling task was cancelled.
    case cancelled
    /// The bearer closed (disconnection, or the ATT transaction timeout closed it); every pending
    /// and later operation fails with this.
    case disconnected
    /// Protocol error: the server answered the outstanding request with another PDU
    /// (`received`: its opcode; for an Error Response, the request opcode it named is wrong).
    case unexpectedResponse(expected: ATTOpcode, received: ATTOpcode)
    /// Protocol error: the response was malformed or inconsistent (entries out of range,
    /// handles going backwards, …).
    case invalidResponse(String)
    /// Protocol error: a PDU from the peer broke a rule of ATT or GATT (longer than ATT_MTU,
    /// discovery answers overlapping, out of order, outside the requested range or at handle 0).
    /// The client closed the bearer.
    case protocolViolation(ATTProtocolViolation)
    /// The caller asked for something ATT cannot carry (value too long for the MTU, handle 0…).
    case invalidArgument(String)
    /// A reliable write found its echoed part different from what was sent; the prepared
    /// writes were cancelled.
    case reliableWriteMismatch(handle: UInt16, offset: UInt16)
    /// A long write is already running on this client; prepared writes cannot interleave.
    case procedureInProgress

    /// True for an Error Response about the attribute asked for; false for every other failure,
    /// Database Out Of Sync included (it is about all of the client's handles).
    public var isAboutOneAttribute: Bool {
        guard case .attribute(let code, _, _) = self else { return false }
        return code != .databaseOutOfSync
    }

    /// True for the errors that mean the peer broke the protocol.
    public var isProtocolError: Bool {
        switch self {
        case .unexpectedResponse, .invalidResponse, .protocolViolation: true
        default: false
        }
    }

    /// The failure in words; for an Error Response, the request, the handle and the ATT error code,
    /// e.g. `Read Request on handle 3 failed: Insufficient Authentication (0x05)`.
    public var description: String {
        switch self {
        case let .attribute(code, handle, request): "\(request.name) on handle \(handle) failed: \(code)"
        case .timeout: "timed out"
        case .cancelled: "cancelled"
        case .disconnected: "disconnected"
        case let .unexpectedResponse(expected, received): "protocol error: expected \(expected), got \(received)"
        case let .invalidResponse(detail): "protocol error: \(detail)"
        case let .protocolViolation(violation): "protocol violation: \(violation)"
        case let .invalidArgument(detail): "invalid argument: \(detail)"
        case let .reliableWriteMismatch(handle, offset): "reliable write echo mismatch on handle \(handle) at offset \(offset)"
        case .procedureInProgress: "a long write is already in progress"
        }
    }
}
