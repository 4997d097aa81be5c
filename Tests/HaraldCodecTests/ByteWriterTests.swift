import HaraldCodec
import Testing

@Suite("ByteWriter")
struct ByteWriterTests {
    @Test func startsEmpty() {
        let writer = ByteWriter()
        #expect(writer.bytes == [])
        #expect(writer.count == 0)
    }

    @Test func negativeCapacityIsHarmless() {
        var writer = ByteWriter(capacity: -5)
        writer.write(UInt8(1))
        #expect(writer.bytes == [1])
    }

    @Test func writesSingleBytes() {
        var writer = ByteWriter()
        writer.write(UInt8(0xAB))
        writer.write(Int8(-1))
        #expect(writer.bytes == [0xAB, 0xFF])
    }

    @Test func writesLittleEndianByDefault() {
        var writer = ByteWriter()
        writer.write(UInt16(0x1234))
        writer.write(UInt32(0x1234_5678))
        #expect(writer.bytes == [0x34, 0x12, 0x78, 0x56, 0x34, 0x12])
    }

    @Test func writesBigEndianWhenAsked() {
        var writer = ByteWriter()
        writer.write(UInt16(0x1234), byteOrder: .bigEndian)
        writer.write(UInt32(0x1234_5678), byteOrder: .bigEndian)
        #expect(writer.bytes == [0x12, 0x34, 0x12, 0x34, 0x56, 0x78])
    }

    @Test func writesSixtyFourBitIntegersBothOrders() {
        var writer = ByteWriter()
        writer.write(UInt64(0x0102_0304_0506_0708))
        writer.write(Int64(-2), byteOrder: .bigEndian)
        #expect(writer.bytes == [8, 7, 6, 5, 4, 3, 2, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE])
    }

    @Test func writesSignedIntegersAsTwosComplement() {
        var writer = ByteWriter()
        writer.write(Int16(-2))
        writer.write(Int32(Int32.min))
        #expect(writer.bytes == [0xFE, 0xFF, 0x00, 0x00, 0x00, 0x80])
    }

    @Test func writesUInt24BothOrders() {
        var writer = ByteWriter()
        writer.write(UInt24(truncatingIfNeeded: 0x12_3456))
        writer.write(UInt24(truncatingIfNeeded: 0x12_3456), byteOrder: .bigEndian)
        #expect(writer.bytes == [0x56, 0x34, 0x12, 0x12, 0x34, 0x56])
    }

    @Test func writesInt24AsItsTwentyFourBitPattern() {
        var writer = ByteWriter()
        writer.write(Int24(exactly: -2)!)
        writer.write(Int24(exactly: -2)!, byteOrder: .bigEndian)
        #expect(writer.bytes == [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE])
    }

    @Test func writesRawBytesFromAnySequence() {
        var writer = ByteWriter()
        writer.write(bytes: [1, 2])
        writer.write(bytes: NonContiguousBytes([3]))
        writer.write(bytes: [9, 4, 9][1..<2])
        #expect(writer.bytes == [1, 2, 3, 4])
    }

    @Test func writesUTF8WithoutTerminator() {
        var writer = ByteWriter()
        writer.writeUTF8("Hé")
        #expect(writer.bytes == [0x48, 0xC3, 0xA9])
    }

    @Test func writesFlagsAtTheirRawWidth() {
        enum Bit: Int, FlagBit { case a = 0, b = 9 }
        var writer = ByteWriter()
        writer.write(Flags<Bit, UInt8>(rawValue: 0x81))
        writer.write(Flags<Bit, UInt16>([.a, .b]))
        #expect(writer.bytes == [0x81, 0x01, 0x02])
    }

    @Test func writes24BitFlagsInThreeBytes() {
        enum Bit: Int, FlagBit { case low = 0, high = 23 }
        var writer = ByteWriter()
        writer.write24(Flags<Bit, UInt32>([.low, .high]))
        #expect(writer.bytes == [0x01, 0x00, 0x80])
    }

    @Test func write24DropsBitsAboveTwentyThree() {
        enum Bit: Int, FlagBit { case top = 31 }
        var writer = ByteWriter()
        writer.write24(Flags<Bit, UInt32>(rawValue: 0xFF00_0001))
        #expect(writer.bytes == [0x01, 0x00, 0x00])
    }

    @Test func encodesNestedValues() throws {
        var writer = ByteWriter()
        try writer.encode(UInt16(0x0102))
        try writer.encode("A")
        try writer.encode([UInt8]([7, 8]))
        #expect(writer.bytes == [0x02, 0x01, 0x41, 7, 8])
    }

    @Test func encodedBytesOfAValue() throws {
        #expect(try UInt32(0xAABB_CCDD).encodedBytes() == [0xDD, 0xCC, 0xBB, 0xAA])
        #expect(try Int24(exactly: 1)!.encodedBytes() == [1, 0, 0])
    }

    @Test func floatAndDoubleWriteTheirIEEE754Bits() throws {
        #expect(try Float(1.0).encodedBytes() == [0x00, 0x00, 0x80, 0x3F])
        #expect(try Double(-2.0).encodedBytes() == [0, 0, 0, 0, 0, 0, 0x00, 0xC0])
        #expect(try Float(decoding: [0x00, 0x00, 0x80, 0x3F]) == 1.0)
        #expect(try Double(decoding: [0, 0, 0, 0, 0, 0, 0x00, 0xC0]) == -2.0)
    }

    @Test func replaceByteOverwritesInPlace() {
        var writer = ByteWriter()
        writer.write(UInt8(0))
        writer.write(UInt16(0x0302))
        writer.replaceByte(at: 0, with: 0x11)
        #expect(writer.bytes == [0x11, 0x02, 0x03])
    }

    @Test(arguments: [-1, 3, Int.max, Int.min])
    func replaceByteOutOfRangeIsIgnored(index: Int) {
        var writer = ByteWriter()
        writer.write(bytes: [1, 2, 3])
        writer.replaceByte(at: index, with: 0xFF)
        #expect(writer.bytes == [1, 2, 3])
    }

    @Test func countTracksBytesWritten() {
        var writer = ByteWriter(capacity: 1)
        writer.write(UInt64(0))
        writer.write(UInt24(truncatingIfNeeded: 0))
        #expect(writer.count == 11)
    }
}
