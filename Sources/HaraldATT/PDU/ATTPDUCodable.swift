import HaraldCodec
import HaraldCore

/// One ATT PDU type: its opcode and its wire form, opcode byte included.
///
/// `init(from:)` reads the opcode byte and rejects any other opcode, so a PDU can be decoded on
/// its own with `init(decoding:)`; ``ATTPDU`` decodes any PDU by its opcode.
public protocol ATTPDUCodable: ByteCodable, Sendable, Hashable {
    /// The opcode this PDU is sent with.
    static var opcode: ATTOpcode { get }
}

extension ATTPDUCodable {
    /// The PDU's bytes, opcode first. PDU encoders only throw for values that break the format
    /// (mixed UUID widths, unequal entry lengths, wrong signature size).
    public func pduBytes() throws(ByteEncodingError) -> [UInt8] {
        try encodedBytes()
    }
}

extension ByteReader {
    /// Reads the opcode byte and checks it is `expected`.
    mutating func expectOpcode(_ expected: ATTOpcode) throws(ByteDecodingError) {
        let start = offset
        let raw = try read(UInt8.self, field: "opcode")
        guard raw == expected.rawValue else {
            throw invalidValue("expected opcode 0x\(Hex.byte(expected.rawValue)), got 0x\(Hex.byte(raw))", field: "opcode", at: start)
        }
    }

    /// Reads a UUID of 2 or 16 bytes filling the rest of the PDU.
    mutating func readAttributeType(field: String) throws(ByteDecodingError) -> BluetoothUUID {
        let count = remainingCount
        guard count == 2 || count == 16 else {
            throw invalidValue("an attribute type is 2 or 16 bytes, not \(count)", field: field)
        }
        return try BluetoothUUID.read(from: &self, byteCount: count, field: field)
    }
}

extension ByteWriter {
    /// Writes a UUID as 2 bytes when it is a 16-bit SIG UUID, else as 16 (ATT carries no 32-bit
    /// UUIDs: they are sent in their 128-bit form).
    mutating func writeAttributeType(_ uuid: BluetoothUUID) throws(ByteEncodingError) {
        try uuid.write(to: &self, byteCount: uuid.uuid16 != nil ? 2 : 16)
    }
}

extension ATTHandleRange {
    static func read(from reader: inout ByteReader) throws(ByteDecodingError) -> ATTHandleRange {
        let start = try reader.read(UInt16.self, field: "startingHandle")
        let end = try reader.read(UInt16.self, field: "endingHandle")
        return ATTHandleRange(start: start, end: end)
    }

    func write(to writer: inout ByteWriter) {
        writer.write(start)
        writer.write(end)
    }
}

/// An attribute handle with a value, as listed in Read By Type responses and Multiple Handle
/// Value Notifications.
public struct ATTHandleValue: Hashable, Sendable {
    /// The attribute handle.
    public var handle: UInt16
    /// The attribute value.
    public var value: [UInt8]

    /// A handle and its value.
    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}
