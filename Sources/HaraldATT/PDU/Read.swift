import HaraldCodec

/// Read Request (0x0A): read the value of the attribute at `handle`.
public struct ATTReadRequest: ATTPDUCodable {
    public static let opcode = ATTOpcode.readRequest
    /// The attribute to read.
    public var handle: UInt16

    /// A read of the attribute at `handle`.
    public init(handle: UInt16) { self.handle = handle }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        handle = try reader.read(UInt16.self, field: "handle")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.opcode.rawValue)
        writer.write(handle)
    }
}

/// Read Response (0x0B): the first ATT_MTU − 1 bytes of the value.
public struct ATTReadResponse: ATTPDUCodable {
    public static let opcode = ATTOpcode.readResponse
    /// The value, or its first ATT_MTU − 1 bytes (read the rest with Read Blob).
    public var value: [UInt8]

    /// A response carrying `value`.
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
