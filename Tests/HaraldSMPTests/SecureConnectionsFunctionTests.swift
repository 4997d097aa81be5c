import HaraldCore
import HaraldSMP
import Testing

/// f4, f5, f6 and g2 against Core spec Vol 3 Part H Appendix D: notes/smp.md §8.2-8.5.
@Suite("LE Secure Connections functions")
struct SecureConnectionsFunctionTests {
    static let u = "20b003d2 f297be2c 5e2c83a7 e9f9a5b9 eff49111 acf4fddb cc030148 0e359de6"
    static let v = "55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd"
    static let x = "d5cb8454 d177733e ffffb2ec 712baeab"
    static let n1 = "d5cb8454 d177733e ffffb2ec 712baeab"
    static let n2 = "a6e8e7cc 25a75f6e 216583f7 ff3dc4cf"
    static let w = "ec0234a3 57c8ad05 341010a6 0a397d9b 99796b13 b4f866f1 868d34f3 73bfa698"
    static let a1 = "561237 37bfce"
    static let a2 = "a71370 2dcfc1"
    static let macKey = "2965f176 a1084a02 fd3f6a20 ce636e20"

    @Test func f4MatchesTheSpecSample() throws {
        let confirm = SMPCrypto.f4(u: try spec256(Self.u), v: try spec256(Self.v), x: try spec128(Self.x), z: 0x00)
        #expect(confirm == (try spec128("f2c916f1 07a9bd1c f1eda1be a974872d")))
    }

    @Test func f4sWireOrderIsTheSpecValueReversed() throws {
        let confirm = SMPCrypto.f4(u: try spec256(Self.u), v: try spec256(Self.v), x: try spec128(Self.x), z: 0x00)
        #expect(
            confirm.littleEndianBytes == [
                0x2d, 0x87, 0x74, 0xa9, 0xbe, 0xa1, 0xed, 0xf1, 0x1c, 0xbd, 0xa9, 0x07, 0xf1, 0x16, 0xc9, 0xf2,
            ])
    }

    @Test func f5GivesTheSpecSampleMacKeyAndLTK() throws {
        let keys = SMPCrypto.f5(
            w: try specDHKey(Self.w), n1: try spec128(Self.n1), n2: try spec128(Self.n2),
            a1: try specAddress(Self.a1, .public), a2: try specAddress(Self.a2, .public))
        #expect(keys.macKey == (try specKey(Self.macKey)))
        #expect(keys.ltk == (try specKey("69867911 69d7cd23 980522b5 94750a38")))
    }

    @Test func f6MatchesTheSpecSample() throws {
        let check = SMPCrypto.f6(
            w: try specKey(Self.macKey), n1: try spec128(Self.n1), n2: try spec128(Self.n2),
            r: try specKey("12a3343b b453bb54 08da42d2 0c2d0fc8"),
            ioCap: IOcap(authReq: 0x01, oobDataFlag: 0x01, ioCapability: 0x02),
            a1: try specAddress(Self.a1, .public), a2: try specAddress(Self.a2, .public))
        #expect(check == (try spec128("e3c47398 9cd0e8c5 d26c0b09 da958f61")))
    }

    @Test func g2MatchesTheSpecSample() throws {
        let value = SMPCrypto.g2(u: try spec256(Self.u), v: try spec256(Self.v), x: try spec128(Self.x), y: try spec128(Self.n2))
        #expect(value == 0x2f9e_d5ba)
    }

    @Test func numericComparisonShowsG2ModAMillion() {
        #expect(NumericComparisonValue(g2: 0x2f9e_d5ba).value == 938_554)
        #expect(NumericComparisonValue(g2: 0x2f9e_d5ba).description == "938554")
    }

    @Test func numericComparisonPadsToSixDigits() {
        #expect(NumericComparisonValue(g2: 2_000_042).description == "000042")
    }

    @Test func passkeyIsA128BitNumber() throws {
        #expect(SecretKey128(passkey: 123_456) == (try specKey("00000000 00000000 00000000 0001e240")))
    }

    @Test func passkeyAboveSixDigitsIsRefused() {
        #expect(SecretKey128(passkey: 1_000_000) == nil)
    }
}
