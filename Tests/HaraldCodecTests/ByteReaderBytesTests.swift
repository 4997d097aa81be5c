import HaraldCodec
import Testing

@Suite("ByteReader: byte runs, text and bad counts")
struct ByteReaderBytesTests {
    @Test func readBytesReturnsTheRunAndAdvances() throws {
        let (run, next) = try reading([1, 2, 3, 4]) { r throws(ByteDecodingError) in
            (try r.readBytes(count: 3, field: "run"), try r.read(UInt8.self, field: "next"))
        }
        #expect(run == [1, 2, 3])
        #expect(next == 4)
    }

    @Test func readBytesOfZeroIsEmpty() throws {
        #expect(try reading([]) { r throws(ByteDecodingError) in try r.readBytes(count: 0, field: "run") } == [])
    }

    @Test func readBytesPastTheEndIsTruncation() {
        let error = decodingError { () throws(ByteDecodingError) in
            try reading([1, 2]) { r throws(ByteDecodingError) in try r.readBytes(count: 3, field: "run") }
        }
        #expect(error == ByteDecodingError(field: "run", offset: 0, reason: .truncated(needed: 3, available: 2)))
    }

    @Test func readRemainingBytesTakesTheRestAndEndsTheReader() throws {
        let (rest, atEnd) = try reading([1, 2, 3]) { r throws(ByteDecodingError) in
            _ = try r.read(UInt8.self, field: "a")
            return (r.readRemainingBytes(), r.isAtEnd)
        }
        #expect(rest == [2, 3])
        #expect(atEnd)
    }

    @Test func readRemainingBytesAtTheEndIsEmpty() throws {
        let rest = try reading([1]) { r throws(ByteDecodingError) in
            _ = try r.read(UInt8.self, field: "a")
            return r.readRemainingBytes()
        }
        #expect(rest == [])
    }

    @Test func skipMovesTheCursor() throws {
        let value = try reading([9, 9, 7]) { r throws(ByteDecodingError) in
            try r.skip(2, field: "reserved")
            return try r.read(UInt8.self, field: "x")
        }
        #expect(value == 7)
    }

    @Test func skipPastTheEndIsTruncation() {
        let error = decodingError { () throws(ByteDecodingError) in
            try reading([1]) { r throws(ByteDecodingError) in try r.skip(2, field: "reserved") }
        }
        #expect(error == ByteDecodingError(field: "reserved", offset: 0, reason: .truncated(needed: 2, available: 1)))
    }

    @Test func peekByteDoesNotMoveTheCursor() throws {
        let (peeked, offset, read) = try reading([0x42, 0x43]) { r throws(ByteDecodingError) in
            (r.peekByte(), r.offset, try r.read(UInt8.self, field: "x"))
        }
        #expect(peeked == 0x42)
        #expect(offset == 0)
        #expect(read == 0x42)
    }

    @Test func peekByteAtTheEndIsNil() throws {
        #expect(try reading([]) { r throws(ByteDecodingError) in r.peekByte() } == nil)
    }

    @Test func withBytesLendsTheNextBytesInPlace() throws {
        let (sum, next) = try reading([1, 2, 3, 4]) { r throws(ByteDecodingError) in
            let sum = try r.withBytes(count: 3, field: "run") { (raw) throws(ByteDecodingError) in raw.reduce(0, +) }
            return (sum, try r.read(UInt8.self, field: "next"))
        }
        #expect(sum == 6)
        #expect(next == 4)
    }

    @Test func withBytesPastTheEndIsTruncation() {
        let error = decodingError { () throws(ByteDecodingError) in
            try reading([1]) { r throws(ByteDecodingError) in
                try r.withBytes(count: 2, field: "run") { (raw) throws(ByteDecodingError) in raw.count }
            }
        }
        #expect(error == ByteDecodingError(field: "run", offset: 0, reason: .truncated(needed: 2, available: 1)))
    }

    // MARK: Absurd counts

    @Test(arguments: [-1, -1000, Int.min, Int.max, Int.max - 1])
    func absurdCountsThrowInsteadOfTrapping(count: Int) {
        let bytes: [UInt8] = [1, 2, 3]
        func fails(_ body: (inout ByteReader) throws(ByteDecodingError) -> Void) -> Bool {
            decodingError { () throws(ByteDecodingError) in try reading(bytes, body) } != nil
        }
        #expect(fails { r throws(ByteDecodingError) in _ = try r.readBytes(count: count, field: "f") })
        #expect(fails { r throws(ByteDecodingError) in try r.skip(count, field: "f") })
        #expect(fails { r throws(ByteDecodingError) in _ = try r.subReader(count: count, field: "f") })
        #expect(fails { r throws(ByteDecodingError) in _ = try r.readUTF8(count: count, field: "f") })
        #expect(
            fails { r throws(ByteDecodingError) in
                _ = try r.withBytes(count: count, field: "f") { (raw) throws(ByteDecodingError) in raw.count }
            })
        #expect(fails { r throws(ByteDecodingError) in _ = try r.decode([UInt8].self, byteCount: count, field: "f") })
    }

    @Test func absurdCountLeavesTheCursorUsable() throws {
        let value = try reading([5]) { r throws(ByteDecodingError) in
            _ = try? r.readBytes(count: -7, field: "f")
            _ = try? r.skip(Int.max, field: "f")
            return try r.read(UInt8.self, field: "x")
        }
        #expect(value == 5)
    }

    @Test func negativeCountErrorNamesTheField() {
        let error = decodingError { () throws(ByteDecodingError) in
            try reading([1, 2]) { r throws(ByteDecodingError) in try r.readBytes(count: -1, field: "payload") }
        }
        #expect(error?.field == "payload")
        #expect(error?.offset == 0)
        if case .invalidValue = error?.reason {} else { Issue.record("expected invalidValue, got \(String(describing: error))") }
    }

    // MARK: UTF-8

    @Test func readsUTF8Text() throws {
        let text = try reading(Array("Polar H10".utf8)) { r throws(ByteDecodingError) in try r.readUTF8(count: 9, field: "name") }
        #expect(text == "Polar H10")
    }

    @Test func readsMultiByteUTF8() throws {
        let bytes = Array("Grüße ❤️".utf8)
        let text = try reading(bytes) { r throws(ByteDecodingError) in try r.readUTF8(count: bytes.count, field: "name") }
        #expect(text == "Grüße ❤️")
    }

    @Test func invalidUTF8IsReportedWithFieldAndOffset() {
        let error = decodingError { () throws(ByteDecodingError) in
            try reading([0x41, 0x42, 0xFF, 0x43]) { r throws(ByteDecodingError) in
                _ = try r.read(UInt8.self, field: "length")
                return try r.readUTF8(count: 3, field: "name")
            }
        }
        #expect(error == ByteDecodingError(field: "name", offset: 1, reason: .invalidUTF8))
    }

    @Test func utf8CutInsideACharacterIsInvalid() {
        let bytes = Array("é".utf8)  // C3 A9
        let error = decodingError { () throws(ByteDecodingError) in
            try reading(bytes) { r throws(ByteDecodingError) in try r.readUTF8(count: 1, field: "name") }
        }
        #expect(error?.reason == .invalidUTF8)
    }

    @Test func overlongUTF8IsInvalid() {
        // C0 AF is an overlong "/"; a validating decoder must refuse it.
        let error = decodingError { () throws(ByteDecodingError) in
            try reading([0xC0, 0xAF]) { r throws(ByteDecodingError) in try r.readUTF8(count: 2, field: "name") }
        }
        #expect(error?.reason == .invalidUTF8)
    }

    @Test(
        arguments: [
            [0xED, 0xA0, 0x80],  // a UTF-16 surrogate encoded as UTF-8
            [0xF4, 0x90, 0x80, 0x80],  // beyond U+10FFFF
            [0xF8, 0x88, 0x80, 0x80, 0x80],  // a five-byte form
            [0x80],  // a lone continuation byte
            [0xE2, 0x82],  // a sequence cut short
        ] as [[UInt8]])
    func malformedUTF8IsRejected(bytes: [UInt8]) {
        let error = decodingError { () throws(ByteDecodingError) in
            try reading(bytes) { r throws(ByteDecodingError) in try r.readRemainingUTF8(field: "name") }
        }
        #expect(error == ByteDecodingError(field: "name", offset: 0, reason: .invalidUTF8))
    }

    @Test func fourByteUTF8IsAccepted() throws {
        let text = try reading([0xF0, 0x9F, 0x92, 0x93]) { r throws(ByteDecodingError) in try r.readRemainingUTF8(field: "name") }
        #expect(text == "💓")
    }

    @Test func trimmingNullsDropsTrailingPadding() throws {
        let text = try reading([0x48, 0x52, 0x4D, 0x00, 0x00]) { r throws(ByteDecodingError) in
            try r.readUTF8(count: 5, field: "name", trimmingNulls: true)
        }
        #expect(text == "HRM")
    }

    @Test func withoutTrimmingNullsArePartOfTheText() throws {
        let text = try reading([0x48, 0x00]) { r throws(ByteDecodingError) in try r.readUTF8(count: 2, field: "name") }
        #expect(text == "H\u{0}")
    }

    @Test func trimmingNullsKeepsInnerNulls() throws {
        let text = try reading([0x41, 0x00, 0x42, 0x00]) { r throws(ByteDecodingError) in
            try r.readUTF8(count: 4, field: "name", trimmingNulls: true)
        }
        #expect(text == "A\u{0}B")
    }

    @Test func trimmingNullsOfOnlyNullsIsEmpty() throws {
        let text = try reading([0, 0, 0]) { r throws(ByteDecodingError) in
            try r.readRemainingUTF8(field: "name", trimmingNulls: true)
        }
        #expect(text == "")
    }

    @Test func readRemainingUTF8TakesTheRest() throws {
        let text = try reading([0x01, 0x4F, 0x4B]) { r throws(ByteDecodingError) in
            _ = try r.read(UInt8.self, field: "op")
            return try r.readRemainingUTF8(field: "text")
        }
        #expect(text == "OK")
    }

    @Test func utf8PastTheEndIsTruncation() {
        let error = decodingError { () throws(ByteDecodingError) in
            try reading([0x41]) { r throws(ByteDecodingError) in try r.readUTF8(count: 2, field: "name") }
        }
        #expect(error == ByteDecodingError(field: "name", offset: 0, reason: .truncated(needed: 2, available: 1)))
    }

    @Test func stringValueDecodesTheWholeInput() throws {
        #expect(try String(decoding: Array("Harald".utf8)) == "Harald")
        #expect(try String(decoding: [UInt8]()) == "")
    }

    @Test func stringValueRejectsInvalidUTF8WithTypeName() {
        let error = decodingError { () throws(ByteDecodingError) in try String(decoding: [0x80]) }
        #expect(error == ByteDecodingError(typeName: "String", field: "", offset: 0, reason: .invalidUTF8))
    }

    @Test func byteArrayValueTakesEverything() throws {
        #expect(try [UInt8](decoding: [3, 2, 1]) == [3, 2, 1])
    }
}
