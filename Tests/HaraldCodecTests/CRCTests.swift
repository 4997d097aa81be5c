import HaraldCodec
import HaraldTestSupport
import Testing

@Suite("CRC")
struct CRCTests {
    let check = Array("123456789".utf8)

    // MARK: Standard check values

    @Test func ccittFalseCheckValueIs29B1() {
        #expect(CRC16.ccittFalse.checksum(check) == 0x29B1)
    }

    @Test func mcrf4xxCheckValueIs6F91() {
        #expect(CRC16.mcrf4xx.checksum(check) == 0x6F91)
    }

    @Test func crc32IEEECheckValueIsCBF43926() {
        #expect(CRC32.ieee.checksum(check) == 0xCBF4_3926)
    }

    // MARK: Values confirmed with Python's binascii (crc32, and crc_hqx with initial 0xFFFF)

    @Test(arguments: [
        ([UInt8](), UInt32(0x0000_0000), UInt16(0xFFFF)),
        ([0x61], 0xE8B7_BE43, 0x9D77),  // "a"
        ([0x00], 0xD202_EF8D, 0xE1F0),
        ([0xFF], 0xFF00_0000, 0xFF00),
    ])
    func knownShortInputs(bytes: [UInt8], crc32: UInt32, ccittFalse: UInt16) {
        #expect(CRC32.ieee.checksum(bytes) == crc32)
        #expect(CRC16.ccittFalse.checksum(bytes) == ccittFalse)
    }

    @Test func allByteValuesMatchPython() {
        let all = (0...255).map { UInt8($0) }
        #expect(CRC32.ieee.checksum(all) == 0x2905_8C73)
        #expect(CRC16.ccittFalse.checksum(all) == 0x3FBD)
    }

    // MARK: Against a bit-by-bit reference

    @Test func referenceAgreesWithTheStandardCheckValues() {
        // Guards the reference itself before it is used as an oracle below.
        #expect(BitwiseCRC.ccittFalse.checksum(check) == 0x29B1)
        #expect(BitwiseCRC.mcrf4xx.checksum(check) == 0x6F91)
        #expect(BitwiseCRC.crc32.checksum(check) == 0xCBF4_3926)
    }

    @Test func tableDrivenCRCsMatchTheReferenceOnVariedInputs() {
        var generator = SplitMix64(seed: 0x4841_5241_4C44)
        for length in [0, 1, 2, 3, 7, 8, 31, 64, 255, 1000] {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            #expect(UInt64(CRC16.ccittFalse.checksum(bytes)) == BitwiseCRC.ccittFalse.checksum(bytes), "length \(length)")
            #expect(UInt64(CRC16.mcrf4xx.checksum(bytes)) == BitwiseCRC.mcrf4xx.checksum(bytes), "length \(length)")
            #expect(UInt64(CRC32.ieee.checksum(bytes)) == BitwiseCRC.crc32.checksum(bytes), "length \(length)")
        }
    }

    @Test func customParametersMatchTheReference() {
        // CRC-16/KERMIT: poly 0x1021 reflected, init 0; check 0x2189.
        let kermit = CRC16(polynomial: 0x1021, initial: 0, reflected: true, finalXOR: 0)
        #expect(kermit.checksum(check) == 0x2189)
        // CRC-16/GENIBUS: poly 0x1021, init 0xFFFF, final XOR 0xFFFF; check 0xD64E.
        let genibus = CRC16(polynomial: 0x1021, initial: 0xFFFF, reflected: false, finalXOR: 0xFFFF)
        #expect(genibus.checksum(check) == 0xD64E)
        #expect(
            UInt64(genibus.checksum([1, 2, 3]))
                == BitwiseCRC(width: 16, polynomial: 0x1021, initial: 0xFFFF, reflected: false, finalXOR: 0xFFFF).checksum([1, 2, 3]))
    }

    @Test func reflectedCRCWithAnAsymmetricInitialValue() {
        // CRC-16/RIELLO: poly 0x1021, init 0xB2AA (given unreflected), reflected; check 0x63D0.
        let riello = CRC16(polynomial: 0x1021, initial: 0xB2AA, reflected: true, finalXOR: 0)
        #expect(BitwiseCRC(width: 16, polynomial: 0x1021, initial: 0xB2AA, reflected: true, finalXOR: 0).checksum(check) == 0x63D0)
        #expect(riello.checksum(check) == 0x63D0)
    }

    @Test func checksumOfNonContiguousInputMatches() {
        #expect(CRC32.ieee.checksum(NonContiguousBytes(check)) == 0xCBF4_3926)
        #expect(CRC16.mcrf4xx.checksum(check[0...]) == 0x6F91)
    }

    @Test func changingOneBitChangesTheChecksum() {
        var flipped = check
        flipped[4] ^= 0x01
        #expect(CRC16.ccittFalse.checksum(flipped) != CRC16.ccittFalse.checksum(check))
        #expect(CRC16.mcrf4xx.checksum(flipped) != CRC16.mcrf4xx.checksum(check))
        #expect(CRC32.ieee.checksum(flipped) != CRC32.ieee.checksum(check))
    }
}

/// A straightforward bit-at-a-time CRC in the Rocksoft model, written independently of the
/// table-driven code under test.
struct BitwiseCRC {
    static let ccittFalse = BitwiseCRC(width: 16, polynomial: 0x1021, initial: 0xFFFF, reflected: false, finalXOR: 0)
    static let mcrf4xx = BitwiseCRC(width: 16, polynomial: 0x1021, initial: 0xFFFF, reflected: true, finalXOR: 0)
    static let crc32 = BitwiseCRC(width: 32, polynomial: 0x04C1_1DB7, initial: 0xFFFF_FFFF, reflected: true, finalXOR: 0xFFFF_FFFF)

    let width: Int
    let polynomial: UInt64
    let initial: UInt64
    /// Reflects input bytes and the result together (refin = refout).
    let reflected: Bool
    let finalXOR: UInt64

    func checksum(_ bytes: [UInt8]) -> UInt64 {
        let top: UInt64 = 1 << (width - 1)
        let mask: UInt64 = (1 << width) - 1
        var register = initial
        for byte in bytes {
            let input = reflected ? reverse(UInt64(byte), bits: 8) : UInt64(byte)
            for bit in stride(from: 7, through: 0, by: -1) {
                let incoming = (input >> UInt64(bit)) & 1
                let feedback = ((register & top) != 0 ? 1 : 0) ^ incoming
                register = (register << 1) & mask
                if feedback == 1 { register ^= polynomial }
            }
        }
        let out = reflected ? reverse(register, bits: width) : register
        return (out ^ finalXOR) & mask
    }

    private func reverse(_ value: UInt64, bits: Int) -> UInt64 {
        var result: UInt64 = 0
        for index in 0..<bits where value & (1 << UInt64(index)) != 0 { result |= 1 << UInt64(bits - 1 - index) }
        return result
    }
}
