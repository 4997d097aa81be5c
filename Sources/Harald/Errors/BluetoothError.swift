import HaraldCodec
import HaraldCore

/// Everything that can go wrong talking to a Bluetooth device, in one typed error.
///
/// Backends translate their own failures (ATT error responses, HCI status codes, CoreBluetooth's
/// `CBError`/`CBATTError`) into these cases, so app code handles one error type whichever backend
/// runs.
public enum BluetoothError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The radio is off, unauthorized or unsupported, so the operation could not start.
    case radioUnavailable(RadioState)
    /// The operation did not finish within its timeout.
    case timeout(operation: String, after: Duration)
    /// The connection is gone (or went away during the operation).
    case disconnected(DisconnectReason)
    /// The peer refused an operation with an ATT error code.
    ///
    /// `on` names the attribute in error: on backends that see handles, the attribute at the
    /// handle the peer's Error Response gave (usually the one the operation addressed; a CCCD's
    /// when the CCCD write failed); on CoreBluetooth, which passes the peer's code on but not
    /// the handle, the attribute the operation addressed. Nil when the error concerns no single
    /// attribute (an Error Response with handle 0x0000, a failed service discovery).
    case attribute(ATTErrorCode, on: AttributeID?)
    /// A declared service or characteristic is not on the device.
    case notFound(String)
    /// The characteristic does not permit the operation (its properties lack it).
    case notPermitted(String)
    /// The peer broke the protocol (wrong response, malformed PDU, a PDU longer than the ATT_MTU,
    /// discovery answers overlapping, out of order, outside the range asked about or at handle 0);
    /// the link is unusable, and backends that see ATT close it. `handle` is the ATT handle that
    /// broke the rule, when one did.
    case protocolViolation(String, handle: UInt16? = nil)
    /// A value from the device could not be decoded.
    case decoding(ByteDecodingError)
    /// A value could not be encoded for writing.
    case encoding(ByteEncodingError)
    /// The device could not be found or connected to.
    case connectionFailed(String)
    /// Another failure reported by the backend.
    case backend(String)
    /// The task doing the operation was cancelled: Harald's typed stand-in for
    /// `CancellationError`. A central's calls throw it only to a task that is cancelled
    /// (`Task.isCancelled` is true where it is caught); a peripheral backend also ends the calls
    /// of a served device that is stopped with it. `catch is CancellationError` never matches it; catch it with
    /// `catch .cancelled` (in a `do throws(BluetoothError)` block),
    /// `catch BluetoothError.cancelled`, or test any error with `error.isCancellation`
    /// (true for this case and for `CancellationError`).
    case cancelled
    /// The peripheral changed its services (Service Changed) and the attribute is gone or moved;
    /// the connection discovers again on the next use. Subscriptions on a changed service end
    /// with this error, once the connection has forgotten the changed characteristic: a loop
    /// that subscribes again as soon as it catches it gets the rediscovered one.
    case serviceChanged(AttributeID?)
    /// The backend cannot do this (CoreBluetooth hides handles, the simulator has no RSSI…).
    case unsupported(String)
    /// The peer no longer has the bond this device holds for it (it was reset or forgot the
    /// pairing): CoreBluetooth's `CBError.peerRemovedPairingInformation` (14), HCI's "PIN or Key
    /// Missing" (0x06) on encryption, or a link dropped with MIC Failure (0x3D) on encryption (the
    /// peer holds another key). Pair again (on iOS, after the user removes the device in
    /// Settings).
    case peerRemovedPairingInformation
    /// Pairing did not complete: the peer or this device failed it (with the Security Manager's
    /// reason, such as "Confirm Value Failed" for a wrong passkey), or the person refused.
    case pairingFailed(String)
    /// Pairing with this peer failed moments ago, so a new attempt must wait this long (Repeated
    /// Attempts protection, Core spec Vol 3 Part H §2.3.6: the wait doubles with every failure
    /// in a row). Nothing was sent to the peer.
    case pairingAttemptTooSoon(retryAfter: Duration)
    /// Encrypting the link did not finish in time (`CBError.encryptionTimedOut`, 15).
    case encryptionTimedOut
    /// A pairing's keys were refused and not stored (the pairing ended with Pairing Failed and
    /// any stored bond is unchanged): the identity the peer claimed is not proven by its
    /// connection, it belongs to another bonded device, or the pairing is weaker than the bond
    /// it would replace and the pairing agent did not confirm.
    case bondRefused(BondRefusal)
    /// The link's security was not raised and no pairing was attempted: it was raised once on
    /// this link already, or this device's IO capabilities cannot reach the level asked.
    case securityNotRaised(SecurityRaiseRefusal)
    /// The system cannot hold another connection (`CBError.connectionLimitReached`, 11; HCI
    /// "Connection Limit Exceeded", 0x09).
    case connectionLimitReached
    /// A subscription buffering losslessly (``UpdateBuffering/lossless(limit:)``, the default for
    /// indications) had this many values waiting for its loop; it ended rather than drop one.
    case bufferOverflow(Int)
    /// The app used the API in a way it does not allow, such as two loops over one
    /// ``Subscription`` at once; the message says what and how to fix it.
    case misuse(String)
    /// The peer refused to open an L2CAP channel (``L2CAPChannelRefusal`` has the spec's result).
    case channelRefused(L2CAPChannelRefusal)
    /// The L2CAP channel is closed (by either end, or with the link), so it sends and receives
    /// nothing more.
    case channelClosed(L2CAPChannelCloseReason)

    /// The failure in words with the detail its case carries, e.g.
    /// `scan timed out after 10.0 seconds` or `disconnected: connection lost`.
    public var description: String {
        switch self {
        case let .radioUnavailable(state): "Bluetooth radio is \(state)"
        case let .timeout(operation, duration): "\(operation) timed out after \(duration)"
        case let .disconnected(reason): "disconnected: \(reason)"
        case let .attribute(status, attribute?): "ATT error \(status) on \(attribute)"
        case let .attribute(status, nil): "ATT error \(status)"
        case let .notFound(what): "not found: \(what)"
        case let .notPermitted(what): "not permitted: \(what)"
        case let .protocolViolation(detail, _): "protocol violation: \(detail)"
        case let .decoding(error): error.description
        case let .encoding(error): error.description
        case let .connectionFailed(detail): "connection failed: \(detail)"
        case let .backend(detail): detail
        case .cancelled: "cancelled"
        case let .serviceChanged(attribute?): "the peripheral changed its services (\(attribute) is stale)"
        case .serviceChanged(nil): "the peripheral changed its services"
        case let .unsupported(what): "not supported: \(what)"
        case .peerRemovedPairingInformation: "the peer removed its pairing information (pair again)"
        case .encryptionTimedOut: "encrypting the link timed out"
        case let .pairingFailed(detail): "pairing failed: \(detail)"
        case let .bondRefused(refusal): "pairing failed: \(refusal)"
        case let .securityNotRaised(refusal): "security not raised: \(refusal)"
        case let .pairingAttemptTooSoon(wait): "pairing failed with this peer moments ago; try again in \(wait)"
        case .connectionLimitReached: "no more connections are possible"
        case let .misuse(what): "API misuse: \(what)"
        case let .bufferOverflow(limit): "\(limit) values waited for the loop; the subscription ended rather than drop one"
        case let .channelRefused(refusal): "the peer refused the L2CAP channel: \(refusal)"
        case let .channelClosed(reason): "the L2CAP channel is closed: \(reason)"
        }
    }
}

/// What ATT error codes mean for the app.
extension ATTErrorCode {
    /// True when the peer wants the link secured first (authentication or encryption), which is
    /// how a device asks for pairing.
    public var requiresPairing: Bool {
        self == .insufficientAuthentication || self == .insufficientEncryption || self == .encryptionKeySizeTooShort
    }
}

extension DisconnectReason {
    /// The reason behind an HCI Disconnection Complete reason code (Core spec Vol 1 Part F):
    /// 0x13–0x15 are the peer's own decision, 0x16 is this host's, anything else (0x08
    /// supervision timeout, 0x3E failed to establish, …) is a lost link.
    public init(hciReason code: UInt8) {
        switch code {
        case 0x13, 0x14, 0x15: self = .remoteRequest
        case 0x16: self = .localRequest
        case 0x06: self = .peerRemovedPairingInformation
        default: self = .connectionLost
        }
    }
}

/// Why a connection ended.
public enum DisconnectReason: Hashable, Sendable, CustomStringConvertible {
    /// This side disconnected on purpose.
    case localRequest
    /// The peer disconnected on purpose (HCI 0x13 and friends).
    case remoteRequest
    /// The link was lost: supervision timeout (HCI 0x08), out of range, powered off.
    case connectionLost
    /// An ATT transaction timed out; the Core spec requires closing the link.
    case attTimeout
    /// The peer broke the protocol and the link was closed.
    case protocolViolation(String)
    /// The peer no longer has this device's pairing keys (it was reset, or told to forget this
    /// device), so the bonded link could not be encrypted: CoreBluetooth's error 14, HCI's
    /// PIN or Key Missing (0x06). Reconnecting will not help; the bond must be removed here (on
    /// Apple platforms, by the user in Settings) and the devices paired again.
    case peerRemovedPairingInformation
    /// Any other reason, with the backend's code or text.
    case other(String)

    /// Who or what ended the connection: `closed by this device`, `closed by the peer`,
    /// `connection lost`, `ATT transaction timeout`, or the detail the other cases carry.
    public var description: String {
        switch self {
        case .localRequest: "closed by this device"
        case .remoteRequest: "closed by the peer"
        case .connectionLost: "connection lost"
        case .attTimeout: "ATT transaction timeout"
        case let .protocolViolation(detail): "protocol violation: \(detail)"
        case .peerRemovedPairingInformation: "the peer removed its pairing information"
        case let .other(detail): detail
        }
    }
}
