import HaraldCodec

/// The first octet of every SMP PDU (Core spec Vol 3 Part H §3.3): which command the PDU carries.
///
/// Only the codes the spec defines are cases; a PDU with any other code is answered with Pairing
/// Failed "Command Not Supported" (see ``SMPDecodingError``).
public enum SMPCode: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// 0x01 Pairing Request: the initiator's IO capabilities, requirements and keys.
    case pairingRequest = 0x01
    /// 0x02 Pairing Response: the responder's.
    case pairingResponse = 0x02
    /// 0x03 Pairing Confirm: the commitment to a random value.
    case pairingConfirm = 0x03
    /// 0x04 Pairing Random: the random value behind the commitment.
    case pairingRandom = 0x04
    /// 0x05 Pairing Failed: pairing ends, with a reason.
    case pairingFailed = 0x05
    /// 0x06 Encryption Information: a distributed LTK.
    case encryptionInformation = 0x06
    /// Called "Master Identification" before Core 5.3.
    case centralIdentification = 0x07
    /// 0x08 Identity Information: the sender's IRK.
    case identityInformation = 0x08
    /// 0x09 Identity Address Information: the sender's public or static random address.
    case identityAddressInformation = 0x09
    /// 0x0A Signing Information: the sender's CSRK.
    case signingInformation = 0x0A
    /// 0x0B Security Request: a peripheral asks the central to pair or encrypt.
    case securityRequest = 0x0B
    /// 0x0C Pairing Public Key: a P-256 public key (LE Secure Connections).
    case pairingPublicKey = 0x0C
    /// 0x0D Pairing DHKey Check: proof of the shared key (LE Secure Connections).
    case pairingDHKeyCheck = 0x0D
    /// 0x0E Keypress Notification: progress of passkey entry.
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
