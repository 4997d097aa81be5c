/// The field widths of a type-length-value encoding.
public struct TLVFormat: Hashable, Sendable {
    /// Bytes in the type field: 1, 2 or 4.
    public var typeWidth: Int
    /// Bytes in the length field: 1, 2 or 4. The length counts value bytes only.
    public var lengthWidth: Int
    /// Byte order of multi-byte type and length fields.
    public var byteOrder: ByteOrder

    /// A format; widths other than 1, 2 and 4 are treated as 1.
    public init(typeWidth: Int = 1, lengthWidth: Int = 1, byteOrder: ByteOrder = .littleEndian) {
        self.typeWidth = [1, 2, 4].contains(typeWidth) ? typeWidth : 1
        self.lengthWidth = [1, 2, 4].contains(lengthWidth) ? lengthWidth : 1
        self.byteOrder = byteOrder
    }

    /// One-byte type, one-byte length (GoPro's query and setting responses; their values are
    /// big-endian, which is for the reader of each value to apply).
    public static let byteByte = TLVFormat()
}

/// One type-length-value triplet.
public struct TLVItem: Hashable, Sendable {
    /// The type (or ID) field.
    public var type: UInt32
    /// The value bytes.
    public var value: [UInt8]
    /// Offset of the triplet's first byte in the input.
    public var offset: Int

    /// An item of `type` with `value`, found at byte `offset`.
    public init(type: UInt32, value: [UInt8], offset: Int = 0) {
        self.type = type
        self.value = value
        self.offset = offset
    }
}

extension ByteReader {
    /// Reads one TLV triplet, or returns nil at the end of the input.
    ///
    /// A length that runs past the end throws, naming `field` and the triplet's offset.
    public mutating func readTLV(format: TLVFormat = .byteByte, field: String = "tlv") throws(ByteDecodingError) -> TLVItem? {
        guard !isAtEnd else { return nil }
        let start = offset
        let type = try readWidth(format.typeWidth, byteOrder: format.byteOrder, field: "\(field).type")
        let length = try readWidth(format.lengthWidth, byteOrder: format.byteOrder, field: "\(field).length")
        guard length <= UInt32(Int32.max) else {
            throw invalidValue("length \(length) is too large", field: "\(field).length", at: start)
        }
        let value = try readBytes(count: Int(length), field: "\(field).value")
        return TLVItem(type: type, value: value, offset: start)
    }

    /// Reads TLV triplets until the end of the input.
    public mutating func readAllTLV(format: TLVFormat = .byteByte, field: String = "tlv") throws(ByteDecodingError) -> [TLVItem] {
        var items: [TLVItem] = []
        while let item = try readTLV(format: format, field: field) { items.append(item) }
        return items
    }

    private mutating func readWidth(_ width: Int, byteOrder: ByteOrder, field: String) throws(ByteDecodingError) -> UInt32 {
        switch width {
        case 2: return UInt32(try read(UInt16.self, byteOrder: byteOrder, field: field))
        case 4: return try read(UInt32.self, byteOrder: byteOrder, field: field)
        default: return UInt32(try read(UInt8.self, field: field))
        }
    }
}

extension ByteWriter {
    /// Appends one TLV triplet; throws when the type or the value's length does not fit its field.
    public mutating func writeTLV(_ item: TLVItem, format: TLVFormat = .byteByte) throws(ByteEncodingError) {
        try writeWidth(item.type, width: format.typeWidth, byteOrder: format.byteOrder, field: "type")
        guard let length = UInt32(exactly: item.value.count) else {
            throw ByteEncodingError(field: "length", detail: "value too long")
        }
        try writeWidth(length, width: format.lengthWidth, byteOrder: format.byteOrder, field: "length")
        write(bytes: item.value)
    }

    private mutating func writeWidth(_ value: UInt32, width: Int, byteOrder: ByteOrder, field: String) throws(ByteEncodingError) {
        let limit: UInt32 = width == 4 ? .max : (width == 2 ? 0xFFFF : 0xFF)
        guard value <= limit else { throw ByteEncodingError(field: field, detail: "\(value) does not fit in \(width) byte(s)") }
        switch width {
        case 2: write(UInt16(value), byteOrder: byteOrder)
        case 4: write(value, byteOrder: byteOrder)
        default: write(UInt8(value))
        }
    }
}

/// Walks the TLV triplets of a byte run.
///
/// ```swift
/// for item in try TLV.items(in: payload) { print(item.type, item.value.hexString) }
/// ```
public enum TLV {
    /// Every triplet in `bytes`; throws if the last one is cut short.
    public static func items<Bytes: Sequence<UInt8>>(in bytes: Bytes, format: TLVFormat = .byteByte) throws(ByteDecodingError) -> [TLVItem] {
        try ByteReader.withReader(bytes) { (reader) throws(ByteDecodingError) in try reader.readAllTLV(format: format) }
    }

    /// The bytes of `items` in `format`.
    public static func encode(_ items: [TLVItem], format: TLVFormat = .byteByte) throws(ByteEncodingError) -> [UInt8] {
        var writer = ByteWriter()
        for item in items { try writer.writeTLV(item, format: format) }
        return writer.bytes
    }
}
