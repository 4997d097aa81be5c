import HaraldCodec

/// Time Zone (0x2A0E): the offset from UTC in steps of 15 minutes, −48…+56 (−12 h…+14 h), or
/// −128 when not known. Other values are reserved and rejected when decoding.
///
/// Named `TimeZoneOffset` so it does not clash with Foundation's `TimeZone`.
public struct TimeZoneOffset: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A0E)
    public static let name = "Time Zone"

    /// The offset from UTC in units of 15 minutes; −128 means not known.
    public var quarterHours: Int8

    /// The "not known" value.
    public static let unknown = TimeZoneOffset(uncheckedQuarterHours: -128)

    /// An offset of `quarterHours` × 15 minutes; nil outside −48…56.
    public init?(quarterHours: Int8) {
        guard (-48...56).contains(quarterHours) else { return nil }
        self.quarterHours = quarterHours
    }

    @usableFromInline
    init(uncheckedQuarterHours: Int8) { quarterHours = uncheckedQuarterHours }

    /// The offset in minutes, nil when not known.
    public var minutes: Int? { quarterHours == -128 ? nil : Int(quarterHours) * 15 }

    @inlinable
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let start = reader.offset
        let value = try reader.read(Int8.self, field: "timeZone")
        guard value == -128 || (-48...56).contains(value) else {
            throw reader.invalidValue("\(value) is not −48…56 quarter hours or −128 (unknown)", field: "timeZone", at: start)
        }
        self.init(uncheckedQuarterHours: value)
    }

    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        try requireEncodable(
            quarterHours == -128 || (-48...56).contains(quarterHours), field: "timeZone", "\(quarterHours) is not −48…56 or −128")
        writer.write(quarterHours)
    }

    /// `{quarterHours: 4, minutes: 60}` (no minutes when unknown).
    public var jsonValue: JSONValue {
        .fields(["quarterHours": .int(quarterHours), "minutes": minutes.map { .int($0) }])
    }
}
