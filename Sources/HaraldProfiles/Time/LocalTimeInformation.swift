import HaraldCodec

/// Local Time Information (0x2A0F): the time zone and the DST offset of the server, 2 bytes.
public struct LocalTimeInformation: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A0F)
    public static let name = "Local Time Information"

    /// Offset of standard time from UTC.
    public var timeZone: TimeZoneOffset
    /// Daylight-saving offset in effect.
    public var dstOffset: DSTOffset

    /// The time zone (in 15-minute steps from UTC) and the daylight saving offset.
    public init(timeZone: TimeZoneOffset, dstOffset: DSTOffset) {
        self.timeZone = timeZone
        self.dstOffset = dstOffset
    }

    /// Total offset from UTC in minutes; nil when either part is not known.
    public var totalMinutes: Int? {
        guard let zone = timeZone.minutes, let dst = dstOffset.minutes else { return nil }
        return zone + dst
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        timeZone = try reader.decode(TimeZoneOffset.self, field: "")
        dstOffset = try reader.decode(DSTOffset.self, field: "")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        try writer.encode(timeZone)
        try writer.encode(dstOffset)
    }

    /// `{timeZone: {…}, dstOffset: {…}, totalMinutes}`.
    public var jsonValue: JSONValue {
        .fields(["timeZone": timeZone.jsonValue, "dstOffset": dstOffset.jsonValue, "totalMinutes": totalMinutes.map { .int($0) }])
    }
}
