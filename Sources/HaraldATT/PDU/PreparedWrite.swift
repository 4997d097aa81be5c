import HaraldCodec

/// A part of a long write: a handle, the part's offset in the value, and the part's bytes. The
/// Prepare Write Request carries it and the Response echoes it, so both share one wire form.
public protocol ATTPreparedWritePart: ATTPDUCodable {
    /// The attribute being written.
    var handle: UInt16 { get set }
    /// Offset, in bytes, of this part within the attribute value.
    var offset: UInt16 { get set }
    /// This part's bytes.
    var value: [UInt8] { get set }
    /// A part of the value of `handle` starting at byte `offset`.
    init(handle: UInt16, offset: UInt16, value: [UInt8])
}

extension ATTPreparedWritePart {
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        let handle = try reader.read(UInt16.self, field: "handle")
        let offset = try reader.read(UInt16.self, field: "valueOffset")
        self.init(handle: handle, offset: offset, value: reader.readRemainingBytes())
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.opcode.rawValue)
        writer.write(handle)
        writer.write(offset)
        writer.write(bytes: value)
    }
}

/// Prepare Write Request (0x16): queue `value` for the attribute at `handle`, starting at byte
/// `offset`; nothing is written until an Execute Write Request.
public struct ATTPrepareWriteRequest: ATTPreparedWritePart {
    public static let opcode = ATTOpcode.prepareWriteRequest
    /// The attribute being written.
    public var handle: UInt16
    /// Offset, in bytes, of this part within the attribute value.
    public var offset: UInt16
    /// At most ATT_MTU − 5 bytes.
    public var value: [UInt8]

    /// Queues `value` at byte `offset` of the attribute at `handle`.
    public init(handle: UInt16, offset: UInt16, value: [UInt8]) {
        self.handle = handle
        self.offset = offset
        self.value = value
    }
}

/// Prepare Write Response (0x17): the server echoes the queued part, so a reliable write can
/// check it arrived intact.
public struct ATTPrepareWriteResponse: ATTPreparedWritePart {
    public static let opcode = ATTOpcode.prepareWriteResponse
    /// The attribute being written, echoed.
    public var handle: UInt16
    public var offset: UInt16
    /// The queued bytes, echoed so the client can check them.
    public var value: [UInt8]

    /// The echo of a prepare write request.
    public init(handle: UInt16, offset: UInt16, value: [UInt8]) {
        self.handle = handle
        self.offset = offset
        self.value = value
    }
}

/// Execute Write Request (0x18): write (`.write`) or discard (`.cancel`) every queued part.
public struct ATTExecuteWriteRequest: ATTPDUCodable {
    public static let opcode = ATTOpcode.executeWriteRequest

    /// What to do with the prepare queue.
    public enum Flags: UInt8, Hashable, Sendable {
        /// 0x00: discard all prepared writes.
        case cancel = 0x00
        /// 0x01: write all prepared values.
        case write = 0x01
    }

    /// Whether to apply or cancel the queued writes.
    public var flags: Flags

    /// A request to apply or cancel the queue.
    public init(flags: Flags) { self.flags = flags }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        let start = reader.offset
        let raw = try reader.read(UInt8.self, field: "flags")
        guard let flags = Flags(rawValue: raw) else {
            throw reader.invalidValue("flags must be 0x00 or 0x01, not 0x\(Hex.byte(raw))", field: "flags", at: start)
        }
        self.flags = flags
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.opcode.rawValue)
        writer.write(flags.rawValue)
    }
}

/// Execute Write Response (0x19): the queue was written or discarded. No parameters.
public struct ATTExecuteWriteResponse: ATTPDUCodable {
    public static let opcode = ATTOpcode.executeWriteResponse

    /// The response (it has no parameters).
    public init() {}

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.opcode.rawValue)
    }
}
