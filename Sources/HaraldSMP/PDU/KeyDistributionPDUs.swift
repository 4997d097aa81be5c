import HaraldCodec
import HaraldCore

// The phase 3 PDUs (Core spec Vol 3 Part H §3.6): each side sends the keys it agreed to
// distribute, on the encrypted link. None of them prints key material, EDIV or Rand.

/// Encryption Information (0x06), LE legacy pairing only: the sender's Long Term Key.
public struct SMPEncryptionInformation: SMPPDUCodable, CustomStringConvertible, CustomDebugStringConvertible {
    public static let code = SMPCode.encryptionInformation
    /// The LTK, 16 octets least significant first.
    public var longTermKey: SecretKey128

    /// A PDU distributing `longTermKey`.
    public init(longTermKey: SecretKey128) { self.longTermKey = longTermKey }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectCode(Self.code)
        longTermKey = try reader.readKey(field: "longTermKey")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.code.rawValue)
        writer.write(longTermKey)
    }

    /// Never the key.
    public var description: String { "Encryption Information(LTK: \(longTermKey))" }
    /// The same text as ``description``: the PDU's name, never the LTK.
    public var debugDescription: String { description }
}

/// Central Identification (0x07), LE legacy pairing only: the EDIV and Rand that identify the LTK
/// just sent (formerly Master Identification).
public struct SMPCentralIdentification: SMPPDUCodable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public static let code = SMPCode.centralIdentification
    /// The Encrypted Diversifier.
    public var ediv: UInt16
    /// The 64-bit random number.
    public var rand: UInt64

    /// A PDU identifying the distributed LTK by its EDIV and Rand.
    public init(ediv: UInt16, rand: UInt64) {
        self.ediv = ediv
        self.rand = rand
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectCode(Self.code)
        ediv = try reader.read(UInt16.self, field: "ediv")
        rand = try reader.read(UInt64.self, field: "rand")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.code.rawValue)
        writer.write(ediv)
        writer.write(rand)
    }

    /// Like `LongTermKey`, never EDIV or Rand: together with the key they let a peer be impersonated.
    public var description: String { "Central Identification(EDIV, Rand: <hidden>)" }
    /// The same text as ``description``: the PDU's name, never EDIV or Rand.
    public var debugDescription: String { description }
    /// No children, so `dump` and debuggers cannot show EDIV or Rand.
    public var customMirror: Mirror { Mirror(self, children: []) }
}

/// Identity Information (0x08): the sender's Identity Resolving Key.
public struct SMPIdentityInformation: SMPPDUCodable, CustomStringConvertible, CustomDebugStringConvertible {
    public static let code = SMPCode.identityInformation
    /// The IRK, 16 octets least significant first.
    public var identityResolvingKey: IdentityResolvingKey

    /// A PDU distributing the sender's IRK.
    public init(identityResolvingKey: IdentityResolvingKey) { self.identityResolvingKey = identityResolvingKey }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectCode(Self.code)
        identityResolvingKey = IdentityResolvingKey(key: try reader.readKey(field: "identityResolvingKey"))
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.code.rawValue)
        writer.write(identityResolvingKey.key)
    }

    /// Never the key.
    public var description: String { "Identity Information(IRK: <128-bit key>)" }
    /// The same text as ``description``: the PDU's name, never the IRK.
    public var debugDescription: String { description }
}

/// Identity Address Information (0x09): the sender's identity address, public (AddrType 0x00) or
/// static random (0x01); sent right after Identity Information. Other types are reserved and
/// rejected.
public struct SMPIdentityAddressInformation: SMPPDUCodable {
    public static let code = SMPCode.identityAddressInformation
    /// The identity address; its kind is the AddrType octet.
    public var identityAddress: BluetoothAddress

    /// A PDU distributing the sender's identity address.
    public init(identityAddress: BluetoothAddress) { self.identityAddress = identityAddress }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectCode(Self.code)
        let start = reader.offset
        let type = try reader.read(UInt8.self, field: "addrType")
        let address = try BluetoothAddress(from: &reader, kind: .public, field: "bdAddr")
        guard let kind = BluetoothAddress.Kind(rawValue: type) else {
            throw reader.invalidValue("reserved address type 0x\(Hex.byte(type))", field: "addrType", at: start)
        }
        identityAddress = address.with(kind: kind)
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.code.rawValue)
        writer.write(identityAddress.kind.rawValue)
        identityAddress.encode(to: &writer)
    }
}

/// Signing Information (0x0A): the sender's Connection Signature Resolving Key.
public struct SMPSigningInformation: SMPPDUCodable, CustomStringConvertible, CustomDebugStringConvertible {
    public static let code = SMPCode.signingInformation
    /// The CSRK, 16 octets least significant first.
    public var signatureKey: ConnectionSignatureResolvingKey

    /// A PDU distributing the sender's CSRK.
    public init(signatureKey: ConnectionSignatureResolvingKey) { self.signatureKey = signatureKey }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectCode(Self.code)
        signatureKey = ConnectionSignatureResolvingKey(key: try reader.readKey(field: "signatureKey"))
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.code.rawValue)
        writer.write(signatureKey.key)
    }

    /// Never the key.
    public var description: String { "Signing Information(CSRK: <128-bit key>)" }
    /// The same text as ``description``: the PDU's name, never the CSRK.
    public var debugDescription: String { description }
}
