import HaraldCodec

/// A characteristic whose value is UTF-8 text filling the whole value, with no terminator (the
/// Device Information strings, Device Name).
///
/// Decoding drops trailing NUL bytes, which many devices add although the specification does
/// not; invalid UTF-8 and text longer than ``maximumByteCount`` are errors, in both directions.
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
        let start = reader.offset
        let text = try reader.readRemainingUTF8(field: "text", trimmingNulls: true)
        let count = text.utf8.count
        guard count <= Self.maximumByteCount else {
            throw reader.invalidValue("\(count) bytes is over \(Self.maximumByteCount)", field: "text", at: start)
        }
        self.init(text: text)
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        let count = text.utf8.count
        try requireEncodable(count <= Self.maximumByteCount, field: "text", "\(count) bytes is over \(Self.maximumByteCount)")
        writer.writeUTF8(text)
    }

    /// `{text: "…"}`.
    public var jsonValue: JSONValue { .object(["text": .string(text)]) }
}
