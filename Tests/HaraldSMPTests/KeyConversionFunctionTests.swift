import HaraldCore
import HaraldSMP
import Testing

/// h6, h7 and cross-transport key derivation against Core spec Vol 3 Part H Appendix D:
/// notes/smp.md §8.6, 8.7 and 8.9.
@Suite("Key conversion functions")
struct KeyConversionFunctionTests {
    static let w = "ec0234a3 57c8ad05 341010a6 0a397d9b"

    @Test func h6WithKeyIDLebrMatchesTheSpecSample() throws {
        #expect(SMPCrypto.h6(w: try specKey(Self.w), keyID: .lebr) == (try specKey("2d9ae102 e76dc91c e8d3a9e2 80b16399")))
    }

    @Test func h7WithSaltTmp1MatchesTheSpecSample() throws {
        #expect(SMPCrypto.saltTmp1 == (try spec128("00000000 00000000 00000000 746D7031")))
        #expect(SMPCrypto.h7(salt: SMPCrypto.saltTmp1, w: try specKey(Self.w)) == (try specKey("fb173597 c6a3c0ec d2998c2a 75a57011")))
    }

    @Test func keyIDsAreTheirASCIICharactersInOrder() {
        #expect(KeyID.lebr.bigEndianBytes == [0x6c, 0x65, 0x62, 0x72])
        #expect(KeyID.brle.description == "brle")
    }

    static let ltk = "368df9bc e3264b58 bd066c33 334fbf64"
    static let linkKey = "05040302 01000908 07060504 03020100"

    @Test func linkKeyFromLTKWithCT2UsesH7AndMatchesTheSample() throws {
        #expect(SMPCrypto.linkKey(fromLTK: try specKey(Self.ltk), ct2: true) == (try specKey("287ad379 dca40253 0a39f1f4 3047b835")))
    }

    @Test func linkKeyFromLTKWithoutCT2UsesH6TMP1AndMatchesTheSample() throws {
        #expect(SMPCrypto.linkKey(fromLTK: try specKey(Self.ltk), ct2: false) == (try specKey("bc1ca4ef 633fc1bd 0d8230af ee388fb0")))
    }

    @Test func ltkFromLinkKeyWithCT2UsesH7AndMatchesTheSample() throws {
        #expect(SMPCrypto.ltk(fromLinkKey: try specKey(Self.linkKey), ct2: true) == (try specKey("e85e09eb 5eccb3e2 69418a13 3211bc79")))
    }

    @Test func ltkFromLinkKeyWithoutCT2UsesH6TMP2AndMatchesTheSample() throws {
        #expect(SMPCrypto.ltk(fromLinkKey: try specKey(Self.linkKey), ct2: false) == (try specKey("a813fb72 f1a3dfa1 8a2c9a43 f10d0a30")))
    }
}
