import HaraldCodec

/// Encryption Change (event 0x08; v2, event 0x59, adds the key size): encryption of a link was
/// turned on or off, or failed to start (status 0x06 PIN or Key Missing when the peer has no key).
public struct EncryptionChange: Hashable, Sendable {
    /// Success, or why encryption could not be started or changed.
    public var status: HCIStatus
    /// The connection handle.
    public var handle: UInt16
    /// 0x00 off, 0x01 on (AES-CCM on LE).
    public var isEncrypted: Bool
    /// The key size in octets (v2 only; nil in the first version of the event).
    public var keySize: UInt8?

    /// An event from its fields; `keySize` in octets, when reported (Encryption Change v2).
    public init(status: HCIStatus, handle: UInt16, isEncrypted: Bool, keySize: UInt8? = nil) {
        self.status = status
        self.handle = handle
        self.isEncrypted = isEncrypted
        self.keySize = keySize
    }

    init(from reader: inout ByteReader, withKeySize: Bool) throws(ByteDecodingError) {
        status = HCIStatus(try reader.read(UInt8.self, field: "status"))
        handle = try reader.read(UInt16.self, field: "handle") & 0x0FFF
        isEncrypted = try reader.read(UInt8.self, field: "encryptionEnabled") != 0
        keySize = withKeySize ? try reader.read(UInt8.self, field: "keySize") : nil
    }
}

/// Encryption Key Refresh Complete (event 0x30): an already encrypted link was encrypted again
/// (LE Enable Encryption on an encrypted link).
public struct EncryptionKeyRefreshComplete: Hashable, Sendable, ByteDecodable {
    /// Success, or why the key refresh failed.
    public var status: HCIStatus
    /// The connection handle.
    public var handle: UInt16

    /// An event from its fields.
    public init(status: HCIStatus, handle: UInt16) {
        self.status = status
        self.handle = handle
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        status = HCIStatus(try reader.read(UInt8.self, field: "status"))
        handle = try reader.read(UInt16.self, field: "handle") & 0x0FFF
    }
}

/// LE Long Term Key Request (LE meta subevent 0x05): the central started encryption on a link
/// where we are the peripheral; answer with LE Long Term Key Request Reply (the key for this
/// EDIV and Rand — both 0 for LE Secure Connections) or the Negative Reply.
public struct LELongTermKeyRequest: Hashable, Sendable, ByteDecodable {
    /// The connection handle the central encrypts.
    public var handle: UInt16
    /// The 64-bit random number of a legacy LTK (0 for Secure Connections).
    public var rand: UInt64
    /// The encrypted diversifier of a legacy LTK (0 for Secure Connections).
    public var ediv: UInt16

    /// A request from its fields (EDIV and Rand are 0 for LE Secure Connections keys).
    public init(handle: UInt16, rand: UInt64, ediv: UInt16) {
        self.handle = handle
        self.rand = rand
        self.ediv = ediv
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        handle = try reader.read(UInt16.self, field: "handle") & 0x0FFF
        rand = try reader.read(UInt64.self, field: "randomNumber")
        ediv = try reader.read(UInt16.self, field: "encryptedDiversifier")
    }
}
