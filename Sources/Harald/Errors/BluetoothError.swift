import HaraldCodec

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
    /// The peer answered with an ATT error response.
    case attribute(ATTStatus, handle: UInt16)
    /// A declared service or characteristic is not on the device.
    case notFound(String)
    /// The characteristic does not permit the operation (its properties lack it).
    case notPermitted(String)
    /// The peer broke the protocol (wrong response, malformed PDU); the link is unusable.
    case protocolViolation(String)
    /// A value from the device could not be decoded.
    case decoding(ByteDecodingError)
    /// A value could not be encoded for writing.
    case encoding(ByteEncodingError)
    /// The device could not be found or connected to.
    case connectionFailed(String)
    /// Another failure reported by the backend.
    case backend(String)

    public var description: String {
        switch self {
        case let .radioUnavailable(state): "Bluetooth radio is \(state)"
        case let .timeout(operation, duration): "\(operation) timed out after \(duration)"
        case let .disconnected(reason): "disconnected: \(reason)"
        case let .attribute(status, handle): "ATT error \(status) on handle 0x\(String(handle, radix: 16, uppercase: true))"
        case let .notFound(what): "not found: \(what)"
        case let .notPermitted(what): "not permitted: \(what)"
        case let .protocolViolation(detail): "protocol violation: \(detail)"
        case let .decoding(error): error.description
        case let .encoding(error): error.description
        case let .connectionFailed(detail): "connection failed: \(detail)"
        case let .backend(detail): detail
        }
    }
}

/// An ATT error code as it appears in an Error Response (Core spec Vol 3 Part F §3.4.1.1).
public struct ATTStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let invalidHandle = ATTStatus(rawValue: 0x01)
    public static let readNotPermitted = ATTStatus(rawValue: 0x02)
    public static let writeNotPermitted = ATTStatus(rawValue: 0x03)
    public static let invalidPDU = ATTStatus(rawValue: 0x04)
    public static let insufficientAuthentication = ATTStatus(rawValue: 0x05)
    public static let requestNotSupported = ATTStatus(rawValue: 0x06)
    public static let invalidOffset = ATTStatus(rawValue: 0x07)
    public static let insufficientAuthorization = ATTStatus(rawValue: 0x08)
    public static let prepareQueueFull = ATTStatus(rawValue: 0x09)
    public static let attributeNotFound = ATTStatus(rawValue: 0x0A)
    public static let attributeNotLong = ATTStatus(rawValue: 0x0B)
    public static let encryptionKeySizeTooShort = ATTStatus(rawValue: 0x0C)
    public static let invalidAttributeValueLength = ATTStatus(rawValue: 0x0D)
    public static let unlikelyError = ATTStatus(rawValue: 0x0E)
    public static let insufficientEncryption = ATTStatus(rawValue: 0x0F)
    public static let unsupportedGroupType = ATTStatus(rawValue: 0x10)
    public static let insufficientResources = ATTStatus(rawValue: 0x11)
    public static let databaseOutOfSync = ATTStatus(rawValue: 0x12)
    public static let valueNotAllowed = ATTStatus(rawValue: 0x13)

    /// True for the application range 0x80–0x9F.
    public var isApplicationError: Bool { (0x80...0x9F).contains(rawValue) }

    /// True when the peer wants the link secured first (authentication or encryption), which is
    /// how a device asks for pairing.
    public var requiresPairing: Bool {
        self == .insufficientAuthentication || self == .insufficientEncryption || self == .encryptionKeySizeTooShort
    }

    public var description: String {
        let names: [UInt8: String] = [
            0x01: "Invalid Handle", 0x02: "Read Not Permitted", 0x03: "Write Not Permitted", 0x04: "Invalid PDU",
            0x05: "Insufficient Authentication", 0x06: "Request Not Supported", 0x07: "Invalid Offset",
            0x08: "Insufficient Authorization", 0x09: "Prepare Queue Full", 0x0A: "Attribute Not Found",
            0x0B: "Attribute Not Long", 0x0C: "Encryption Key Size Too Short", 0x0D: "Invalid Attribute Value Length",
            0x0E: "Unlikely Error", 0x0F: "Insufficient Encryption", 0x10: "Unsupported Group Type",
            0x11: "Insufficient Resources", 0x12: "Database Out Of Sync", 0x13: "Value Not Allowed",
            0xFC: "Write Request Rejected", 0xFD: "CCCD Improperly Configured", 0xFE: "Procedure Already In Progress",
            0xFF: "Out Of Range",
        ]
        let hex = "0x" + String(rawValue, radix: 16, uppercase: true)
        if let name = names[rawValue] { return "\(name) (\(hex))" }
        return isApplicationError ? "application error \(hex)" : "error \(hex)"
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
    /// Any other reason, with the backend's code or text.
    case other(String)

    public var description: String {
        switch self {
        case .localRequest: "closed by this device"
        case .remoteRequest: "closed by the peer"
        case .connectionLost: "connection lost"
        case .attTimeout: "ATT transaction timeout"
        case let .protocolViolation(detail): "protocol violation: \(detail)"
        case let .other(detail): detail
        }
    }
}
