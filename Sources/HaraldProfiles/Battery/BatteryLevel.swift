import HaraldCodec

/// Battery Level (0x2A19): the remaining charge in percent, 0…100. Values above 100 are
/// rejected when decoding and when encoding.
public struct BatteryLevel: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A19)
    public static let name = "Battery Level"

    /// Remaining charge in percent, 0…100.
    public var percent: UInt8

    /// A level; nil above 100 %.
    public init?(percent: UInt8) {
        guard percent <= 100 else { return nil }
        self.percent = percent
    }

    @inlinable
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        percent = try reader.readUInt8(field: "level", allowed: 0...100, meaning: "percent")
    }

    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        try requireEncodable(percent <= 100, field: "level", "\(percent) % is above 100 %")
        writer.write(percent)
    }

    /// `{level: 100}`.
    public var jsonValue: JSONValue { .object(["level": .int(percent)]) }
}
