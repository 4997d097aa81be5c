import HaraldCodec

/// A PDU whose parameters are an attribute handle and a value filling the rest: Write Request,
/// Write Command, Handle Value Notification and Indication. They differ only in their opcode
/// (and in what the receiver does), so their wire form is written once here.
public protocol ATTHandleValuePDU: ATTPDUCodable {
    /// The attribute handle.
    var handle: UInt16 { get set }
    /// The value, at most ATT_MTU − 3 bytes.
    var value: [UInt8] { get set }
    /// A PDU carrying `value` for `handle`.
    init(handle: UInt16, value: [UInt8])
}

extension ATTHandleValuePDU {
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        let handle = try reader.read(UInt16.self, field: "handle")
        self.init(handle: handle, value: reader.readRemainingBytes())
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.opcode.rawValue)
        writer.write(handle)
        writer.write(bytes: value)
    }
}
