import HaraldCodec
import HaraldCore

/// Read By Group Type Request (0x10): read the grouping attributes of type `groupType` (0x2800
/// Primary Service or 0x2801 Secondary Service) in `range`.
public struct ATTReadByGroupTypeRequest: ATTPDUCodable {
    public static let opcode = ATTOpcode.readByGroupTypeRequest
    /// The handles searched.
    public var range: ATTHandleRange
    /// The grouping type: 0x2800 primary or 0x2801 secondary service.
    public var groupType: BluetoothUUID

    /// A search in `range` for groups of `groupType`.
    public init(range: ATTHandleRange, groupType: BluetoothUUID) {
        self.range = range
        self.groupType = groupType
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        range = try ATTHandleRange.read(from: &reader)
        groupType = try reader.readAttributeType(field: "groupType")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.opcode.rawValue)
        range.write(to: &writer)
        try writer.writeAttributeType(groupType)
    }
}

/// Read By Group Type Response (0x11): (start, end, value) entries that all have the same length.
public struct ATTReadByGroupTypeResponse: ATTPDUCodable {
    public static let opcode = ATTOpcode.readByGroupTypeResponse

    /// One group: the grouping attribute's handle, the group's last handle and the attribute value
    /// (a service UUID for service discovery).
    public struct Entry: Hashable, Sendable {
        /// The group's handles, declaration to end.
        public var range: ATTHandleRange
        /// The group declaration's value (the service UUID, for services).
        public var value: [UInt8]
        /// One group.
        public init(range: ATTHandleRange, value: [UInt8]) {
            self.range = range
            self.value = value
        }
    }

    /// At least one entry; every value has the same length.
    public var entries: [Entry]

    /// A response; every entry's value has the same length.
    public init(entries: [Entry]) { self.entries = entries }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        let lengthOffset = reader.offset
        let length = Int(try reader.read(UInt8.self, field: "length"))
        guard length >= 4 else {
            throw reader.invalidValue("entry length \(length) is shorter than two handles", field: "length", at: lengthOffset)
        }
        guard reader.remainingCount > 0, reader.remainingCount % length == 0 else {
            throw reader.invalidValue("\(reader.remainingCount) bytes is not a whole number of \(length)-byte entries", field: "attributeDataList")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(reader.remainingCount / length)
        while !reader.isAtEnd {
            let range = try ATTHandleRange.read(from: &reader)
            entries.append(Entry(range: range, value: try reader.readBytes(count: length - 4, field: "value")))
        }
        self.entries = entries
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        guard let first = entries.first else { throw ByteEncodingError(field: "entries", detail: "needs at least one entry") }
        let length = first.value.count + 4
        guard length <= 255 else { throw ByteEncodingError(field: "entries", detail: "entry length \(length) exceeds 255") }
        guard entries.allSatisfy({ $0.value.count + 4 == length }) else {
            throw ByteEncodingError(field: "entries", detail: "all entries must have the same length")
        }
        writer.write(Self.opcode.rawValue)
        writer.write(UInt8(length))
        for entry in entries {
            entry.range.write(to: &writer)
            writer.write(bytes: entry.value)
        }
    }
}
