import HaraldCodec
import Testing

@Suite("TLV")
struct TLVTests {
    @Test func walksOneByteTypeAndLength() throws {
        let items = try TLV.items(in: [0x01, 0x02, 0xAA, 0xBB, 0x05, 0x00, 0x07, 0x01, 0xCC])
        #expect(
            items == [
                TLVItem(type: 1, value: [0xAA, 0xBB], offset: 0),
                TLVItem(type: 5, value: [], offset: 4),
                TLVItem(type: 7, value: [0xCC], offset: 6),
            ])
    }

    @Test func emptyInputHasNoItems() throws {
        #expect(try TLV.items(in: [UInt8]()) == [])
    }

    @Test func walksOneByteTypeTwoByteLengthLittleEndian() throws {
        let format = TLVFormat(typeWidth: 1, lengthWidth: 2)
        let items = try TLV.items(in: [0x09, 0x03, 0x00, 1, 2, 3], format: format)
        #expect(items == [TLVItem(type: 9, value: [1, 2, 3], offset: 0)])
    }

    @Test func walksOneByteTypeTwoByteLengthBigEndian() throws {
        let format = TLVFormat(typeWidth: 1, lengthWidth: 2, byteOrder: .bigEndian)
        let items = try TLV.items(in: [0x09, 0x00, 0x02, 1, 2], format: format)
        #expect(items == [TLVItem(type: 9, value: [1, 2], offset: 0)])
    }

    @Test func walksTwoByteTypeAndLengthBothOrders() throws {
        let little = try TLV.items(in: [0x34, 0x12, 0x01, 0x00, 0xFF], format: TLVFormat(typeWidth: 2, lengthWidth: 2))
        let big = try TLV.items(in: [0x12, 0x34, 0x00, 0x01, 0xFF], format: TLVFormat(typeWidth: 2, lengthWidth: 2, byteOrder: .bigEndian))
        #expect(little == [TLVItem(type: 0x1234, value: [0xFF], offset: 0)])
        #expect(big == little)
    }

    @Test func walksFourByteFields() throws {
        let items = try TLV.items(in: [0, 0, 0, 7, 0, 0, 0, 1, 0xEE], format: TLVFormat(typeWidth: 4, lengthWidth: 4, byteOrder: .bigEndian))
        #expect(items == [TLVItem(type: 7, value: [0xEE], offset: 0)])
    }

    @Test func unsupportedWidthsFallBackToOneByte() {
        let format = TLVFormat(typeWidth: 3, lengthWidth: 0)
        #expect(format.typeWidth == 1)
        #expect(format.lengthWidth == 1)
        #expect(TLVFormat.byteByte == TLVFormat())
    }

    @Test func truncatedValueThrowsWithItsOffset() {
        let error = decodingError { () throws(ByteDecodingError) in try TLV.items(in: [0x01, 0x01, 0xAA, 0x02, 0x03, 0xBB]) }
        #expect(error == ByteDecodingError(field: "tlv.value", offset: 5, reason: .truncated(needed: 3, available: 1)))
    }

    @Test func truncatedLengthThrows() {
        let error = decodingError { () throws(ByteDecodingError) in
            try TLV.items(in: [0x01, 0x00], format: TLVFormat(typeWidth: 1, lengthWidth: 2))
        }
        #expect(error == ByteDecodingError(field: "tlv.length", offset: 1, reason: .truncated(needed: 2, available: 1)))
    }

    @Test func hugeLengthThrowsInsteadOfTrapping() {
        let format = TLVFormat(typeWidth: 1, lengthWidth: 4)
        let error = decodingError { () throws(ByteDecodingError) in try TLV.items(in: [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x00], format: format) }
        #expect(error?.field == "tlv.length" || error?.field == "tlv.value")
    }

    @Test func readTLVReturnsNilAtTheEndAndNamesItsField() throws {
        let (first, second) = try ByteReader.withReader([0x01, 0x00] as [UInt8]) { r throws(ByteDecodingError) in
            (try r.readTLV(field: "query"), try r.readTLV(field: "query"))
        }
        #expect(first == TLVItem(type: 1, value: [], offset: 0))
        #expect(second == nil)
        let error = decodingError { () throws(ByteDecodingError) in
            try ByteReader.withReader([0x01] as [UInt8]) { r throws(ByteDecodingError) in try r.readTLV(field: "query") }
        }
        #expect(error?.field == "query.length")
    }

    @Test func itemOffsetsCountFromTheReaderStart() throws {
        let items = try ByteReader.withReader([0xFF, 0x01, 0x00, 0x02, 0x00] as [UInt8]) { r throws(ByteDecodingError) in
            try r.skip(1, field: "header")
            return try r.readAllTLV()
        }
        #expect(items.map(\.offset) == [1, 3])
    }

    // MARK: Encoding

    @Test(arguments: [
        TLVFormat(typeWidth: 1, lengthWidth: 1),
        TLVFormat(typeWidth: 1, lengthWidth: 2),
        TLVFormat(typeWidth: 2, lengthWidth: 2, byteOrder: .bigEndian),
        TLVFormat(typeWidth: 2, lengthWidth: 1, byteOrder: .littleEndian),
        TLVFormat(typeWidth: 4, lengthWidth: 4, byteOrder: .bigEndian),
    ])
    func encodeThenWalkRoundTrips(format: TLVFormat) throws {
        let items = [TLVItem(type: 0x21, value: [1, 2, 3]), TLVItem(type: 0, value: []), TLVItem(type: 0x7F, value: [0xFF])]
        let walked = try TLV.items(in: try TLV.encode(items, format: format), format: format)
        #expect(walked.map(\.type) == items.map(\.type))
        #expect(walked.map(\.value) == items.map(\.value))
    }

    @Test func encodesFieldsInTheFormatsOrder() throws {
        let bytes = try TLV.encode([TLVItem(type: 0x0102, value: [0xAA])], format: TLVFormat(typeWidth: 2, lengthWidth: 2, byteOrder: .bigEndian))
        #expect(bytes == [0x01, 0x02, 0x00, 0x01, 0xAA])
    }

    @Test func lengthThatDoesNotFitThrows() {
        let long = TLVItem(type: 1, value: [UInt8](repeating: 0, count: 256))
        #expect(throws: ByteEncodingError.self) { try TLV.encode([long]) }
        #expect(throws: Never.self) { try TLV.encode([long], format: TLVFormat(lengthWidth: 2)) }
    }

    @Test func typeThatDoesNotFitThrows() {
        #expect(throws: ByteEncodingError.self) { try TLV.encode([TLVItem(type: 0x100, value: [])]) }
        #expect(throws: ByteEncodingError.self) {
            try TLV.encode([TLVItem(type: 0x1_0000, value: [])], format: TLVFormat(typeWidth: 2))
        }
    }
}
