import HaraldCodec

/// The first octet of every SMP PDU (Core spec Vol 3 Part H §3.3): which command the PDU carries.
///
/// Only the codes the spec defines are cases; a PDU with any other code is answered with Pairing
/// Failed "Command Not Supported" (see ``SMPDecodingError``).
public enum SMPCode: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case pairingRequest = 0x01
    case pairingResponse = 0x02
    case pairingConfirm = 0x03
    case pairingRandom = 0x04
    case pairingFailed = 0x05
    case encryptionInformation = 0x06
    /// Called "Master Identification" before Core 5.3.
    case centralIdentification = 0x07
    case identityInformation = 0x08
    case identityAddressInformation = 0x09
    case signingInformation = 0x0A
    case securityRequest = 0x0B
    case pairingPublicKey = 0x0C
    case pairingDHKeyCheck = 0x0D
    case keypressNotification = 0x0E

    /// The PDU's whole length in octets, code included: every SMP PDU has one fixed length.
    public var pduLength: Int {
        switch self {
        case .pairingRequest, .pairingResponse: 7
        case .pairingConfirm, .pairingRandom, .encryptionInformation, .identityInformation, .signingInformation,
            .pairingDHKeyCheck:
            17
        case .pairingFailed, .securityRequest, .keypressNotification: 2
        case .centralIdentification: 11
        case .identityAddressInformation: 8
        case .pairingPublicKey: 65
        }
    }

    /// The command's name as the spec writes it.
    public var name: String {
        switch self {
        case .pairingRequest: "Pairing Request"
        case .pairingResponse: "Pairing Response"
        case .pairingConfirm: "Pairing Confirm"
        case .pairingRandom: "Pairing Random"
        case .pairingFailed: "Pairing Failed"
        case .encryptionInformation: "Encryption Information"
        case .centralIdentification: "Central Identification"
        case .identityInformation: "Identity Information"
        case .identityAddressInformation: "Identity Address Information"
        case .signingInformation: "Signing Information"
        case .securityRequest: "Security Request"
        case .pairingPublicKey: "Pairing Public Key"
        case .pairingDHKeyCheck: "Pairing DHKey Check"
        case .keypressNotification: "Keypress Notification"
        }
    }

    /// `Pairing Request (0x01)`.
    public var description: String { "\(name) (0x\(Hex.byte(rawValue)))" }
}

extension SecurityManager {
    /// The SMP MTU of a device that supports only LE legacy pairing: 23 octets (Core spec Vol 3
    /// Part H §3.2). Every legacy PDU fits.
    public static let legacyMTU = 23

    /// The SMP MTU of a device that supports LE Secure Connections: 65 octets, the length of the
    /// Pairing Public Key PDU. SMP never fragments, so a PDU longer than the MTU is malformed.
    public static let secureConnectionsMTU = 65
}
