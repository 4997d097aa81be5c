import HaraldCodec
import HaraldCore

/// Find Information Request (0x04): list the handles and types of the attributes in `range`.
public struct ATTFindInformationRequest: ATTPDUCodable {
    public static let opcode = ATTOpcode.findInformationRequest
    /// The handles whose types are asked for.
    public var range: ATTHandleRange

    /// A request for the attribute types in `range`.
    public init(range: ATTHandleRange) { self.range = range }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        range = try ATTHandleRange.read(from: &reader)
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.opcode.rawValue)
        range.write(to: &writer)
    }
}

/// Find Information Response (0x05): handle/type pairs, all with 16-bit types (format 1) or all
/// with 128-bit types (format 2).
public struct ATTFindInformationResponse: ATTPDUCodable {
    public static let opcode = ATTOpcode.findInformationResponse

    /// One attribute: its handle and type.
    public struct Entry: Hashable, Sendable {
        /// The attribute handle.
        public var handle: UInt16
        /// The attribute type (a descriptor UUID, say).
        public var type: BluetoothUUID
        /// One handle–type pair.
        public init(handle: UInt16, type: BluetoothUUID) {
            self.handle = handle
            self.type = type
        }
    }

    /// At least one entry.
    public var entries: [Entry]

    /// A response; all entries must use UUIDs of one size (16 or 128 bits).
    public init(entries: [Entry]) { self.entries = entries }

    /// 1 when every type is a 16-bit UUID, else 2 (all types sent in 128-bit form).
    public var format: UInt8 { entries.allSatisfy { $0.type.uuid16 != nil } ? 1 : 2 }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        let formatOffset = reader.offset
        let format = try reader.read(UInt8.self, field: "format")
        let uuidSize: Int
        switch format {
        case 1: uuidSize = 2
        case 2: uuidSize = 16
        default: throw reader.invalidValue("format must be 1 or 2, not \(format)", field: "format", at: formatOffset)
        }
        let entrySize = 2 + uuidSize
        guard reader.remainingCount > 0, reader.remainingCount % entrySize == 0 else {
            throw reader.invalidValue("\(reader.remainingCount) bytes is not a whole number of \(entrySize)-byte entries", field: "information")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(reader.remainingCount / entrySize)
        while !reader.isAtEnd {
            let handle = try reader.read(UInt16.self, field: "handle")
            let type = try BluetoothUUID.read(from: &reader, byteCount: uuidSize, field: "type")
            entries.append(Entry(handle: handle, type: type))
        }
        self.entries = entries
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        guard !entries.isEmpty else { throw ByteEncodingError(field: "entries", detail: "needs at least one entry") }
        let size = format == 1 ? 2 : 16
        writer.write(Self.opcode.rawValue)
        writer.write(format)
        for entry in entries {
            writer.write(entry.handle)
            try entry.type.write(to: &writer, byteCount: size)
        }
    }
}
