import HaraldCodec

/// Pairing Confirm (0x03): the confirm value (Mconfirm or Sconfirm), 16 octets, least significant
/// first. It commits the sender to its random value before that value is shown.
public struct SMPPairingConfirm: SMPPDUCodable {
    public static let code = SMPCode.pairingConfirm
    /// The 16-octet confirm value; encoding throws for any other length.
    public var confirmValue: [UInt8]

    /// A Pairing Confirm carrying the 16-octet confirm value.
    public init(confirmValue: [UInt8]) { self.confirmValue = confirmValue }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectCode(Self.code)
        confirmValue = try reader.readBytes(count: 16, field: "confirmValue")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.code.rawValue)
        try writer.write(confirmValue, count: 16, field: "confirmValue")
    }
}

/// Pairing Random (0x04): the random value (Mrand or Srand, Na or Nb), 16 octets, least
/// significant first, that the peer checks against the confirm value.
public struct SMPPairingRandom: SMPPDUCodable {
    public static let code = SMPCode.pairingRandom
    /// The 16-octet random value; encoding throws for any other length.
    public var randomValue: [UInt8]

    /// A Pairing Random carrying the 16-octet random value.
    public init(randomValue: [UInt8]) { self.randomValue = randomValue }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectCode(Self.code)
        randomValue = try reader.readBytes(count: 16, field: "randomValue")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.code.rawValue)
        try writer.write(randomValue, count: 16, field: "randomValue")
    }
}

/// Why pairing failed: the Reason octet of Pairing Failed (Core spec Vol 3 Part H §3.5.5, Table
/// 3.7). Codes the spec does not (yet) name are kept as they are, so any reason re-encodes.
public struct PairingFailureReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The Reason octet of Pairing Failed.
    public var rawValue: UInt8

    /// The reason with this code; any value is accepted, named by the spec or not.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// A reason from its code.
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// The user input of the passkey failed, or was cancelled.
    public static let passkeyEntryFailed = PairingFailureReason(0x01)
    /// The OOB data is not available.
    public static let oobNotAvailable = PairingFailureReason(0x02)
    /// The IO capabilities of the devices cannot meet the authentication requirements.
    public static let authenticationRequirements = PairingFailureReason(0x03)
    /// The confirm value does not match the one computed.
    public static let confirmValueFailed = PairingFailureReason(0x04)
    /// The device does not support pairing.
    public static let pairingNotSupported = PairingFailureReason(0x05)
    /// The resulting key size is too small for this device.
    public static let encryptionKeySize = PairingFailureReason(0x06)
    /// The device does not support the SMP command it received.
    public static let commandNotSupported = PairingFailureReason(0x07)
    /// Pairing failed for a reason not listed.
    public static let unspecifiedReason = PairingFailureReason(0x08)
    /// Too little time has passed since the last pairing or Security Request.
    public static let repeatedAttempts = PairingFailureReason(0x09)
    /// The command's length is wrong or a field is outside its range.
    public static let invalidParameters = PairingFailureReason(0x0A)
    /// The DHKey Check value does not match the one computed.
    public static let dhKeyCheckFailed = PairingFailureReason(0x0B)
    /// The confirm values of Numeric Comparison do not match (the user said no).
    public static let numericComparisonFailed = PairingFailureReason(0x0C)
    /// Pairing over BR/EDR is in progress.
    public static let brEdrPairingInProgress = PairingFailureReason(0x0D)
    /// The keys of one transport may not be used to derive the keys of the other.
    public static let crossTransportKeyDerivationGenerationNotAllowed = PairingFailureReason(0x0E)
    /// The device refuses a key it was distributed.
    public static let keyRejected = PairingFailureReason(0x0F)

    /// Every reason the spec names, in code order.
    public static let allNamed: [PairingFailureReason] = [
        .passkeyEntryFailed, .oobNotAvailable, .authenticationRequirements, .confirmValueFailed, .pairingNotSupported,
        .encryptionKeySize, .commandNotSupported, .unspecifiedReason, .repeatedAttempts, .invalidParameters,
        .dhKeyCheckFailed, .numericComparisonFailed, .brEdrPairingInProgress,
        .crossTransportKeyDerivationGenerationNotAllowed, .keyRejected,
    ]

    /// The spec's name; nil for a code it does not name.
    public var name: String? {
        switch self {
        case .passkeyEntryFailed: "Passkey Entry Failed"
        case .oobNotAvailable: "OOB Not Available"
        case .authenticationRequirements: "Authentication Requirements"
        case .confirmValueFailed: "Confirm Value Failed"
        case .pairingNotSupported: "Pairing Not Supported"
        case .encryptionKeySize: "Encryption Key Size"
        case .commandNotSupported: "Command Not Supported"
        case .unspecifiedReason: "Unspecified Reason"
        case .repeatedAttempts: "Repeated Attempts"
        case .invalidParameters: "Invalid Parameters"
        case .dhKeyCheckFailed: "DHKey Check Failed"
        case .numericComparisonFailed: "Numeric Comparison Failed"
        case .brEdrPairingInProgress: "BR/EDR pairing in progress"
        case .crossTransportKeyDerivationGenerationNotAllowed: "Cross-transport Key Derivation/Generation not allowed"
        case .keyRejected: "Key Rejected"
        default: nil
        }
    }

    /// `Invalid Parameters (0x0A)`, or `Reserved (0x42)` for a code the spec does not name.
    public var description: String { "\(name ?? "Reserved") (0x\(Hex.byte(rawValue)))" }
}

/// Pairing Failed (0x05): the sender stops pairing, for `reason`.
public struct SMPPairingFailed: SMPPDUCodable {
    public static let code = SMPCode.pairingFailed
    /// Why pairing failed.
    public var reason: PairingFailureReason

    /// A Pairing Failed PDU.
    public init(reason: PairingFailureReason) { self.reason = reason }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectCode(Self.code)
        reason = PairingFailureReason(try reader.read(UInt8.self, field: "reason"))
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.code.rawValue)
        writer.write(reason.rawValue)
    }
}

/// Security Request (0x0B): the responder (peripheral) asks the initiator to secure the link,
/// with the requirements it wants.
public struct SMPSecurityRequest: SMPPDUCodable {
    public static let code = SMPCode.securityRequest
    /// The security the peripheral asks for (bonding, MITM, Secure Connections).
    public var authReq: AuthReq

    /// A Security Request asking for `authReq`.
    public init(authReq: AuthReq) { self.authReq = authReq }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectCode(Self.code)
        authReq = AuthReq(rawValue: try reader.read(UInt8.self, field: "authReq"))
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.code.rawValue)
        writer.write(authReq.rawValue)
    }
}

/// Pairing Public Key (0x0C), LE Secure Connections: the sender's P-256 public key as its X and Y
/// coordinates, 32 octets each, each least significant octet first. The PDU is 65 octets, which
/// sets the SMP MTU of Secure Connections.
public struct SMPPairingPublicKey: SMPPDUCodable {
    public static let code = SMPCode.pairingPublicKey
    /// The X coordinate, 32 octets; encoding throws for any other length.
    public var x: [UInt8]
    /// The Y coordinate, 32 octets; encoding throws for any other length.
    public var y: [UInt8]

    /// A public key from its 32-octet coordinates (little-endian, as sent).
    public init(x: [UInt8], y: [UInt8]) {
        self.x = x
        self.y = y
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectCode(Self.code)
        x = try reader.readBytes(count: 32, field: "publicKeyX")
        y = try reader.readBytes(count: 32, field: "publicKeyY")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.code.rawValue)
        try writer.write(x, count: 32, field: "publicKeyX")
        try writer.write(y, count: 32, field: "publicKeyY")
    }
}

/// Pairing DHKey Check (0x0D), LE Secure Connections: the check value Ea or Eb, 16 octets, least
/// significant first, proving the sender computed the same DHKey.
public struct SMPPairingDHKeyCheck: SMPPDUCodable {
    public static let code = SMPCode.pairingDHKeyCheck
    /// The 16-octet check value; encoding throws for any other length.
    public var checkValue: [UInt8]

    /// A DHKey Check carrying the 16-octet check value.
    public init(checkValue: [UInt8]) { self.checkValue = checkValue }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectCode(Self.code)
        checkValue = try reader.readBytes(count: 16, field: "checkValue")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.code.rawValue)
        try writer.write(checkValue, count: 16, field: "checkValue")
    }
}

/// What the user just did on the keyboard during Passkey Entry (Core spec Vol 3 Part H §3.5.8,
/// Table 3.9). Codes 0x05–0xFF are reserved and rejected.
public enum KeypressNotificationType: UInt8, Hashable, Sendable, CaseIterable {
    /// 0x00: the user started entering the passkey.
    case passkeyEntryStarted = 0x00
    /// 0x01: a digit was entered.
    case passkeyDigitEntered = 0x01
    /// 0x02: a digit was erased.
    case passkeyDigitErased = 0x02
    /// 0x03: the entry was cleared.
    case passkeyCleared = 0x03
    /// 0x04: the passkey is complete.
    case passkeyEntryCompleted = 0x04
}

/// Keypress Notification (0x0E): sent by the side that types the passkey, when both set Keypress
/// in AuthReq.
public struct SMPKeypressNotification: SMPPDUCodable {
    public static let code = SMPCode.keypressNotification
    /// What the user did.
    public var notificationType: KeypressNotificationType

    /// A Keypress Notification.
    public init(_ notificationType: KeypressNotificationType) { self.notificationType = notificationType }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectCode(Self.code)
        let start = reader.offset
        let raw = try reader.read(UInt8.self, field: "notificationType")
        guard let type = KeypressNotificationType(rawValue: raw) else {
            throw reader.invalidValue("reserved notification type 0x\(Hex.byte(raw))", field: "notificationType", at: start)
        }
        notificationType = type
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.code.rawValue)
        writer.write(notificationType.rawValue)
    }
}
