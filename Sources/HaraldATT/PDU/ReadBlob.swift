import HaraldCodec

/// Read Blob Request (0x0C): read the value at `handle` from byte `offset` (the steps of a Read
/// Long Characteristic Value procedure).
public struct ATTReadBlobRequest: ATTPDUCodable {
    public static let opcode = ATTOpcode.readBlobRequest
    /// The attribute to read.
    public var handle: UInt16
    /// Offset, in bytes, of the first byte to read.
    public var offset: UInt16

    /// A read of the attribute at `handle` from byte `offset`.
    public init(handle: UInt16, offset: UInt16) {
        self.handle = handle
        self.offset = offset
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        handle = try reader.read(UInt16.self, field: "handle")
        offset = try reader.read(UInt16.self, field: "valueOffset")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.opcode.rawValue)
        writer.write(handle)
        writer.write(offset)
    }
}

/// Read Blob Response (0x0D): up to ATT_MTU − 1 bytes of the value from the requested offset.
public struct ATTReadBlobResponse: ATTPDUCodable {
    public static let opcode = ATTOpcode.readBlobResponse
    /// The value from the requested offset, up to ATT_MTU − 1 bytes.
    public var value: [UInt8]

    /// A response carrying part of a value.
    public init(value: [UInt8]) { self.value = value }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        value = reader.readRemainingBytes()
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.opcode.rawValue)
        writer.write(bytes: value)
    }
}
