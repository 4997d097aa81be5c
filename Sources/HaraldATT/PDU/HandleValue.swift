import HaraldCodec

/// Handle Value Notification (0x1B): the server pushes the value at `handle`; no answer.
public struct ATTHandleValueNotification: ATTHandleValuePDU {
    public static let opcode = ATTOpcode.handleValueNotification
    public var handle: UInt16
    /// At most ATT_MTU − 3 bytes.
    public var value: [UInt8]

    /// A notification of `value` for `handle`.
    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}

/// Handle Value Indication (0x1D): the server pushes the value at `handle` and waits for a
/// Handle Value Confirmation before sending another indication.
public struct ATTHandleValueIndication: ATTHandleValuePDU {
    public static let opcode = ATTOpcode.handleValueIndication
    public var handle: UInt16
    /// At most ATT_MTU − 3 bytes.
    public var value: [UInt8]

    /// An indication of `value` for `handle`.
    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}

/// Handle Value Confirmation (0x1E): the client received an indication. No parameters.
public struct ATTHandleValueConfirmation: ATTPDUCodable {
    public static let opcode = ATTOpcode.handleValueConfirmation

    /// The confirmation (it has no parameters).
    public init() {}

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.opcode.rawValue)
    }
}

/// Multiple Handle Value Notification (0x23): several (handle, length u16, value) tuples in one
/// notification.
public struct ATTMultipleHandleValueNotification: ATTPDUCodable {
    public static let opcode = ATTOpcode.multipleHandleValueNotification
    /// The notified values, each with its handle.
    public var values: [ATTHandleValue]

    /// A notification of several values.
    public init(values: [ATTHandleValue]) { self.values = values }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        guard !reader.isAtEnd else {
            throw ByteDecodingError(field: "handleLengthValueTuples", offset: reader.offset, reason: .truncated(needed: 4, available: 0))
        }
        var values: [ATTHandleValue] = []
        while !reader.isAtEnd {
            let handle = try reader.read(UInt16.self, field: "handle")
            let length = try reader.read(UInt16.self, field: "length")
            values.append(ATTHandleValue(handle: handle, value: try reader.readBytes(count: Int(length), field: "value")))
        }
        self.values = values
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        guard !values.isEmpty else { throw ByteEncodingError(field: "values", detail: "needs at least one value") }
        writer.write(Self.opcode.rawValue)
        for entry in values {
            guard entry.value.count <= Int(UInt16.max) else {
                throw ByteEncodingError(field: "values", detail: "a value of \(entry.value.count) bytes does not fit a u16 length")
            }
            writer.write(entry.handle)
            writer.write(UInt16(entry.value.count))
            writer.write(bytes: entry.value)
        }
    }
}
