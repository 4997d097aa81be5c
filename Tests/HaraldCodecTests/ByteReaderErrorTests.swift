import HaraldCodec
import Testing

@Suite("ByteReader: truncation, trailing bytes and field paths")
struct ByteReaderErrorTests {
    // MARK: Truncation

    @Test func truncatedFieldReportsNameOffsetNeededAndAvailable() {
        let error = decodingError { () throws(ByteDecodingError) in
            try reading([0x01, 0x02, 0x03]) { r throws(ByteDecodingError) in
                _ = try r.read(UInt16.self, field: "first")
                return try r.read(UInt16.self, field: "second")
            }
        }
        #expect(error == ByteDecodingError(field: "second", offset: 2, reason: .truncated(needed: 2, available: 1)))
    }

    @Test func readingFromEmptyInputReportsZeroAvailable() {
        let error = decodingError { () throws(ByteDecodingError) in
            try reading([]) { r throws(ByteDecodingError) in try r.read(UInt64.self, field: "x") }
        }
        #expect(error == ByteDecodingError(field: "x", offset: 0, reason: .truncated(needed: 8, available: 0)))
    }

    @Test func failedReadDoesNotMoveTheCursor() throws {
        let (offset, next) = try reading([0x01, 0x02, 0x03]) { r throws(ByteDecodingError) in
            _ = try r.read(UInt8.self, field: "a")
            _ = try? r.read(UInt32.self, field: "tooWide")
            return (r.offset, try r.read(UInt16.self, field: "b"))
        }
        #expect(offset == 1)
        #expect(next == 0x0302)
    }

    @Test func decodingWholeValueAddsTheTypeName() {
        let error = decodingError { () throws(ByteDecodingError) in try UInt32(decoding: [0x01, 0x02]) }
        #expect(error == ByteDecodingError(typeName: "UInt32", field: "", offset: 0, reason: .truncated(needed: 4, available: 2)))
    }

    // MARK: Trailing bytes

    @Test func decodingRejectsTrailingBytes() {
        let error = decodingError { () throws(ByteDecodingError) in try UInt16(decoding: [0x01, 0x02, 0x03, 0x04]) }
        #expect(error == ByteDecodingError(typeName: "UInt16", field: "", offset: 2, reason: .trailingBytes(count: 2)))
    }

    @Test func decodingAcceptsExactLength() throws {
        #expect(try UInt16(decoding: [0x01, 0x02]) == 0x0201)
    }

    @Test func expectEndThrowsWhenBytesRemain() {
        let error = decodingError { () throws(ByteDecodingError) in
            try reading([0x01, 0x02, 0x03]) { r throws(ByteDecodingError) in
                _ = try r.read(UInt8.self, field: "a")
                try r.expectEnd()
            }
        }
        #expect(error == ByteDecodingError(field: "", offset: 1, reason: .trailingBytes(count: 2)))
    }

    @Test func expectEndPassesAtTheEnd() throws {
        try reading([0x01]) { r throws(ByteDecodingError) in
            _ = try r.read(UInt8.self, field: "a")
            try r.expectEnd()
        }
    }

    @Test func positionPropertiesTrackTheCursor() throws {
        let snapshots = try reading([1, 2, 3]) { r throws(ByteDecodingError) in
            var seen: [(Int, Int, Int, Bool)] = [(r.count, r.offset, r.remainingCount, r.isAtEnd)]
            _ = try r.read(UInt16.self, field: "a")
            seen.append((r.count, r.offset, r.remainingCount, r.isAtEnd))
            _ = try r.read(UInt8.self, field: "b")
            seen.append((r.count, r.offset, r.remainingCount, r.isAtEnd))
            return seen
        }
        #expect(snapshots.map(\.0) == [3, 3, 3])
        #expect(snapshots.map(\.1) == [0, 2, 3])
        #expect(snapshots.map(\.2) == [3, 1, 0])
        #expect(snapshots.map(\.3) == [false, false, true])
    }

    // MARK: decodePrefix

    @Test func decodePrefixReturnsValueAndBytesUsed() throws {
        let (value, used) = try UInt16.decodePrefix(of: [0x34, 0x12, 0xFF, 0xFF])
        #expect(value == 0x1234)
        #expect(used == 2)
    }

    @Test func decodePrefixStillReportsTruncation() {
        let error = decodingError { () throws(ByteDecodingError) in try UInt32.decodePrefix(of: [0x01]) }
        #expect(error == ByteDecodingError(typeName: "UInt32", field: "", offset: 0, reason: .truncated(needed: 4, available: 1)))
    }

    // MARK: Nested values

    @Test func nestedValueDecodes() throws {
        let record = try StampedRecord(decoding: [0x07, 0xE8, 0x07, 0x02, 0x1D])
        #expect(record == StampedRecord(kind: 7, timestamp: Timestamp(year: 2024, month: 2, day: 29)))
    }

    @Test func nestedTruncationNamesTheDottedPath() {
        let error = decodingError { () throws(ByteDecodingError) in try StampedRecord(decoding: [0x07, 0xE8, 0x07]) }
        #expect(
            error
                == ByteDecodingError(
                    typeName: "StampedRecord", field: "timestamp.month", offset: 3, reason: .truncated(needed: 1, available: 0)))
    }

    @Test func nestedInvalidValueNamesTheDottedPathAndFieldOffset() {
        let error = decodingError { () throws(ByteDecodingError) in try StampedRecord(decoding: [0x07, 0xE8, 0x07, 0x0D, 0x01]) }
        #expect(error?.field == "timestamp.month")
        #expect(error?.offset == 3)
        #expect(error?.typeName == "StampedRecord")
        if case .invalidValue = error?.reason {} else { Issue.record("expected invalidValue, got \(String(describing: error))") }
    }

    @Test func nestedValueWithUnnamedFieldTakesTheOuterName() {
        let error = decodingError { () throws(ByteDecodingError) in
            try reading([0x01]) { r throws(ByteDecodingError) in try r.decode(UInt16.self, field: "rrInterval") }
        }
        #expect(error == ByteDecodingError(field: "rrInterval", offset: 0, reason: .truncated(needed: 2, available: 1)))
    }

    @Test func nestingTwiceBuildsTheFullPath() {
        let error = decodingError { () throws(ByteDecodingError) in
            try reading([0x07, 0xE8]) { r throws(ByteDecodingError) in try r.decode(StampedRecord.self, field: "record") }
        }
        #expect(error?.field == "record.timestamp.year")
        #expect(error?.offset == 1)
    }

    @Test func nestedWithEmptyOuterNameKeepsTheInnerPath() {
        let inner = ByteDecodingError(field: "month", offset: 3, reason: .invalidUTF8)
        #expect(inner.nested(in: "") == inner)
        #expect(inner.nested(in: "timestamp").field == "timestamp.month")
    }

    // MARK: decode(byteCount:)

    @Test func decodeByteCountReadsAValueFromExactlyThoseBytes() throws {
        let (stamp, after) = try reading([0xE8, 0x07, 0x0C, 0x1F, 0xAA]) { r throws(ByteDecodingError) in
            (try r.decode(Timestamp.self, byteCount: 4, field: "timestamp"), try r.read(UInt8.self, field: "next"))
        }
        #expect(stamp == Timestamp(year: 2024, month: 12, day: 31))
        #expect(after == 0xAA)
    }

    @Test func decodeByteCountRejectsUnusedBytesInsideTheValue() {
        let error = decodingError { () throws(ByteDecodingError) in
            try reading([0x00, 0xE8, 0x07, 0x0C, 0x1F, 0xAA, 0xBB]) { r throws(ByteDecodingError) in
                _ = try r.read(UInt8.self, field: "kind")
                return try r.decode(Timestamp.self, byteCount: 5, field: "timestamp")
            }
        }
        #expect(error == ByteDecodingError(field: "timestamp", offset: 5, reason: .trailingBytes(count: 1)))
    }

    @Test func decodeByteCountStopsTheValueAtItsOwnEnd() {
        // The value may not read into the bytes after its slot, even though the input has them.
        let error = decodingError { () throws(ByteDecodingError) in
            try reading([0x00, 0xE8, 0x07, 0x0C, 0x1F]) { r throws(ByteDecodingError) in
                _ = try r.read(UInt8.self, field: "kind")
                return try r.decode(Timestamp.self, byteCount: 3, field: "timestamp")
            }
        }
        #expect(error == ByteDecodingError(field: "timestamp.day", offset: 4, reason: .truncated(needed: 1, available: 0)))
    }

    @Test func decodeByteCountLongerThanTheInputIsTruncation() {
        let error = decodingError { () throws(ByteDecodingError) in
            try reading([0x00, 0xE8, 0x07]) { r throws(ByteDecodingError) in
                _ = try r.read(UInt8.self, field: "kind")
                return try r.decode(Timestamp.self, byteCount: 4, field: "timestamp")
            }
        }
        #expect(error == ByteDecodingError(field: "timestamp", offset: 1, reason: .truncated(needed: 4, available: 2)))
    }

    // MARK: Sub-readers

    @Test func subReaderReportsOffsetsIntoTheWholeInput() {
        let error = decodingError { () throws(ByteDecodingError) in
            try reading([0xAA, 0xBB, 0x01, 0x02, 0x03, 0xCC]) { r throws(ByteDecodingError) in
                try r.skip(2, field: "header")
                var sub = try r.subReader(count: 3, field: "body")
                _ = try sub.read(UInt16.self, field: "a")
                return try sub.read(UInt16.self, field: "b")
            }
        }
        #expect(error == ByteDecodingError(field: "b", offset: 4, reason: .truncated(needed: 2, available: 1)))
    }

    @Test func subReaderCoversOnlyItsBytesAndAdvancesTheParent() throws {
        let (subCount, subOffset, subFirst, parentNext) = try reading([0xAA, 0x01, 0x02, 0xCC]) { r throws(ByteDecodingError) in
            try r.skip(1, field: "header")
            var sub = try r.subReader(count: 2, field: "body")
            return (sub.count, sub.offset, try sub.read(UInt8.self, field: "a"), try r.read(UInt8.self, field: "tail"))
        }
        #expect(subCount == 2)
        #expect(subOffset == 1)
        #expect(subFirst == 0x01)
        #expect(parentNext == 0xCC)
    }

    @Test func subReaderTrailingBytesReportAbsoluteOffset() {
        let error = decodingError { () throws(ByteDecodingError) in
            try reading([0xAA, 0x01, 0x02, 0x03]) { r throws(ByteDecodingError) in
                try r.skip(1, field: "header")
                var sub = try r.subReader(count: 3, field: "body")
                _ = try sub.read(UInt8.self, field: "a")
                try sub.expectEnd()
            }
        }
        #expect(error == ByteDecodingError(field: "", offset: 2, reason: .trailingBytes(count: 2)))
    }

    @Test func invalidValueDefaultsToTheCursorOffset() throws {
        let error = try reading([0x01, 0x02]) { r throws(ByteDecodingError) in
            _ = try r.read(UInt8.self, field: "a")
            return r.invalidValue("bad", field: "b")
        }
        #expect(error == ByteDecodingError(field: "b", offset: 1, reason: .invalidValue("bad")))
    }
}
