import HaraldCodec

extension ByteReader {
    /// Reads two or more 16-bit handles filling the rest of the PDU.
    mutating func readHandleSet(field: String) throws(ByteDecodingError) -> [UInt16] {
        guard remainingCount >= 4, remainingCount % 2 == 0 else {
            throw invalidValue("needs two or more 2-byte handles, got \(remainingCount) bytes", field: field)
        }
        var handles: [UInt16] = []
        handles.reserveCapacity(remainingCount / 2)
        while !isAtEnd { handles.append(try read(UInt16.self, field: field)) }
        return handles
    }
}

/// Read Multiple Request (0x0E): read several values of known, fixed length in one round trip.
public struct ATTReadMultipleRequest: ATTPDUCodable {
    public static let opcode = ATTOpcode.readMultipleRequest
    /// Two or more handles.
    public var handles: [UInt16]

    /// A read of the values at `handles` (at least two).
    public init(handles: [UInt16]) { self.handles = handles }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        handles = try reader.readHandleSet(field: "setOfHandles")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        guard handles.count >= 2 else { throw ByteEncodingError(field: "handles", detail: "needs two or more handles") }
        writer.write(Self.opcode.rawValue)
        for handle in handles { writer.write(handle) }
    }
}

/// Read Multiple Response (0x0F): the values concatenated, cut to ATT_MTU − 1 bytes. The client
/// must know each value's length to split them.
public struct ATTReadMultipleResponse: ATTPDUCodable {
    public static let opcode = ATTOpcode.readMultipleResponse
    /// The values concatenated, without lengths (so all but the last must have a known length).
    public var values: [UInt8]

    /// A response carrying the concatenated values.
    public init(values: [UInt8]) { self.values = values }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        values = reader.readRemainingBytes()
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.opcode.rawValue)
        writer.write(bytes: values)
    }
}

/// Read Multiple Variable Request (0x20): read several values of any length in one round trip.
public struct ATTReadMultipleVariableRequest: ATTPDUCodable {
    public static let opcode = ATTOpcode.readMultipleVariableRequest
    /// Two or more handles.
    public var handles: [UInt16]

    /// A read of the values at `handles` (at least two).
    public init(handles: [UInt16]) { self.handles = handles }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        handles = try reader.readHandleSet(field: "setOfHandles")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        guard handles.count >= 2 else { throw ByteEncodingError(field: "handles", detail: "needs two or more handles") }
        writer.write(Self.opcode.rawValue)
        for handle in handles { writer.write(handle) }
    }
}

/// Read Multiple Variable Response (0x21): each value preceded by its full length (u16).
///
/// The PDU is cut to ATT_MTU − 1 bytes, so the last value may hold fewer bytes than its length
/// says (``Entry/isTruncated``), and a cut inside the last length field leaves no entry for it.
public struct ATTReadMultipleVariableResponse: ATTPDUCodable {
    public static let opcode = ATTOpcode.readMultipleVariableResponse

    /// One value and the full length the server declared for it.
    public struct Entry: Hashable, Sendable {
        /// The attribute value's full length, in bytes.
        public var length: UInt16
        /// The bytes present (all of them unless the PDU was cut).
        public var value: [UInt8]
        /// Whether the value was cut short to fit the ATT_MTU.
        public var isTruncated: Bool { value.count < Int(length) }

        /// A value whose full length is `length` bytes (more than `value` when truncated).
        public init(length: UInt16, value: [UInt8]) {
            self.length = length
            self.value = value
        }

        /// A whole value.
        public init(value: [UInt8]) {
            self.length = UInt16(truncatingIfNeeded: value.count)
            self.value = value
        }
    }

    /// The values in the order of the request's handles.
    public var entries: [Entry]

    /// A response carrying `entries`.
    public init(entries: [Entry]) { self.entries = entries }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        var entries: [Entry] = []
        while reader.remainingCount >= 2 {
            let length = try reader.read(UInt16.self, field: "length")
            let present = min(Int(length), reader.remainingCount)
            entries.append(Entry(length: length, value: try reader.readBytes(count: present, field: "value")))
        }
        _ = reader.readRemainingBytes()
        self.entries = entries
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.opcode.rawValue)
        for entry in entries {
            writer.write(entry.length)
            writer.write(bytes: entry.value)
        }
    }
}
