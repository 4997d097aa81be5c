import HaraldCodec

/// Current Time (0x2A2B, Current Time Service): the server's clock as Exact Time 256 (Date Time,
/// day of week, 1/256 s fractions) followed by why the clock was last adjusted. 10 bytes.
public struct CurrentTime: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A2B)
    public static let name = "Current Time"

    /// Why the time was last changed (bits of the Adjust Reason byte; bits 4…7 are reserved and
    /// kept as received).
    public enum AdjustReason: Int, FlagBit {
        /// Set by hand.
        case manualTimeUpdate = 0
        /// Set from an external reference time source.
        case externalReferenceTimeUpdate = 1
        /// The time zone changed.
        case changeOfTimeZone = 2
        /// Daylight saving time started or ended.
        case changeOfDST = 3
    }

    /// Date and wall-clock time.
    public var dateTime: DateTime
    /// Day of the week, or ``DayOfWeek/unknown``.
    public var dayOfWeek: DayOfWeek
    /// Fractions of a second in 1/256 s.
    public var fractions256: UInt8
    /// Reasons for the last adjustment.
    public var adjustReason: Flags<AdjustReason, UInt8>

    /// A Current Time value; `fractions256` counts 1/256 s.
    public init(dateTime: DateTime, dayOfWeek: DayOfWeek = .unknown, fractions256: UInt8 = 0, adjustReason: Flags<AdjustReason, UInt8> = []) {
        self.dateTime = dateTime
        self.dayOfWeek = dayOfWeek
        self.fractions256 = fractions256
        self.adjustReason = adjustReason
    }

    /// The fraction of a second in seconds (`fractions256 / 256`).
    public var fractionSeconds: Double { Double(fractions256) / 256 }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        dateTime = try reader.readDateTime(field: "dateTime")
        dayOfWeek = try reader.decode(DayOfWeek.self, field: "")
        fractions256 = try reader.read(UInt8.self, field: "fractions256")
        adjustReason = try reader.readFlags(AdjustReason.self, as: UInt8.self, field: "adjustReason")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        try writer.encode(dateTime)
        try writer.encode(dayOfWeek)
        writer.write(fractions256)
        writer.write(adjustReason)
    }

    /// `{dateTime: {…}, dayOfWeek, fractions256, adjustReason (raw byte), adjustReasons: […]}`.
    public var jsonValue: JSONValue {
        .object([
            "dateTime": dateTime.jsonValue,
            "dayOfWeek": .string(dayOfWeek.caseName),
            "fractions256": .int(fractions256),
            "adjustReason": .int(adjustReason.rawValue),
            "adjustReasons": .array(adjustReason.bits.map { .string("\($0)") }),
        ])
    }
}
