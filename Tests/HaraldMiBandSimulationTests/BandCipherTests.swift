@testable import HaraldMiBandSimulation
import Testing

@Suite("The simulated band's AES-128 (FIPS-197)")
struct BandCipherTests {
    @Test func theFIPS197ExampleEncrypts() throws {
        let cipher = try #require(AES128(key: Array(0x00...0x0F)))
        #expect(cipher.encrypt(block: bytes("00112233445566778899aabbccddeeff")) == bytes("69c4e0d86a7b0430d8cdb78070b4c55a"))
    }

    @Test func theSBoxStartsAndEndsAsFIPS197Tabulates() {
        #expect(Array(AES128.substitution.prefix(4)) == [0x63, 0x7C, 0x77, 0x7B])
        #expect(AES128.substitution[0x53] == 0xED)
        #expect(Array(AES128.substitution.suffix(2)) == [0xBB, 0x16])
    }

    @Test func theDefaultKeyEncryptsTheDerivedChallengeOfProtocolsB2() throws {
        // Key "0123456789@ABCDE", challenge 00 01 … 0f.
        let cipher = try #require(AES128(key: FitnessBandState.defaultKey))
        #expect(FitnessBandState.defaultKey == Array("0123456789@ABCDE".utf8))
        #expect(cipher.encrypt(block: Array(0x00...0x0F)) == bytes("f5003494346bffac69990bf7f317e5db"))
    }

    @Test func onlySixteenByteKeysAndBlocksAreTaken() throws {
        #expect(AES128(key: Array(repeating: 0, count: 15)) == nil)
        let cipher = try #require(AES128(key: Array(repeating: 0, count: 16)))
        #expect(cipher.encrypt(block: [1, 2, 3]) == nil)
    }
}
