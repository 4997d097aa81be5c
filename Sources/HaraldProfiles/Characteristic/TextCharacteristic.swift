import HaraldCodec

/// A characteristic whose value is UTF-8 text filling the whole value, with no terminator (the
/// Device Information strings, Device Name).
///
/// Decoding drops trailing NUL bytes, which many devices add although the specification does
/// not; invalid UTF-8 is an error. Encoding rejects text longer than ``maximumByteCount``.
public protocol TextCharacteristic: CharacteristicValue {
    /// The text.
    var text: String { get set }
    /// A value holding `text`.
    init(text: String)
    /// The longest value allowed, in UTF-8 bytes (512, the ATT maximum, unless the
    /// characteristic says less).
    static var maximumByteCount: Int { get }
}

extension TextCharacteristic {
    public static var maximumByteCount: Int { 512 }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        self.init(text: try reader.readRemainingUTF8(field: "text", trimmingNulls: true))
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        let count = text.utf8.count
        try requireEncodable(count <= Self.maximumByteCount, field: "text", "\(count) bytes is over \(Self.maximumByteCount)")
        writer.writeUTF8(text)
    }

    /// `{text: "…"}`.
    public var jsonValue: JSONValue { .object(["text": .string(text)]) }
}
