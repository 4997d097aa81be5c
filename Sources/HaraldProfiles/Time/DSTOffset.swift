import HaraldCodec

/// DST Offset (0x2A0D): the daylight-saving offset in effect. Codes other than 0, 2, 4, 8 and 255
/// are reserved and rejected when decoding (the specification lists the allowed codes).
public enum DSTOffset: UInt8, CharacteristicValue, CaseIterable {
    /// Standard time (+0 h).
    case standardTime = 0
    /// Half an hour of daylight time (+0.5 h).
    case halfAnHourDaylightTime = 2
    /// Daylight time (+1 h).
    case daylightTime = 4
    /// Double daylight time (+2 h).
    case doubleDaylightTime = 8
    /// Not known.
    case unknown = 255

    public static let uuid = BluetoothUUID(0x2A0D)
    public static let name = "DST Offset"

    /// The offset in minutes, nil when not known.
    public var minutes: Int? { self == .unknown ? nil : Int(rawValue) * 15 }

    @inlinable
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let start = reader.offset
        let code = try reader.read(UInt8.self, field: "dstOffset")
        guard let offset = DSTOffset(rawValue: code) else {
            throw reader.invalidValue("\(code) is not 0, 2, 4, 8 or 255 (unknown)", field: "dstOffset", at: start)
        }
        self = offset
    }

    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(rawValue)
    }

    /// `{dstOffset: "daylightTime", code: 4, minutes: 60}` (no minutes when unknown).
    public var jsonValue: JSONValue {
        .fields(["dstOffset": .string("\(self)"), "code": .int(rawValue), "minutes": minutes.map { .int($0) }])
    }
}
