import Foundation
import HaraldCodec
import HaraldProfiles
import Testing

@Suite("Date Time and Current Time service")
struct TimeTests {
    private static let utc = TimeZone(identifier: "UTC")!

    @Test func aKnownDateTimeIsAMomentInTheGivenZone() throws {
        let value = try DateTime(decoding: [UInt8](hex: "e20704110f3300"))
        let components = DateComponents(
            calendar: Calendar(identifier: .gregorian), timeZone: Self.utc,
            year: 2018, month: 4, day: 17, hour: 15, minute: 51, second: 0)
        #expect(value.date(in: Self.utc) == components.date)
    }

    @Test(arguments: [(2, "month", UInt8(13)), (3, "day", 32), (4, "hours", 24), (5, "minutes", 60), (6, "seconds", 60)])
    func anOutOfRangeFieldIsNamedWithItsOffset(offset: Int, field: String, value: UInt8) throws {
        var bytes = try [UInt8](hex: "e20704110f3300")
        bytes[offset] = value
        #expect {
            try DateTime(decoding: bytes)
        } throws: { error in
            guard let error = error as? ByteDecodingError, case .invalidValue = error.reason else { return false }
            return error.field == field && error.offset == offset
        }
    }

    @Test func aShortDateTimeNamesTheFirstMissingField() throws {
        let bytes = try [UInt8](hex: "e20704110f3300")
        let fields = ["year", "year", "month", "day", "hours", "minutes", "seconds"]
        for length in 0..<bytes.count {
            #expect {
                try DateTime(decoding: Array(bytes.prefix(length)))
            } throws: { error in
                guard let error = error as? ByteDecodingError, case .truncated = error.reason else { return false }
                return error.field == fields[length] && error.offset == (length < 2 ? 0 : length)
            }
        }
    }

    @Test func anUnknownDateHasNoMomentAndLeavesComponentsUnset() throws {
        let value = try DateTime(decoding: [UInt8](hex: "00000000121a20"))
        #expect(value.date(in: Self.utc) == nil)
        #expect(value.dateComponents.year == nil)
        #expect(value.dateComponents.month == nil)
        #expect(value.dateComponents.hour == 18)
    }

    @Test func aDateConvertsToWallClockFieldsAndBack() throws {
        let moment = Date(timeIntervalSince1970: 1_700_000_000)
        let value = DateTime(moment, in: Self.utc)
        #expect(value.date(in: Self.utc) == moment)
        #expect(try DateTime(decoding: value.encodedBytes()) == value)
    }

    @Test(arguments: [
        ("e2070d110f3300", "month", 2), ("e20704200f3300", "day", 3), ("e2070411183300", "hours", 4),
        ("e20704110f3c00", "minutes", 5), ("e20704110f333c", "seconds", 6),
    ])
    func outOfRangeFieldsAreRejectedByName(hex: String, field: String, offset: Int) throws {
        let bytes = try [UInt8](hex: hex)
        do {
            _ = try DateTime(decoding: bytes)
            Issue.record("accepted \(hex)")
        } catch {
            #expect(error.field == field)
            #expect(error.offset == offset)
        }
    }

    @Test func outOfRangeFieldsCannotBeEncoded() {
        let value = DateTime(year: 2020, month: 13, day: 1, hours: 0, minutes: 0, seconds: 0)
        #expect(throws: ByteEncodingError.self) { try value.encodedBytes() }
    }

    @Test func currentTimeWithManualAdjustment() throws {
        let value = try CurrentTime(decoding: [UInt8](hex: "E9 07 01 0F 0E 1E 2D 03 21 01"))
        #expect(value.dateTime == DateTime(year: 2025, month: 1, day: 15, hours: 14, minutes: 30, seconds: 45))
        #expect(value.dayOfWeek == .wednesday)
        #expect(value.fractions256 == 33)
        #expect(value.adjustReason.bits == [.manualTimeUpdate])
    }

    @Test func currentTimeAtTheEndOfTheYear() throws {
        let bytes = try [UInt8](hex: "E9 07 0C 1F 17 3B 3B 07 FF 06")
        let value = try CurrentTime(decoding: bytes)
        #expect(value.dayOfWeek == .sunday)
        #expect(value.fractions256 == 255)
        #expect(value.adjustReason.bits == [.externalReferenceTimeUpdate, .changeOfTimeZone])
        #expect(try value.encodedBytes() == bytes)
    }

    @Test func aReservedDayOfWeekIsRejected() {
        #expect(throws: ByteDecodingError.self) { try CurrentTime(decoding: [UInt8](hex: "E9 07 01 0F 0E 1E 2D 08 21 01")) }
    }

    @Test(arguments: [(0, 0), (2, 30), (4, 60), (8, 120)])
    func dstOffsetsInMinutes(code: UInt8, minutes: Int) throws {
        #expect(try DSTOffset(decoding: [code]).minutes == minutes)
    }

    @Test func unknownAndReservedDSTOffsets() throws {
        #expect(try DSTOffset(decoding: [255]) == .unknown)
        #expect(throws: ByteDecodingError.self) { try DSTOffset(decoding: [17]) }
    }

    @Test func timeZonesCountQuarterHours() throws {
        #expect(try TimeZoneOffset(decoding: [1]).minutes == 15)
        #expect(try TimeZoneOffset(decoding: [0xD0]).minutes == -12 * 60)
        #expect(try TimeZoneOffset(decoding: [0x80]) == .unknown)
        #expect(throws: ByteDecodingError.self) { try TimeZoneOffset(decoding: [60]) }
        #expect(TimeZoneOffset(quarterHours: 57) == nil)
    }

    @Test func localTimeInformationAddsZoneAndDST() throws {
        let value = try LocalTimeInformation(decoding: [0x04, 0x04])
        #expect(value.totalMinutes == 120)
        #expect(try LocalTimeInformation(decoding: [0x04, 0xFF]).totalMinutes == nil)
    }
}
