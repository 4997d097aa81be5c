import Foundation
import HaraldCodec

/// Date Time (0x2A08): a calendar date and a wall-clock time, 7 bytes. Also the time stamp field
/// of many measurements.
///
/// Year, month and day 0 mean "not known" (a device whose clock was never set sends them).
/// Decoding rejects months above 12, days above 31, hours above 23 and minutes or seconds above
/// 59 (the specification reserves them); any year is accepted, since devices send years outside
/// the specified 1582…9999 when their clock is wrong, and the value is still worth showing.
public struct DateTime: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A08)
    public static let name = "Date Time"

    /// Year, 1582…9999; 0 when not known.
    public var year: UInt16
    /// Month of the year, 1…12; 0 when not known.
    public var month: UInt8
    /// Day of the month, 1…31; 0 when not known.
    public var day: UInt8
    /// Hours since midnight, 0…23.
    public var hours: UInt8
    /// Minutes since the start of the hour, 0…59.
    public var minutes: UInt8
    /// Seconds since the start of the minute, 0…59.
    public var seconds: UInt8

    /// A date and time from its fields (checked when encoded).
    @inlinable
    public init(year: UInt16, month: UInt8, day: UInt8, hours: UInt8, minutes: UInt8, seconds: UInt8) {
        self.year = year
        self.month = month
        self.day = day
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    /// The wall-clock fields of `date` in `timeZone` (sub-second parts are dropped).
    public init(_ date: Date, in timeZone: TimeZone = .current) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        self.init(
            year: UInt16(clamping: parts.year ?? 0), month: UInt8(clamping: parts.month ?? 0),
            day: UInt8(clamping: parts.day ?? 0), hours: UInt8(clamping: parts.hour ?? 0),
            minutes: UInt8(clamping: parts.minute ?? 0), seconds: UInt8(clamping: parts.second ?? 0))
    }

    /// The fields as Gregorian date components; unknown year, month or day are left unset.
    public var dateComponents: DateComponents {
        var parts = DateComponents()
        parts.calendar = Calendar(identifier: .gregorian)
        if year != 0 { parts.year = Int(year) }
        if month != 0 { parts.month = Int(month) }
        if day != 0 { parts.day = Int(day) }
        parts.hour = Int(hours)
        parts.minute = Int(minutes)
        parts.second = Int(seconds)
        return parts
    }

    /// True when year, month and day are all known.
    public var isDateKnown: Bool { year != 0 && month != 0 && day != 0 }

    /// The moment these wall-clock fields name in `timeZone`; nil when the date is not known.
    public func date(in timeZone: TimeZone = .current) -> Date? {
        guard isDateKnown else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar.date(from: dateComponents)
    }

    // The seven bytes are claimed with one check and the five ranges tested with one branch, so
    // the body stays small enough to be inlined into the measurements that carry a Date Time. A
    // value that fails either test is read again field by field, out of line, for the error
    // naming the field.
    @inlinable
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try self.init(inlineFrom: &reader)
    }

    /// ``init(from:)``, always inlined: what measurements call for their nested Date Time.
    @inlinable @inline(__always)
    init(inlineFrom reader: inout ByteReader) throws(ByteDecodingError) {
        let start = reader
        guard reader.remainingCount >= 7 else { throw Self.fieldError(start) }
        let fields = try reader.withBytes(count: 7, field: "") {
            (raw) throws(ByteDecodingError) -> (UInt16, UInt8, UInt8, UInt8, UInt8, UInt8) in
            (UInt16(raw[0]) | UInt16(raw[1]) << 8, raw[2], raw[3], raw[4], raw[5], raw[6])
        }
        guard fields.1 <= 12, fields.2 <= 31, fields.3 <= 23, fields.4 <= 59, fields.5 <= 59 else {
            throw Self.fieldError(start)
        }
        (year, month, day, hours, minutes, seconds) = fields
    }

    /// Reads a Date Time field by field from `reader` and returns the error of the first field
    /// that is missing or out of range: the slow path of ``init(from:)``, for malformed values.
    @usableFromInline @inline(never)
    static func fieldError(_ reader: ByteReader) -> ByteDecodingError {
        var reader = reader
        do throws(ByteDecodingError) {
            _ = try reader.read(UInt16.self, field: "year")
            _ = try reader.readUInt8(field: "month", allowed: 0...12, meaning: "0 is unknown")
            _ = try reader.readUInt8(field: "day", allowed: 0...31, meaning: "0 is unknown")
            _ = try reader.readUInt8(field: "hours", allowed: 0...23, meaning: "hours of the day")
            _ = try reader.readUInt8(field: "minutes", allowed: 0...59, meaning: "minutes of the hour")
            _ = try reader.readUInt8(field: "seconds", allowed: 0...59, meaning: "seconds of the minute")
        } catch {
            return error
        }
        // Not reached: `init(from:)` calls this only for a value one of the reads above rejects.
        return reader.invalidValue("malformed Date Time", field: "")
    }

    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        try requireEncodable(month <= 12, field: "month", "\(month) is not 0…12")
        try requireEncodable(day <= 31, field: "day", "\(day) is not 0…31")
        try requireEncodable(hours <= 23, field: "hours", "\(hours) is not 0…23")
        try requireEncodable(minutes <= 59, field: "minutes", "\(minutes) is not 0…59")
        try requireEncodable(seconds <= 59, field: "seconds", "\(seconds) is not 0…59")
        writer.write(year)
        writer.write(month)
        writer.write(day)
        writer.write(hours)
        writer.write(minutes)
        writer.write(seconds)
    }

    /// `{year, month, day, hours, minutes, seconds}`, 0 meaning unknown.
    public var jsonValue: JSONValue {
        .object([
            "year": .int(year), "month": .int(month), "day": .int(day),
            "hours": .int(hours), "minutes": .int(minutes), "seconds": .int(seconds),
        ])
    }
}

extension ByteReader {
    /// Reads a Date Time nested in a measurement, with `field` prefixed to error paths — what
    /// `decode(DateTime.self, field:)` does, but calling the initialiser directly: measurement
    /// decoders are inlined into the app's module, where a generic `decode` could only reach
    /// `DateTime.init(from:)` through the protocol witness table.
    @inlinable
    mutating func readDateTime(field: String) throws(ByteDecodingError) -> DateTime {
        do {
            return try DateTime(inlineFrom: &self)
        } catch {
            throw error.nested(in: field)
        }
    }
}
