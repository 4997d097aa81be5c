import HaraldCodec
import Testing

@Suite("ByteReader: integers")
struct ByteReaderIntegerTests {
    @Test func readsUInt8() throws {
        #expect(try reading([0xAB]) { r throws(ByteDecodingError) in try r.read(UInt8.self, field: "x") } == 0xAB)
    }

    @Test func readsInt8AsTwosComplement() throws {
        #expect(try reading([0xFF]) { r throws(ByteDecodingError) in try r.read(Int8.self, field: "x") } == -1)
        #expect(try reading([0x80]) { r throws(ByteDecodingError) in try r.read(Int8.self, field: "x") } == -128)
    }

    @Test func byteOrderIsIgnoredForSingleBytes() throws {
        let value = try reading([0x7F]) { r throws(ByteDecodingError) in
            try r.read(UInt8.self, byteOrder: .bigEndian, field: "x")
        }
        #expect(value == 0x7F)
    }

    @Test func readsUInt16LittleEndianByDefault() throws {
        #expect(try reading([0x34, 0x12]) { r throws(ByteDecodingError) in try r.read(UInt16.self, field: "x") } == 0x1234)
    }

    @Test func readsUInt16BigEndian() throws {
        let value = try reading([0x12, 0x34]) { r throws(ByteDecodingError) in
            try r.read(UInt16.self, byteOrder: .bigEndian, field: "x")
        }
        #expect(value == 0x1234)
    }

    @Test func readsInt16BothOrders() throws {
        let little = try reading([0xFE, 0xFF]) { r throws(ByteDecodingError) in try r.read(Int16.self, field: "x") }
        let big = try reading([0xFF, 0xFE]) { r throws(ByteDecodingError) in
            try r.read(Int16.self, byteOrder: .bigEndian, field: "x")
        }
        #expect(little == -2)
        #expect(big == -2)
    }

    @Test func readsUInt32BothOrders() throws {
        let little = try reading([0x78, 0x56, 0x34, 0x12]) { r throws(ByteDecodingError) in try r.read(UInt32.self, field: "x") }
        let big = try reading([0x12, 0x34, 0x56, 0x78]) { r throws(ByteDecodingError) in
            try r.read(UInt32.self, byteOrder: .bigEndian, field: "x")
        }
        #expect(little == 0x1234_5678)
        #expect(big == 0x1234_5678)
    }

    @Test func readsInt32BothOrders() throws {
        let little = try reading([0x00, 0x00, 0x00, 0x80]) { r throws(ByteDecodingError) in try r.read(Int32.self, field: "x") }
        let big = try reading([0xFF, 0xFF, 0xFF, 0x85]) { r throws(ByteDecodingError) in
            try r.read(Int32.self, byteOrder: .bigEndian, field: "x")
        }
        #expect(little == Int32.min)
        #expect(big == -123)
    }

    @Test func readsUInt64BothOrders() throws {
        let bytes: [UInt8] = [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF]
        let little = try reading(bytes) { r throws(ByteDecodingError) in try r.read(UInt64.self, field: "x") }
        let big = try reading(bytes) { r throws(ByteDecodingError) in try r.read(UInt64.self, byteOrder: .bigEndian, field: "x") }
        #expect(little == 0xEFCD_AB89_6745_2301)
        #expect(big == 0x0123_4567_89AB_CDEF)
    }

    @Test func readsInt64BothOrders() throws {
        let little = try reading([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]) { r throws(ByteDecodingError) in
            try r.read(Int64.self, field: "x")
        }
        let big = try reading([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE]) { r throws(ByteDecodingError) in
            try r.read(Int64.self, byteOrder: .bigEndian, field: "x")
        }
        #expect(little == Int64.max)
        #expect(big == -2)
    }

    @Test func readsConsecutiveFieldsAndAdvancesTheOffset() throws {
        let (a, b, c, end) = try reading([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07]) { r throws(ByteDecodingError) in
            (
                try r.read(UInt8.self, field: "a"), try r.read(UInt16.self, field: "b"),
                try r.read(UInt32.self, byteOrder: .bigEndian, field: "c"), r.offset
            )
        }
        #expect(a == 0x01)
        #expect(b == 0x0302)
        #expect(c == 0x0405_0607)
        #expect(end == 7)
    }

    @Test func readsUnalignedFields() throws {
        // A UInt32 starting at offset 1 is misaligned in memory; it must still read correctly.
        let value = try reading([0x00, 0xEF, 0xBE, 0xAD, 0xDE]) { r throws(ByteDecodingError) in
            try r.skip(1, field: "pad")
            return try r.read(UInt32.self, field: "x")
        }
        #expect(value == 0xDEAD_BEEF)
    }

    // MARK: 24-bit

    @Test func readsUInt24LittleEndian() throws {
        let value = try reading([0x56, 0x34, 0x12]) { r throws(ByteDecodingError) in try r.read(UInt24.self, field: "x") }
        #expect(value.value == 0x12_3456)
    }

    @Test func readsUInt24BigEndian() throws {
        let value = try reading([0x12, 0x34, 0x56]) { r throws(ByteDecodingError) in
            try r.read(UInt24.self, byteOrder: .bigEndian, field: "x")
        }
        #expect(value.value == 0x12_3456)
    }

    @Test func readsUInt24MaximumWithoutSignExtension() throws {
        let value = try reading([0xFF, 0xFF, 0xFF]) { r throws(ByteDecodingError) in try r.read(UInt24.self, field: "x") }
        #expect(value == UInt24.max)
        #expect(value.value == 16_777_215)
    }

    @Test func readsInt24SignExtended() throws {
        let minusOne = try reading([0xFF, 0xFF, 0xFF]) { r throws(ByteDecodingError) in try r.read(Int24.self, field: "x") }
        let minimum = try reading([0x00, 0x00, 0x80]) { r throws(ByteDecodingError) in try r.read(Int24.self, field: "x") }
        let maximum = try reading([0xFF, 0xFF, 0x7F]) { r throws(ByteDecodingError) in try r.read(Int24.self, field: "x") }
        #expect(minusOne.value == -1)
        #expect(minimum.value == -8_388_608)
        #expect(maximum.value == 8_388_607)
    }

    @Test func readsInt24BigEndianSignExtended() throws {
        let value = try reading([0xFF, 0xFF, 0xFE]) { r throws(ByteDecodingError) in
            try r.read(Int24.self, byteOrder: .bigEndian, field: "x")
        }
        #expect(value.value == -2)
    }

    @Test func uint24TooShortNamesTheFieldAndCounts() {
        let error = decodingError { () throws(ByteDecodingError) in
            try reading([0x01, 0x02]) { r throws(ByteDecodingError) in try r.read(UInt24.self, field: "status") }
        }
        #expect(error == ByteDecodingError(field: "status", offset: 0, reason: .truncated(needed: 3, available: 2)))
    }
}

@Suite("UInt24 and Int24")
struct Int24ValueTests {
    @Test func uint24ExactlyAcceptsOnlyTwentyFourBitValues() {
        #expect(UInt24(exactly: 0)?.value == 0)
        #expect(UInt24(exactly: 0xFF_FFFF)?.value == 0xFF_FFFF)
        #expect(UInt24(exactly: 0x100_0000) == nil)
        #expect(UInt24(exactly: -1) == nil)
    }

    @Test func uint24TruncatingKeepsLowBits() {
        #expect(UInt24(truncatingIfNeeded: 0xAB12_3456).value == 0x12_3456)
    }

    @Test func int24ExactlyAcceptsOnlyTwentyFourBitValues() {
        #expect(Int24(exactly: 8_388_607)?.value == 8_388_607)
        #expect(Int24(exactly: -8_388_608)?.value == -8_388_608)
        #expect(Int24(exactly: 8_388_608) == nil)
        #expect(Int24(exactly: -8_388_609) == nil)
    }

    @Test func int24TruncatingSignExtendsBit23() {
        #expect(Int24(truncatingIfNeeded: 0x00FF_FFFF).value == -1)
        #expect(Int24(truncatingIfNeeded: 0x0080_0000).value == -8_388_608)
        #expect(Int24(truncatingIfNeeded: 0x7F00_0001).value == 1)
    }

    @Test func int24BitPatternRoundTrips() {
        let value = Int24(exactly: -300)!
        #expect(value.bitPattern.value == 0xFF_FED4)
        #expect(Int24(bitPattern: value.bitPattern) == value)
    }

    @Test func limitsAreTheTwentyFourBitLimits() {
        #expect(UInt24.min.value == 0)
        #expect(UInt24.max.value == (1 << 24) - 1)
        #expect(Int24.min.value == -(1 << 23))
        #expect(Int24.max.value == (1 << 23) - 1)
    }

    @Test func integerLiteralsKeepTheLowTwentyFourBits() {
        let unsigned: UInt24 = 0x0112_3456
        let signed: Int24 = 0x80_0000
        #expect(unsigned.value == 0x12_3456)
        #expect(signed.value == -8_388_608)
    }

    @Test func descriptionIsTheDecimalValue() {
        #expect(UInt24.max.description == "16777215")
        #expect(Int24.min.description == "-8388608")
    }

    @Test func orderingFollowsTheNumericValue() {
        #expect(Int24(exactly: -1)! < Int24(exactly: 0)!)
        #expect(UInt24(exactly: 1)! < UInt24(exactly: 0x80_0000)!)
    }
}
