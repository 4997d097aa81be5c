import HaraldCodec
import HaraldCore

/// One SMP PDU type: its code and its wire form, code octet included.
///
/// `init(from:)` reads the code octet and rejects any other code, so a PDU decodes on its own with
/// `init(decoding:)`; ``SMPPDU`` decodes any PDU by its code. Multi-octet fields are least
/// significant octet first, as SMP carries them (Core spec Vol 3 Part H §3.1).
public protocol SMPPDUCodable: ByteCodable, Sendable, Hashable {
    /// The code this PDU is sent with.
    static var code: SMPCode { get }
}

extension ByteReader {
    /// Reads the code octet and checks it is `expected`.
    mutating func expectCode(_ expected: SMPCode) throws(ByteDecodingError) {
        let start = offset
        let raw = try read(UInt8.self, field: "code")
        guard raw == expected.rawValue else {
            throw invalidValue("expected code 0x\(Hex.byte(expected.rawValue)), got 0x\(Hex.byte(raw))", field: "code", at: start)
        }
    }

    /// Reads a 16-octet key as SMP carries it (least significant octet first).
    mutating func readKey(field: String) throws(ByteDecodingError) -> SecretKey128 {
        // Sixteen octets always make a key.
        SecretKey128(littleEndianBytes: try readBytes(count: 16, field: field))!
    }
}

extension ByteWriter {
    /// Writes `bytes`, which must be exactly `count` octets long.
    mutating func write(_ bytes: [UInt8], count: Int, field: String) throws(ByteEncodingError) {
        guard bytes.count == count else {
            throw ByteEncodingError(field: field, detail: "needs \(count) octets, has \(bytes.count)")
        }
        write(bytes: bytes)
    }

    /// Writes a 16-octet key, least significant octet first.
    mutating func write(_ key: SecretKey128) {
        key.withUnsafeKeyBytes { write(bytes: $0) }
    }
}
