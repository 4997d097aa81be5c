import Foundation
import HaraldCodec
import Testing

@Suite("ByteReader: input containers")
struct ByteReaderInputTests {
    @Test func readsFromAnArray() throws {
        #expect(try UInt16(decoding: [0x01, 0x02] as [UInt8]) == 0x0201)
    }

    @Test func readsFromASliceWithNonZeroStart() throws {
        let whole: [UInt8] = [0xAA, 0xBB, 0x01, 0x02]
        let slice = whole[2...]
        #expect(slice.startIndex == 2)
        #expect(try UInt16(decoding: slice) == 0x0201)
    }

    @Test func sliceOffsetsInErrorsCountFromTheSliceStart() {
        let whole: [UInt8] = [0xAA, 0xBB, 0xCC, 0x01]
        let error = decodingError { () throws(ByteDecodingError) in try UInt16(decoding: whole[3...]) }
        #expect(error == ByteDecodingError(typeName: "UInt16", field: "", offset: 0, reason: .truncated(needed: 2, available: 1)))
    }

    @Test func sliceDoesNotReadPastItsEnd() {
        let whole: [UInt8] = [0x01, 0x02, 0x03, 0x04]
        let error = decodingError { () throws(ByteDecodingError) in try UInt32(decoding: whole[1..<3]) }
        #expect(error?.reason == .truncated(needed: 4, available: 2))
    }

    @Test func readsFromData() throws {
        #expect(try UInt32(decoding: Data([0x78, 0x56, 0x34, 0x12])) == 0x1234_5678)
    }

    @Test func readsFromADataSliceWithNonZeroStart() throws {
        let data = Data([0xFF, 0xFF, 0x34, 0x12])
        let slice = data[2...]
        #expect(slice.startIndex == 2)
        #expect(try UInt16(decoding: slice) == 0x1234)
    }

    @Test func readsFromANonContiguousSequence() throws {
        #expect(try UInt32(decoding: NonContiguousBytes([0x78, 0x56, 0x34, 0x12])) == 0x1234_5678)
    }

    @Test func nonContiguousSequenceStillReportsErrors() {
        let error = decodingError { () throws(ByteDecodingError) in try UInt16(decoding: NonContiguousBytes([0x01, 0x02, 0x03])) }
        #expect(error == ByteDecodingError(typeName: "UInt16", field: "", offset: 2, reason: .trailingBytes(count: 1)))
    }

    @Test func nonContiguousSequenceWorksWithDecodePrefix() throws {
        let (value, used) = try UInt8.decodePrefix(of: NonContiguousBytes([9, 8, 7]))
        #expect(value == 9)
        #expect(used == 1)
    }

    @Test func emptyArrayGivesAnEmptyReader() throws {
        let (count, atEnd) = try ByteReader.withReader([UInt8]()) { r throws(ByteDecodingError) in (r.count, r.isAtEnd) }
        #expect(count == 0)
        #expect(atEnd)
    }

    @Test func readerOverABufferPointerReadsIt() throws {
        let bytes: [UInt8] = [0x10, 0x20]
        let value = try bytes.withUnsafeBytes { raw throws(ByteDecodingError) in
            var reader = ByteReader(unsafeBytes: raw)
            return try reader.read(UInt16.self, byteOrder: .bigEndian, field: "x")
        }
        #expect(value == 0x1020)
    }

    @Test func withReaderPassesTheBodysErrorThrough() {
        let expected = ByteDecodingError(field: "custom", offset: 0, reason: .invalidValue("no"))
        let error = decodingError { () throws(ByteDecodingError) in
            try ByteReader.withReader(NonContiguousBytes([1])) { (_) throws(ByteDecodingError) -> Int in throw expected }
        }
        #expect(error == expected)
    }
}
