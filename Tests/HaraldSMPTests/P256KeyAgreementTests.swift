import HaraldCodec
import HaraldCore
import HaraldSMP
import Testing

/// P-256 key agreement with the Core spec's sample key pairs: notes/smp.md §8.12.
@Suite("P-256 key agreement")
struct P256KeyAgreementTests {
    static func pairA() throws -> P256KeyPair { try P256KeyPair(privateKeyBigEndianBytes: Hex.decode(P256Sample.privateA)) }
    static func pairB() throws -> P256KeyPair { try P256KeyPair(privateKeyBigEndianBytes: Hex.decode(P256Sample.privateB)) }
    static func publicA() throws -> P256PublicKey { try P256PublicKey(x: spec256(P256Sample.publicAx), y: spec256(P256Sample.publicAy)) }
    static func publicB() throws -> P256PublicKey { try P256PublicKey(x: spec256(P256Sample.publicBx), y: spec256(P256Sample.publicBy)) }

    @Test func samplePrivateKeysGiveTheSamplePublicKeys() throws {
        #expect(try Self.pairA().publicKey == Self.publicA())
        #expect(try Self.pairB().publicKey == Self.publicB())
    }

    @Test func aTimesPublicBIsTheSampleDHKey() throws {
        #expect(try Self.pairA().dhKey(with: Self.publicB()) == specDHKey(P256Sample.dhKey))
    }

    @Test func bTimesPublicAIsTheSampleDHKey() throws {
        #expect(try Self.pairB().dhKey(with: Self.publicA()) == specDHKey(P256Sample.dhKey))
    }

    @Test func twoFreshKeyPairsAgreeOnTheDHKey() throws {
        let a = P256KeyPair()
        let b = P256KeyPair()
        #expect(try a.dhKey(with: b.publicKey) == b.dhKey(with: a.publicKey))
    }

    @Test func theDebugKeyPairIsSampleA() throws {
        #expect(try P256KeyPair.debug.publicKey == Self.publicA())
        #expect(try Self.publicA().isDebugKey)
        #expect(try !Self.publicB().isDebugKey)
    }

    @Test func aPublicKeyIsSentXThenYEachLeastSignificantOctetFirst() throws {
        let wire = try Self.publicA().littleEndianBytes
        #expect(wire.count == 64)
        #expect(Array(wire[0..<32]) == (try Hex.decode("e69d350e 480103cc dbfdf4ac 1191f4ef b9a5f9e9 a7832c5e 2cbe97f2 d203b020")))
        #expect(Array(wire[32..<64]) == (try Hex.decode(P256Sample.publicAy)).reversed())
    }

    @Test func aPublicKeyReadsBackFromItsWireOctets() throws {
        let key = try Self.publicB()
        #expect(try P256PublicKey(littleEndianBytes: key.littleEndianBytes) == key)
    }

    @Test func aPointOffTheCurveIsRefused() throws {
        var y = try Hex.decode(P256Sample.publicAy)
        y[31] ^= 0x01
        #expect(throws: P256KeyError.notOnCurve) {
            try P256PublicKey(x: spec256(P256Sample.publicAx), y: #require(Value256(bigEndianBytes: y)))
        }
    }

    /// The fixed-coordinate invalid-curve attack (CVE-2018-5383) sends Y = 0.
    @Test func aZeroYCoordinateIsRefused() throws {
        #expect(throws: P256KeyError.notOnCurve) {
            try P256PublicKey(x: spec256(P256Sample.publicAx), y: #require(Value256(bigEndianBytes: [UInt8](repeating: 0, count: 32))))
        }
    }

    @Test func anXCoordinateNotBelowTheFieldPrimeIsRefused() throws {
        let p = try spec256("ffffffff 00000001 00000000 00000000 00000000 ffffffff ffffffff ffffffff")
        #expect(throws: P256KeyError.notOnCurve) {
            try P256PublicKey(x: p, y: spec256(P256Sample.publicAy))
        }
    }

    @Test func theOriginIsRefused() throws {
        #expect(throws: P256KeyError.notOnCurve) {
            try P256PublicKey(littleEndianBytes: [UInt8](repeating: 0, count: 64))
        }
    }

    @Test func aPublicKeyOfTheWrongLengthIsRefused() {
        #expect(throws: P256KeyError.wrongLength(63)) {
            try P256PublicKey(littleEndianBytes: [UInt8](repeating: 1, count: 63))
        }
    }

    @Test func aPeerEchoingOurPublicKeyIsRefused() throws {
        let pair = P256KeyPair()
        #expect(throws: P256KeyError.sameAsOwnKey) {
            try pair.dhKey(with: pair.publicKey)
        }
    }

    @Test func aZeroPrivateKeyIsRefused() {
        #expect(throws: P256KeyError.invalidPrivateKey) {
            try P256KeyPair(privateKeyBigEndianBytes: [UInt8](repeating: 0, count: 32))
        }
    }
}
