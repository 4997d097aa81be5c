import HaraldCodec

/// Battery Level (0x2A19): the remaining charge in percent, 0…100, or "not known".
///
/// The specification allows 0…100 and reserves 101…255. Many inexpensive devices nevertheless
/// send 0xFF when they cannot measure their battery (while starting up, or with no fuel gauge at
/// all); failing every read of that byte, and skipping every notification of it, would leave
/// an app with no battery value from such devices at all. So decoding is lenient for that one
/// value: 0xFF decodes as a level that is not known (``percent`` is nil). The other reserved
/// values, 101…254, are still rejected with an error naming the `level` field and its offset. An
/// unknown level encodes as 0xFF, so a decoded value re-encodes to the byte received.
public struct BatteryLevel: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A19)
    public static let name = "Battery Level"

    /// The byte a device sends for a level it does not know (0xFF; reserved by the specification,
    /// sent in practice).
    public static let unknownCode: UInt8 = 0xFF

    /// A level the device does not know: encodes as 0xFF.
    public static let unknown = BatteryLevel(uncheckedPercent: nil)

    /// Remaining charge in percent, 0…100; nil when the device reports the level as not known.
    public var percent: UInt8?

    /// A known level; nil above 100 %.
    public init?(percent: UInt8) {
        guard percent <= 100 else { return nil }
        self.percent = percent
    }

    private init(uncheckedPercent: UInt8?) { percent = uncheckedPercent }

    @inlinable
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let start = reader.offset
        let code = try reader.read(UInt8.self, field: "level")
        if code <= 100 {
            percent = code
        } else if code == Self.unknownCode {
            percent = nil
        } else {
            throw reader.outOfRange(code, allowed: 0...100, meaning: "percent; 255 is not known", field: "level", at: start)
        }
    }

    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        guard let percent else {
            writer.write(Self.unknownCode)
            return
        }
        try requireEncodable(percent <= 100, field: "level", "\(percent) % is above 100 %")
        writer.write(percent)
    }

    /// `{level: 100}`; `{level: null}` when not known.
    public var jsonValue: JSONValue { .object(["level": percent.map { .int($0) } ?? .null]) }
}
