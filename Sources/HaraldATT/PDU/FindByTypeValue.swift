import HaraldCodec
import HaraldCore

/// Find By Type Value Request (0x06): find attributes of 16-bit type `attributeType` whose value
/// is `value` (used to discover a primary service by UUID).
public struct ATTFindByTypeValueRequest: ATTPDUCodable {
    public static let opcode = ATTOpcode.findByTypeValueRequest
    /// The handles searched.
    public var range: ATTHandleRange
    /// A 16-bit attribute type, such as 0x2800 (Primary Service).
    public var attributeType: UInt16
    /// The value to match, byte for byte.
    public var value: [UInt8]

    /// A search in `range` for attributes of 16-bit type `attributeType` whose value is `value`.
    public init(range: ATTHandleRange, attributeType: UInt16, value: [UInt8]) {
        self.range = range
        self.attributeType = attributeType
        self.value = value
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        range = try ATTHandleRange.read(from: &reader)
        attributeType = try reader.read(UInt16.self, field: "attributeType")
        value = reader.readRemainingBytes()
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.opcode.rawValue)
        range.write(to: &writer)
        writer.write(attributeType)
        writer.write(bytes: value)
    }
}

/// Find By Type Value Response (0x07): for each match, its handle and the end of its group.
public struct ATTFindByTypeValueResponse: ATTPDUCodable {
    public static let opcode = ATTOpcode.findByTypeValueResponse
    /// At least one (Found Attribute Handle, Group End Handle) pair.
    public var handles: [ATTHandleRange]

    /// The found attribute handles with their groups' end handles.
    public init(handles: [ATTHandleRange]) { self.handles = handles }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        guard reader.remainingCount > 0, reader.remainingCount % 4 == 0 else {
            throw reader.invalidValue("\(reader.remainingCount) bytes is not a whole number of 4-byte entries", field: "handlesInformation")
        }
        var handles: [ATTHandleRange] = []
        while !reader.isAtEnd { handles.append(try ATTHandleRange.read(from: &reader)) }
        self.handles = handles
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        guard !handles.isEmpty else { throw ByteEncodingError(field: "handles", detail: "needs at least one entry") }
        writer.write(Self.opcode.rawValue)
        for range in handles { range.write(to: &writer) }
    }
}
