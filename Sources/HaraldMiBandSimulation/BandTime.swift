import Foundation

/// How the band writes dates (protocols.md B.4, B.5): year (u16 little-endian), month, day,
/// hour, minute, second — 7 bytes — and, in the activity fetch, one more signed byte: the
/// time-zone offset in quarter hours.
enum BandTime {
    static let utc = TimeZone(secondsFromGMT: 0)!

    /// The 7 bytes of calendar fields; all zero for nil (a band that never charged says so).
    static func bytes(_ fields: DateComponents?) -> [UInt8] {
        guard let fields else { return [UInt8](repeating: 0, count: 7) }
        let year = UInt16(clamping: fields.year ?? 0)
        return [UInt8(year & 0xFF), UInt8(year >> 8)]
            + [fields.month, fields.day, fields.hour, fields.minute, fields.second].map { UInt8(clamping: $0 ?? 0) }
    }

    /// The 8 bytes of `date` in UTC: its calendar fields and a zero offset.
    static func timestampBytes(_ date: Date) -> [UInt8] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        return bytes(calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)) + [0]
    }

    /// The instant 8 timestamp bytes name (fields read at their own offset); nil when they are
    /// not a date.
    static func date(fromTimestamp bytes: ArraySlice<UInt8>) -> Date? {
        guard bytes.count == 8 else { return nil }
        let b = Array(bytes)
        let offset = Int(Int8(bitPattern: b[7])) * 15 * 60
        guard let zone = TimeZone(secondsFromGMT: offset), (1...12).contains(b[2]), (1...31).contains(b[3]), b[4] < 24, b[5] < 60, b[6] < 60
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let fields = DateComponents(
            year: Int(b[0]) | Int(b[1]) << 8, month: Int(b[2]), day: Int(b[3]), hour: Int(b[4]), minute: Int(b[5]), second: Int(b[6]))
        return calendar.date(from: fields)
    }
}
