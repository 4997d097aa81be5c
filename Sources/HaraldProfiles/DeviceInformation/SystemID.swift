import HaraldCodec

/// System ID (0x2A23): a 40-bit manufacturer-defined identifier followed by a 24-bit
/// organizationally unique identifier (OUI), together one little-endian u64
/// `(OUI << 40) | manufacturerIdentifier`.
public struct SystemID: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A23)
    public static let name = "System ID"

    /// The manufacturer-defined identifier (40 bits).
    public var manufacturerIdentifier: UInt64
    /// The IEEE organizationally unique identifier (24 bits).
    public var organizationallyUniqueIdentifier: UInt32

    /// A System ID; nil when a part is wider than its field.
    public init?(manufacturerIdentifier: UInt64, organizationallyUniqueIdentifier: UInt32) {
        guard manufacturerIdentifier < 1 << 40, organizationallyUniqueIdentifier < 1 << 24 else { return nil }
        self.manufacturerIdentifier = manufacturerIdentifier
        self.organizationallyUniqueIdentifier = organizationallyUniqueIdentifier
    }

    /// The whole 64-bit value.
    public var rawValue: UInt64 { UInt64(organizationallyUniqueIdentifier) << 40 | manufacturerIdentifier }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let raw = try reader.read(UInt64.self, field: "systemID")
        manufacturerIdentifier = raw & 0xFF_FFFF_FFFF
        organizationallyUniqueIdentifier = UInt32(raw >> 40)
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        try requireEncodable(manufacturerIdentifier < 1 << 40, field: "manufacturerIdentifier", "does not fit 40 bits")
        try requireEncodable(organizationallyUniqueIdentifier < 1 << 24, field: "organizationallyUniqueIdentifier", "does not fit 24 bits")
        writer.write(rawValue)
    }

    /// `{manufacturerIdentifier, organizationallyUniqueIdentifier}`.
    public var jsonValue: JSONValue {
        .object([
            "manufacturerIdentifier": .int(manufacturerIdentifier),
            "organizationallyUniqueIdentifier": .int(organizationallyUniqueIdentifier),
        ])
    }
}
