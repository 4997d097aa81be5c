import HaraldCodec
import HaraldCore

/// Read By Type Request (0x08): read the attributes of type `attributeType` in `range` (used to
/// discover characteristics, 0x2803, and included services, 0x2802).
public struct ATTReadByTypeRequest: ATTPDUCodable {
    public static let opcode = ATTOpcode.readByTypeRequest
    /// The handles searched.
    public var range: ATTHandleRange
    /// A 16-bit or 128-bit attribute type.
    public var attributeType: BluetoothUUID

    /// A read of the attributes of `attributeType` in `range`.
    public init(range: ATTHandleRange, attributeType: BluetoothUUID) {
        self.range = range
        self.attributeType = attributeType
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        range = try ATTHandleRange.read(from: &reader)
        attributeType = try reader.readAttributeType(field: "attributeType")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.opcode.rawValue)
        range.write(to: &writer)
        try writer.writeAttributeType(attributeType)
    }
}

/// Read By Type Response (0x09): handle/value pairs that all have the same length.
public struct ATTReadByTypeResponse: ATTPDUCodable {
    public static let opcode = ATTOpcode.readByTypeResponse
    /// At least one entry; every value has the same length.
    public var entries: [ATTHandleValue]

    /// A response; every entry's value has the same length.
    public init(entries: [ATTHandleValue]) { self.entries = entries }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        let lengthOffset = reader.offset
        let length = Int(try reader.read(UInt8.self, field: "length"))
        guard length >= 2 else {
            throw reader.invalidValue("entry length \(length) is shorter than a handle", field: "length", at: lengthOffset)
        }
        guard reader.remainingCount > 0, reader.remainingCount % length == 0 else {
            throw reader.invalidValue("\(reader.remainingCount) bytes is not a whole number of \(length)-byte entries", field: "attributeDataList")
        }
        var entries: [ATTHandleValue] = []
        entries.reserveCapacity(reader.remainingCount / length)
        while !reader.isAtEnd {
            let handle = try reader.read(UInt16.self, field: "handle")
            entries.append(ATTHandleValue(handle: handle, value: try reader.readBytes(count: length - 2, field: "value")))
        }
        self.entries = entries
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        guard let first = entries.first else { throw ByteEncodingError(field: "entries", detail: "needs at least one entry") }
        let length = first.value.count + 2
        guard length <= 255 else { throw ByteEncodingError(field: "entries", detail: "entry length \(length) exceeds 255") }
        guard entries.allSatisfy({ $0.value.count + 2 == length }) else {
            throw ByteEncodingError(field: "entries", detail: "all entries must have the same length")
        }
        writer.write(Self.opcode.rawValue)
        writer.write(UInt8(length))
        for entry in entries {
            writer.write(entry.handle)
            writer.write(bytes: entry.value)
        }
    }
}
