import HaraldCodec
import HaraldCore
import HaraldSMP
import Testing

/// AES-128 and AES-CMAC against RFC 4493 §4 (Core spec Vol 3 Part H Appendix D.1): notes/smp.md §8.1.
@Suite("AES-128 and AES-CMAC")
struct AESCMACTests {
    static let key = "2b7e1516 28aed2a6 abf71588 09cf4f3c"
    static let message = """
        6bc1bee2 2e409f96 e93d7e11 7393172a ae2d8a57 1e03ac9c 9eb76fac 45af8e51 \
        30c81c46 a35ce411 e5fbc119 1a0a52ef f69f2445 df4f9b17 ad2b417b e66c3710
        """

    @Test func eOfTheZeroBlockIsRFC4493sSubkeyL() throws {
        let l = SMPCrypto.e(try specKey(Self.key), .zero)
        #expect(l == (try spec128("7df76b0c 1ab899b3 3e42f047 b91b546f")))
    }

    @Test(arguments: [
        (0, "bb1d6929 e9593728 7fa37d12 9b756746"),
        (16, "070a16b4 6b4d4144 f79bdd9d d04a287c"),
        (40, "dfa66747 de9ae630 30ca3261 1497c827"),
        (64, "51f0bebf 7e3b9d92 fc497417 79363cfe"),
    ])
    func cmacOfTheFirstOctetsOfTheMessageMatchesRFC4493(length: Int, expected: String) throws {
        let message = Array(try Hex.decode(Self.message).prefix(length))
        #expect(SMPCrypto.aesCMAC(try specKey(Self.key), message) == (try spec128(expected)))
    }
}
