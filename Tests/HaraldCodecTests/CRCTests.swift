import HaraldCodec
import Testing

@Suite("CRC check values")
struct CRCTests {
    let check = Array("123456789".utf8)

    @Test func ccittFalseCheckValueIs29B1() {
        #expect(CRC16.ccittFalse.checksum(check) == 0x29B1)
    }

    @Test func mcrf4xxCheckValueIs6F91() {
        #expect(CRC16.mcrf4xx.checksum(check) == 0x6F91)
    }

    @Test func crc32IEEECheckValueIsCBF43926() {
        #expect(CRC32.ieee.checksum(check) == 0xCBF4_3926)
    }

    @Test func emptyInputGivesInitialValueAfterFinalXOR() {
        #expect(CRC16.ccittFalse.checksum([]) == 0xFFFF)
        #expect(CRC32.ieee.checksum([]) == 0)
    }
}
