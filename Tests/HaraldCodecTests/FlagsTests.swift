import HaraldCodec
import Testing

/// Named bits of an 8-bit field, with gaps (bits 2, 5, 6, 7 unnamed).
enum SensorFlag: Int, FlagBit {
    case valueIsUInt16 = 0
    case contactDetected = 1
    case energyPresent = 3
    case rrPresent = 4
}

/// Bits that do not fit an 8-bit field, and one that fits no field at all.
enum OddFlag: Int, FlagBit {
    case inside = 1
    case beyondByte = 9
    case beyondEverything = 200
    case negative = -1
}

enum StatusBit: Int, FlagBit {
    case first = 0
    case middle = 12
    case last = 23
}

@Suite("Flags")
struct FlagsTests {
    typealias Sensor = Flags<SensorFlag, UInt8>

    @Test func containsNamedBitsThatAreSet() {
        let flags = Sensor(rawValue: 0b0001_1001)
        #expect(flags.contains(.valueIsUInt16))
        #expect(!flags.contains(.contactDetected))
        #expect(flags.contains(.energyPresent))
        #expect(flags.contains(.rrPresent))
    }

    @Test func insertSetsOnlyThatBit() {
        var flags = Sensor(rawValue: 0)
        flags.insert(.energyPresent)
        #expect(flags.rawValue == 0b0000_1000)
    }

    @Test func insertIsIdempotent() {
        var flags = Sensor(rawValue: 0b1000)
        flags.insert(.energyPresent)
        #expect(flags.rawValue == 0b1000)
    }

    @Test func removeClearsOnlyThatBit() {
        var flags = Sensor(rawValue: 0xFF)
        flags.remove(.contactDetected)
        #expect(flags.rawValue == 0xFD)
    }

    @Test func subscriptReadsAndWritesBits() {
        var flags = Sensor(rawValue: 0)
        flags[.rrPresent] = true
        #expect(flags[.rrPresent])
        #expect(flags.rawValue == 0x10)
        flags[.rrPresent] = false
        #expect(!flags[.rrPresent])
        #expect(flags.rawValue == 0)
    }

    @Test func initFromBitsAndArrayLiteral() {
        let fromSequence = Sensor([.valueIsUInt16, .rrPresent])
        let fromLiteral: Sensor = [.valueIsUInt16, .rrPresent]
        #expect(fromSequence.rawValue == 0x11)
        #expect(fromLiteral == fromSequence)
        #expect(Sensor([]).rawValue == 0)
    }

    @Test func bitsListsSetNamedBitsInDeclarationOrder() {
        #expect(Sensor(rawValue: 0xFF).bits == [.valueIsUInt16, .contactDetected, .energyPresent, .rrPresent])
        #expect(Sensor(rawValue: 0x18).bits == [.energyPresent, .rrPresent])
    }

    @Test func unknownBitsAreTheSetUnnamedOnes() {
        #expect(Sensor(rawValue: 0b1110_0101).unknownBits == 0b1110_0100)
        #expect(Sensor(rawValue: 0b0001_1011).unknownBits == 0)
    }

    @Test func unknownBitsSurviveReadAndWrite() throws {
        let input: [UInt8] = [0b1010_0101]
        let written = try ByteReader.withReader(input) { r throws(ByteDecodingError) in
            var flags = try r.readFlags(SensorFlag.self, as: UInt8.self)
            flags.insert(.rrPresent)
            flags.remove(.valueIsUInt16)
            var writer = ByteWriter()
            writer.write(flags)
            return writer.bytes
        }
        #expect(written == [0b1011_0100])
    }

    @Test func readFlagsUsesTheRawWidthLittleEndian() throws {
        let flags = try ByteReader.withReader([0x01, 0x80] as [UInt8]) { r throws(ByteDecodingError) in
            try r.readFlags(StatusBit.self, as: UInt16.self)
        }
        #expect(flags.rawValue == 0x8001)
        #expect(flags.contains(.first))
    }

    @Test func readFlagsNamesItsFieldWhenShort() {
        let error = decodingError { () throws(ByteDecodingError) in
            try ByteReader.withReader([UInt8]()) { r throws(ByteDecodingError) in try r.readFlags(SensorFlag.self, as: UInt8.self) }
        }
        #expect(error == ByteDecodingError(field: "flags", offset: 0, reason: .truncated(needed: 1, available: 0)))
    }

    @Test func descriptionNamesBitsAndUnknownRest() {
        #expect(Sensor(rawValue: 0x09).description == "[valueIsUInt16, energyPresent]")
        #expect(Sensor(rawValue: 0x84).description == "[unknown 0x84]")
        #expect(Sensor(rawValue: 0).description == "[]")
    }

    // MARK: Positions outside the field

    @Test func bitBeyondTheWidthIsNeverSet() {
        let flags = Flags<OddFlag, UInt8>(rawValue: 0xFF)
        #expect(!flags.contains(.beyondByte))
        #expect(!flags.contains(.beyondEverything))
        #expect(!flags.contains(.negative))
    }

    @Test func insertingABitBeyondTheWidthChangesNothing() {
        var flags = Flags<OddFlag, UInt8>(rawValue: 0x40)
        flags.insert(.beyondByte)
        flags.insert(.beyondEverything)
        flags.insert(.negative)
        #expect(flags.rawValue == 0x40)
    }

    @Test func removingABitBeyondTheWidthChangesNothing() {
        var flags = Flags<OddFlag, UInt8>(rawValue: 0xFF)
        flags.remove(.beyondByte)
        flags.remove(.beyondEverything)
        flags.remove(.negative)
        #expect(flags.rawValue == 0xFF)
    }

    @Test func bitBeyondEightFitsASixteenBitField() {
        var flags = Flags<OddFlag, UInt16>(rawValue: 0)
        flags.insert(.beyondByte)
        #expect(flags.rawValue == 0x0200)
        #expect(flags.bits == [.beyondByte])
    }

    @Test func unknownBitsIgnoreNamesOutsideTheField() {
        #expect(Flags<OddFlag, UInt8>(rawValue: 0xFF).unknownBits == 0xFD)
    }

    // MARK: Multi-bit fields

    @Test func fieldReadsAMultiBitSubField() {
        // Bits 1–2 hold a two-bit status (here 0b10), as in Heart Rate's sensor contact field.
        let flags = Sensor(rawValue: 0b0000_0100)
        #expect(flags.field(bits: 1...2) == 0b10)
        #expect(Sensor(rawValue: 0b1100_0000).field(bits: 6...7) == 0b11)
    }

    @Test func fieldOfTheWholeWidthIsTheRawValue() {
        #expect(Sensor(rawValue: 0xA5).field(bits: 0...7) == 0xA5)
        #expect(Flags<StatusBit, UInt32>(rawValue: 0xDEAD_BEEF).field(bits: 0...31) == 0xDEAD_BEEF)
    }

    @Test func setFieldWritesOnlyThoseBits() {
        var flags = Sensor(rawValue: 0b1111_1111)
        flags.setField(bits: 2...4, to: 0b010)
        #expect(flags.rawValue == 0b1110_1011)
    }

    @Test func setFieldDropsValueBitsThatDoNotFit() {
        var flags = Sensor(rawValue: 0)
        flags.setField(bits: 0...1, to: 0xFF)
        #expect(flags.rawValue == 0b11)
    }

    @Test func fieldPartlyBeyondTheWidthReadsOnlyExistingBits() {
        #expect(Sensor(rawValue: 0xC0).field(bits: 6...9) == 0b11)
    }

    @Test(arguments: [8...8, 8...15, 100...200, 0...Int.max, 7...Int.max, (Int.max - 1)...Int.max])
    func fieldBeyondTheWidthNeverTraps(bits: ClosedRange<Int>) {
        var flags = Sensor(rawValue: 0xFF)
        let read = flags.field(bits: bits)
        flags.setField(bits: bits, to: 0xFF)
        #expect(read == (bits.lowerBound >= 8 ? 0 : 0xFF >> bits.lowerBound))
        #expect(flags.rawValue == 0xFF)
    }

    @Test func negativePositionsReadZeroAndWriteNothing() {
        var flags = Sensor(rawValue: 0x0F)
        #expect(flags.field(bits: -3...1) == 0)
        flags.setField(bits: -3...1, to: 0)
        #expect(flags.rawValue == 0x0F)
    }

    // MARK: 24-bit flags

    @Test func reads24BitFlags() throws {
        let flags = try ByteReader.withReader([0x01, 0x10, 0x80, 0xAA] as [UInt8]) { r throws(ByteDecodingError) in
            try r.readFlags24(StatusBit.self)
        }
        #expect(flags.rawValue == 0x80_1001)
        #expect(flags.bits == [.first, .middle, .last])
    }

    @Test func twentyFourBitFlagsKeepUnknownBitsThroughAWrite() throws {
        let input: [UInt8] = [0x02, 0x00, 0x40]
        let output = try ByteReader.withReader(input) { r throws(ByteDecodingError) in
            var writer = ByteWriter()
            writer.write24(try r.readFlags24(StatusBit.self))
            return writer.bytes
        }
        #expect(output == input)
    }

    @Test func truncated24BitFlagsNameTheField() {
        let error = decodingError { () throws(ByteDecodingError) in
            try ByteReader.withReader([0x01, 0x02] as [UInt8]) { r throws(ByteDecodingError) in
                try r.readFlags24(StatusBit.self, field: "sensorStatus")
            }
        }
        #expect(error == ByteDecodingError(field: "sensorStatus", offset: 0, reason: .truncated(needed: 3, available: 2)))
    }
}
