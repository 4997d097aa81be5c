import Foundation
import HaraldCodec

/// A calendar date and time as Huami bands send it: year (u16 little-endian), month, day, hour,
/// minute, second — 7 bytes, in the band's local time.
public struct MiBandDateTime: ByteCodable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The year, such as 2026.
    public var year: UInt16
    /// 1…12.
    public var month: UInt8
    /// 1…31.
    public var day: UInt8
    /// 0…23.
    public var hour: UInt8
    /// 0…59.
    public var minute: UInt8
    /// 0…59.
    public var second: UInt8

    /// A date and time; months and days from 1.
    public init(year: UInt16, month: UInt8, day: UInt8, hour: UInt8 = 0, minute: UInt8 = 0, second: UInt8 = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// The band's calendar fields of `date` in `timeZone`.
    public init(_ date: Date, timeZone: TimeZone = TimeZone(identifier: "UTC")!) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        self.init(
            year: UInt16(clamping: parts.year ?? 2000), month: UInt8(clamping: parts.month ?? 1), day: UInt8(clamping: parts.day ?? 1),
            hour: UInt8(clamping: parts.hour ?? 0), minute: UInt8(clamping: parts.minute ?? 0), second: UInt8(clamping: parts.second ?? 0))
    }

    /// The instant these fields name in `timeZone`.
    public func date(timeZone: TimeZone = TimeZone(identifier: "UTC")!) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = DateComponents(
            year: Int(year), month: Int(month), day: Int(day), hour: Int(hour), minute: Int(minute), second: Int(second))
        return calendar.date(from: parts) ?? Date(timeIntervalSince1970: 0)
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        year = try reader.read(UInt16.self, field: "year")
        month = try Self.read(&reader, "month", 1...12)
        day = try Self.read(&reader, "day", 1...31)
        hour = try Self.read(&reader, "hour", 0...23)
        minute = try Self.read(&reader, "minute", 0...59)
        second = try Self.read(&reader, "second", 0...59)
    }

    private static func read(_ reader: inout ByteReader, _ field: String, _ range: ClosedRange<UInt8>) throws(ByteDecodingError) -> UInt8 {
        let start = reader.offset
        let value = try reader.read(UInt8.self, field: field)
        guard range.contains(value) else { throw reader.invalidValue("\(value) is outside \(range)", field: field, at: start) }
        return value
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(year)
        writer.write(month)
        writer.write(day)
        writer.write(hour)
        writer.write(minute)
        writer.write(second)
    }

    private var ordinal: [Int] { [Int(year), Int(month), Int(day), Int(hour), Int(minute), Int(second)] }
    /// Earlier dates and times first, field by field from the year to the second.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.ordinal.lexicographicallyPrecedes(rhs.ordinal) }

    /// `2016-11-26 18:35:44`.
    public var description: String {
        func two(_ value: UInt8) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day)) \(two(hour)):\(two(minute)):\(two(second))"
    }
}

/// A date and time followed by the time-zone offset in quarter hours (signed), as the activity
/// fetch commands and replies carry it: 8 bytes.
public struct MiBandTimestamp: ByteCodable, Hashable, Sendable {
    /// The local date and time.
    public var dateTime: MiBandDateTime
    /// Offset from UTC in units of 15 minutes (8 = UTC+2).
    public var timeZoneQuarterHours: Int8

    /// A timestamp with its offset from UTC in quarter hours.
    public init(_ dateTime: MiBandDateTime, timeZoneQuarterHours: Int8 = 0) {
        self.dateTime = dateTime
        self.timeZoneQuarterHours = timeZoneQuarterHours
    }

    /// `date` in UTC (offset 0).
    public init(_ date: Date) {
        self.init(MiBandDateTime(date), timeZoneQuarterHours: 0)
    }

    /// The instant: the fields read in their own time-zone offset.
    public var date: Date {
        let zone = TimeZone(secondsFromGMT: Int(timeZoneQuarterHours) * 900) ?? TimeZone(identifier: "UTC")!
        return dateTime.date(timeZone: zone)
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        dateTime = try reader.decode(MiBandDateTime.self, field: "dateTime")
        timeZoneQuarterHours = try reader.read(Int8.self, field: "timeZone")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        try writer.encode(dateTime)
        writer.write(timeZoneQuarterHours)
    }
}
