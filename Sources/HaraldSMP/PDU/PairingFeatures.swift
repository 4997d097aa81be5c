import HaraldCodec

/// A device's input and output abilities, as exchanged in Pairing Request and Response (Core spec
/// Vol 3 Part H §3.5.1, Table 3.4). Codes 0x05–0xFF are reserved and rejected.
public enum IOCapability: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// 0x00: can show a six-digit number, no input.
    case displayOnly = 0x00
    /// 0x01: can show a number and take a yes or no.
    case displayYesNo = 0x01
    /// 0x02: can take digits, no display.
    case keyboardOnly = 0x02
    /// 0x03: neither: only Just Works is possible.
    case noInputNoOutput = 0x03
    /// 0x04: can show numbers and take digits.
    case keyboardDisplay = 0x04

    /// The spec's name, such as `KeyboardDisplay`.
    public var description: String {
        switch self {
        case .displayOnly: "DisplayOnly"
        case .displayYesNo: "DisplayYesNo"
        case .keyboardOnly: "KeyboardOnly"
        case .noInputNoOutput: "NoInputNoOutput"
        case .keyboardDisplay: "KeyboardDisplay"
        }
    }
}

/// The AuthReq octet of Pairing Request, Pairing Response and Security Request (Core spec Vol 3
/// Part H §3.5.1, Figure 3.3): the bonding flags in bits 0–1, then MITM, SC, Keypress and CT2.
///
/// Reserved bits (6–7, and bonding flags `1x`) are kept as received, so a PDU re-encodes to its
/// own bytes; the spec tells a receiver to ignore them.
public struct AuthReq: OptionSet, Hashable, Sendable, CustomStringConvertible {
    /// The AuthReq octet as sent, reserved bits included.
    public var rawValue: UInt8
    /// The AuthReq with these bits set; reserved bits are kept.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bonding flags `01`: the device wants to store the keys (a bond).
    public static let bonding = AuthReq(rawValue: 0x01)
    /// MITM: the device asks for protection against a man in the middle (an authenticated key).
    public static let mitm = AuthReq(rawValue: 0x04)
    /// SC: the device supports LE Secure Connections.
    public static let secureConnections = AuthReq(rawValue: 0x08)
    /// Keypress: the device sends Keypress Notifications during Passkey Entry.
    public static let keypress = AuthReq(rawValue: 0x10)
    /// CT2: the device supports h7 for cross-transport key derivation.
    public static let ct2 = AuthReq(rawValue: 0x20)

    /// The two-bit Bonding_Flags field: `00` No Bonding, `01` Bonding, `10` and `11` reserved.
    public var bondingFlags: UInt8 { rawValue & 0b11 }
    /// True when the bonding flags are `01` (Bonding).
    public var isBonding: Bool { bondingFlags == 0b01 }

    /// The named bits that are set, such as `[Bonding, MITM, SC]`, plus any reserved bits in hex.
    public var description: String {
        var names: [String] = []
        if isBonding { names.append("Bonding") }
        if contains(.mitm) { names.append("MITM") }
        if contains(.secureConnections) { names.append("SC") }
        if contains(.keypress) { names.append("Keypress") }
        if contains(.ct2) { names.append("CT2") }
        if bondingFlags & 0b10 != 0 { names.append("reserved Bonding_Flags \(bondingFlags)") }
        if rawValue & 0xC0 != 0 { names.append("reserved 0x\(Hex.byte(rawValue & 0xC0))") }
        return "[\(names.joined(separator: ", "))]"
    }
}

/// Which keys a device will distribute in phase 3 (Core spec Vol 3 Part H §3.6.1): the Initiator
/// and Responder Key Distribution octets. Reserved bits 4–7 are kept as received.
public struct KeyDistribution: OptionSet, Hashable, Sendable, CustomStringConvertible {
    /// The key distribution octet as sent: EncKey bit 0, IdKey bit 1, SignKey bit 2, LinkKey bit 3,
    /// reserved bits 4–7.
    public var rawValue: UInt8
    /// The key distribution with these bits set; reserved bits are kept.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// EncKey: LTK with EDIV and Rand (Encryption Information, Central Identification); ignored by
    /// LE Secure Connections, where both sides derive the LTK.
    public static let encKey = KeyDistribution(rawValue: 0x01)
    /// IdKey: IRK and identity address (Identity Information, Identity Address Information).
    public static let idKey = KeyDistribution(rawValue: 0x02)
    /// SignKey: CSRK (Signing Information).
    public static let signKey = KeyDistribution(rawValue: 0x04)
    /// LinkKey: derive a BR/EDR link key from the LTK.
    public static let linkKey = KeyDistribution(rawValue: 0x08)

    /// The named bits that are set, such as `[EncKey, IdKey]`, plus any reserved bits in hex.
    public var description: String {
        var names: [String] = []
        if contains(.encKey) { names.append("EncKey") }
        if contains(.idKey) { names.append("IdKey") }
        if contains(.signKey) { names.append("SignKey") }
        if contains(.linkKey) { names.append("LinkKey") }
        let reserved = rawValue & 0xF0
        if reserved != 0 { names.append("reserved 0x\(Hex.byte(reserved))") }
        return "[\(names.joined(separator: ", "))]"
    }
}

/// The six fields a device states in the Pairing Feature Exchange (phase 1): the body of both
/// Pairing Request and Pairing Response (Core spec Vol 3 Part H §3.5.1–3.5.2).
public struct PairingFeatures: Hashable, Sendable {
    /// The range the spec allows for Maximum Encryption Key Size, in octets.
    public static let encryptionKeySizes: ClosedRange<Int> = 7...16

    /// The device's IO capability.
    public var ioCapability: IOCapability
    /// OOB data flag: the device holds OOB authentication data from the peer (wire 0x01; 0x00
    /// when not; other values are reserved and rejected).
    public var oobDataPresent: Bool
    /// The AuthReq octet.
    public var authReq: AuthReq
    /// The largest key, in octets (7…16), the device supports; the pairing uses the smaller of
    /// both sides'.
    public var maxEncryptionKeySize: Int
    /// The keys the initiator will distribute.
    public var initiatorKeyDistribution: KeyDistribution
    /// The keys the responder will distribute.
    public var responderKeyDistribution: KeyDistribution

    /// Features from their fields; key sizes in octets (7…16).
    public init(
        ioCapability: IOCapability, oobDataPresent: Bool = false, authReq: AuthReq, maxEncryptionKeySize: Int = 16,
        initiatorKeyDistribution: KeyDistribution, responderKeyDistribution: KeyDistribution
    ) {
        self.ioCapability = ioCapability
        self.oobDataPresent = oobDataPresent
        self.authReq = authReq
        self.maxEncryptionKeySize = maxEncryptionKeySize
        self.initiatorKeyDistribution = initiatorKeyDistribution
        self.responderKeyDistribution = responderKeyDistribution
    }

    /// Field names as decode errors report them.
    enum Field {
        static let ioCapability = "ioCapability"
        static let oobDataFlag = "oobDataFlag"
        static let maxEncryptionKeySize = "maxEncryptionKeySize"
    }

    /// Reads all six octets before checking any, so a short PDU is reported as short (Invalid
    /// Parameters) whatever its first octets hold.
    init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let start = reader.offset
        let io = try reader.read(UInt8.self, field: Field.ioCapability)
        let oob = try reader.read(UInt8.self, field: Field.oobDataFlag)
        let authReq = AuthReq(rawValue: try reader.read(UInt8.self, field: "authReq"))
        let size = Int(try reader.read(UInt8.self, field: Field.maxEncryptionKeySize))
        let initiatorKeys = KeyDistribution(rawValue: try reader.read(UInt8.self, field: "initiatorKeyDistribution"))
        let responderKeys = KeyDistribution(rawValue: try reader.read(UInt8.self, field: "responderKeyDistribution"))
        guard let ioCapability = IOCapability(rawValue: io) else {
            throw reader.invalidValue("reserved IO capability 0x\(Hex.byte(io))", field: Field.ioCapability, at: start)
        }
        guard oob <= 0x01 else {
            throw reader.invalidValue("reserved OOB data flag 0x\(Hex.byte(oob))", field: Field.oobDataFlag, at: start + 1)
        }
        guard Self.encryptionKeySizes.contains(size) else {
            throw reader.invalidValue("key size \(size) is outside 7...16", field: Field.maxEncryptionKeySize, at: start + 3)
        }
        self.init(
            ioCapability: ioCapability, oobDataPresent: oob == 0x01, authReq: authReq, maxEncryptionKeySize: size,
            initiatorKeyDistribution: initiatorKeys, responderKeyDistribution: responderKeys)
    }

    func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        guard Self.encryptionKeySizes.contains(maxEncryptionKeySize) else {
            throw ByteEncodingError(field: Field.maxEncryptionKeySize, detail: "\(maxEncryptionKeySize) is outside 7...16")
        }
        writer.write(ioCapability.rawValue)
        writer.write(UInt8(oobDataPresent ? 0x01 : 0x00))
        writer.write(authReq.rawValue)
        writer.write(UInt8(maxEncryptionKeySize))
        writer.write(initiatorKeyDistribution.rawValue)
        writer.write(responderKeyDistribution.rawValue)
    }
}

/// Pairing Request (0x01): the initiator (central) starts pairing with its features.
public struct SMPPairingRequest: SMPPDUCodable {
    public static let code = SMPCode.pairingRequest
    /// What the initiator offers and asks for.
    public var features: PairingFeatures

    /// A Pairing Request with `features`.
    public init(_ features: PairingFeatures) { self.features = features }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectCode(Self.code)
        features = try PairingFeatures(from: &reader)
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.code.rawValue)
        try features.encode(to: &writer)
    }
}

/// Pairing Response (0x02): the responder's features. Its key distribution octets may only clear
/// bits the request set.
public struct SMPPairingResponse: SMPPDUCodable {
    public static let code = SMPCode.pairingResponse
    /// What the responder offers and accepts.
    public var features: PairingFeatures

    /// A Pairing Response with `features`.
    public init(_ features: PairingFeatures) { self.features = features }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectCode(Self.code)
        features = try PairingFeatures(from: &reader)
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.code.rawValue)
        try features.encode(to: &writer)
    }
}
