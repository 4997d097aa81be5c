import HaraldCodec
import HaraldCore
import HaraldSMP
import Testing

/// Keys the toolbox makes or takes never show their bits in descriptions or dumps.
@Suite("Key descriptions")
struct KeyDescriptionTests {
    /// Every way a value may end up in a log.
    static func renderings<Value>(of value: Value) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return ["\(value)", String(describing: value), String(reflecting: value), dumped]
    }

    /// Hex of `octets` in both orders, upper and lower case, and of their first eight octets.
    static func fragments(of octets: [UInt8]) -> [String] {
        [octets, octets.reversed(), Array(octets.prefix(8)), Array(octets.reversed().prefix(8))]
            .flatMap { [Hex.encode($0), Hex.encode($0, uppercase: true)] }
    }

    static func leaks(_ renderings: [String], _ octets: [UInt8]) -> Bool {
        renderings.contains { text in fragments(of: octets).contains { text.contains($0) } }
    }

    @Test func aDHKeyNeverShowsItsBits() throws {
        let octets = try Hex.decode(P256Sample.dhKey)
        let key = try #require(DHKey(bigEndianBytes: octets))
        #expect(!Self.leaks(Self.renderings(of: key), octets))
    }

    @Test func aKeyPairNeverShowsItsPrivateKey() throws {
        let octets = try Hex.decode(P256Sample.privateA)
        let pair = try P256KeyPair(privateKeyBigEndianBytes: octets)
        #expect(!Self.leaks(Self.renderings(of: pair), octets))
    }

    @Test func theKeysOfF5NeverShowTheirBits() throws {
        let keys = SMPCrypto.f5(
            w: try specDHKey(P256Sample.dhKey), n1: .zero, n2: .zero, a1: .zero, a2: .zero)
        for key in [keys.macKey, keys.ltk] {
            let octets = key.withUnsafeKeyBytes { $0 }
            #expect(!Self.leaks(Self.renderings(of: key), octets))
            let ltk = LongTermKey(key: key, isAuthenticated: true, isSecureConnections: true)
            #expect(!Self.leaks(Self.renderings(of: ltk), octets))
        }
    }

    @Test func anIRKNeverShowsItsBits() throws {
        let octets = try Hex.decode("ec0234a3 57c8ad05 341010a6 0a397d9b")
        let irk = IdentityResolvingKey(key: try specKey("ec0234a3 57c8ad05 341010a6 0a397d9b"))
        #expect(!Self.leaks(Self.renderings(of: irk), octets))
    }

    @Test func aCSRKNeverShowsItsBits() throws {
        let octets = try Hex.decode("2d9ae102 e76dc91c e8d3a9e2 80b16399")
        let csrk = ConnectionSignatureResolvingKey(key: try specKey("2d9ae102 e76dc91c e8d3a9e2 80b16399"))
        #expect(!Self.leaks(Self.renderings(of: csrk), octets))
    }

    @Test func aPasskeyNeverShowsItsDigits() throws {
        let key = try #require(SecretKey128(passkey: 938_554))
        #expect(!Self.renderings(of: key).contains { $0.contains("938554") || $0.contains("e523a") })
    }
}
