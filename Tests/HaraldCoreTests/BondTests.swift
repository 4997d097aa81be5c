import Foundation
import HaraldCodec
import HaraldCore
import Testing

/// Fake keys and bonds shared by the bond tests. Every key has bytes no other value in a bond
/// has, so finding them in a text means a key leaked.
enum BondFixtures {
    /// A key from 32 hex digits, most significant byte first (as the Core spec prints keys).
    static func key(_ hex: String) -> SecretKey128 {
        SecretKey128(littleEndianBytes: try! [UInt8](hex: hex).reversed())!
    }

    static let ltk = key("a1a2a3a4a5a6a7a8a9aaabacadaeafb0")
    static let localLTK = key("b1b2b3b4b5b6b7b8b9babbbcbdbebfc0")
    static let irk = key("c1c2c3c4c5c6c7c8c9cacbcccdcecfd0")
    static let csrk = key("d1d2d3d4d5d6d7d8d9dadbdcdddedfe0")
    static let localCSRK = key("e1e2e3e4e5e6e7e8e9eaebecedeeeff0")
    static let ourIRK = key("f1f2f3f4f5f6f7f8f9fafbfcfdfefff0")
    static let allKeys = [ltk, localLTK, irk, csrk, localCSRK, ourIRK]
    static let ediv: UInt16 = 0x5A17
    static let rand: UInt64 = 0x0123_4567_89AB_CDEF

    static let peer = BluetoothAddress("C0:11:22:33:44:55/random")!
    static let publicPeer = BluetoothAddress("00:1B:DC:07:32:5A/public")!
    static let createdAt = Date(timeIntervalSince1970: 1_748_779_200)  // 2025-06-01T12:00:00Z

    /// A legacy bond with every key distributed both ways.
    static func legacyBond(_ address: BluetoothAddress = peer) -> Bond {
        try! Bond(
            identityAddress: address,
            longTermKey: LongTermKey(key: ltk, ediv: ediv, rand: rand, keySize: 16, isAuthenticated: true, isSecureConnections: false),
            localLongTermKey: LongTermKey(key: localLTK, ediv: 0x0102, rand: 0x0A0B, keySize: 16, isAuthenticated: true, isSecureConnections: false),
            peerIdentityResolvingKey: IdentityResolvingKey(key: irk),
            peerSignatureKey: ConnectionSignatureResolvingKey(key: csrk),
            localSignatureKey: ConnectionSignatureResolvingKey(key: localCSRK),
            keySize: 16, isAuthenticated: true, isSecureConnections: false, createdAt: createdAt)
    }

    /// A Secure Connections Just Works bond with the peer's IRK.
    static func secureConnectionsBond(_ address: BluetoothAddress = peer, irk: SecretKey128 = irk) -> Bond {
        try! Bond(
            identityAddress: address,
            longTermKey: LongTermKey(key: ltk, isAuthenticated: false, isSecureConnections: true),
            peerIdentityResolvingKey: IdentityResolvingKey(key: irk),
            isAuthenticated: false, isSecureConnections: true, createdAt: createdAt)
    }

    static let ourIdentity = try! LocalIdentity(address: publicPeer, identityResolvingKey: IdentityResolvingKey(key: ourIRK))

    /// The ways a key can show up in text: hex either way round (any case, with or without
    /// separators) and the decimal byte lists `dump` prints; EDIV and Rand in hex and decimal.
    static func leaks(_ text: String) -> [String] {
        let flat = text.lowercased().filter { $0 != ":" && $0 != " " && $0 != "-" }
        var found: [String] = []
        for key in allKeys {
            let bytes = key.withUnsafeKeyBytes { $0 }
            for order in [bytes, bytes.reversed()] {
                if flat.contains(Hex.encode(order.prefix(4))) { found.append(Hex.encode(order)) }
                if text.contains(order.prefix(3).map(String.init).joined(separator: ", ")) { found.append("decimal bytes") }
            }
        }
        for secret in ["5a17", "\(ediv)", "0123456789abcdef", "\(rand)"] where flat.contains(secret) { found.append(secret) }
        return found
    }

    /// Everything Swift can print about a value.
    static func printed(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        let mirror = Mirror(reflecting: value).children.map { "\($0.label ?? ""): \($0.value)" }.joined(separator: "\n")
        return [String(describing: value), String(reflecting: value), "\([value])", dumped, mirror]
    }
}

@Suite("A bond")
struct BondTests {
    typealias F = BondFixtures

    @Test func isStoredUnderAnIdentityAddressOnly() {
        let privateAddress = BluetoothAddress("70:81:94:0D:FB:AA/random")!
        #expect(throws: InvalidBond.notAnIdentityAddress(privateAddress)) {
            try Bond(identityAddress: privateAddress, isAuthenticated: false, isSecureConnections: true)
        }
        #expect(throws: Never.self) { try Bond(identityAddress: F.publicPeer, isAuthenticated: false, isSecureConnections: true) }
        #expect(throws: Never.self) { try Bond(identityAddress: F.peer, isAuthenticated: false, isSecureConnections: true) }
    }

    @Test func remembersTheIdentityAsTheLastAddressUntilToldOtherwise() {
        let bond = F.secureConnectionsBond()
        #expect(bond.lastAddress == F.peer)
        let rpa = BluetoothAddress("70:81:94:0D:FB:AA/random")!
        #expect(bond.seen(at: rpa).lastAddress == rpa)
        #expect(bond.seen(at: rpa).identityAddress == F.peer)
    }

    @Test(arguments: [6, 17])
    func hasAKeySizeSMPCanNegotiate(size: Int) {
        #expect(throws: InvalidBond.keySizeOutOfRange(size)) {
            try Bond(identityAddress: F.peer, keySize: size, isAuthenticated: false, isSecureConnections: true)
        }
    }

    @Test func holdsKeysThatAgreeWithItsSizeAndFlags() {
        let unauthenticated = LongTermKey(key: F.ltk, isAuthenticated: false, isSecureConnections: true)
        #expect(throws: InvalidBond.keyDisagreesWithBond) {
            try Bond(identityAddress: F.peer, longTermKey: unauthenticated, isAuthenticated: true, isSecureConnections: true)
        }
        #expect(throws: InvalidBond.keyDisagreesWithBond) {
            try Bond(identityAddress: F.peer, longTermKey: unauthenticated, keySize: 7, isAuthenticated: false, isSecureConnections: true)
        }
    }

    @Test func fromSecureConnectionsHasOneKeyWithZeroEDIVAndRand() {
        let withEDIV = LongTermKey(key: F.ltk, ediv: 1, isAuthenticated: false, isSecureConnections: true)
        #expect(throws: InvalidBond.secureConnectionsKeyWithEDIVOrRand) {
            try Bond(identityAddress: F.peer, longTermKey: withEDIV, isAuthenticated: false, isSecureConnections: true)
        }
        let key = LongTermKey(key: F.ltk, isAuthenticated: false, isSecureConnections: true)
        #expect(throws: InvalidBond.localKeyWithSecureConnections) {
            try Bond(identityAddress: F.peer, longTermKey: key, localLongTermKey: key, isAuthenticated: false, isSecureConnections: true)
        }
    }

    @Test func givesTheSecurityLevelOfItsKeys() {
        #expect(F.secureConnectionsBond().securityLevel == .encrypted)
        #expect(F.legacyBond().securityLevel == .authenticated)
        let level4 = try! Bond(identityAddress: F.peer, isAuthenticated: true, isSecureConnections: true)
        #expect(level4.securityLevel == .authenticatedSecureConnections)
    }

    @Test func answersAnLTKRequestWithTheKeyItsEDIVAndRandName() {
        let legacy = F.legacyBond()
        #expect(legacy.longTermKey(requestedWithEDIV: 0x0102, rand: 0x0A0B)?.key == F.localLTK)
        #expect(legacy.longTermKey(requestedWithEDIV: F.ediv, rand: F.rand) == nil, "the peer's key is for when we are central")
        #expect(legacy.longTermKey(requestedWithEDIV: 0, rand: 0) == nil)
        let secure = F.secureConnectionsBond()
        #expect(secure.longTermKey(requestedWithEDIV: 0, rand: 0)?.key == F.ltk)
        #expect(secure.longTermKey(requestedWithEDIV: 1, rand: 0) == nil)
    }

    @Test func keepsItsCreationTimeToTheSecond() {
        let bond = try! Bond(
            identityAddress: F.peer, isAuthenticated: false, isSecureConnections: true,
            createdAt: Date(timeIntervalSince1970: 1000.75))
        #expect(bond.createdAt == Date(timeIntervalSince1970: 1000))
    }

    @Test func neverPrintsAKey() {
        let values: [Any] = [
            F.legacyBond(), F.secureConnectionsBond(), F.ourIdentity, F.legacyBond().longTermKey!,
            F.legacyBond().localLongTermKey!, F.legacyBond().peerIdentityResolvingKey!, F.legacyBond().peerSignatureKey!, [F.legacyBond()],
            Optional(F.legacyBond()) as Any,
        ]
        for value in values {
            for text in BondFixtures.printed(value) {
                #expect(BondFixtures.leaks(text).isEmpty, "\(text)")
            }
        }
    }

    @Test func describesItselfByAddressLevelAndKeyNames() {
        let text = "\(F.legacyBond().seen(at: BluetoothAddress("70:81:94:0D:FB:AA/random")!))"
        #expect(text == "Bond(C0:11:22:33:44:55/random, last seen as 70:81:94:0D:FB:AA/random, authenticated, 128-bit, LTK, local LTK, IRK, CSRK, local CSRK)")
    }
}

@Suite("Our local identity")
struct LocalIdentityTests {
    @Test func isAPublicOrStaticRandomAddress() {
        let irk = IdentityResolvingKey(key: BondFixtures.ourIRK)
        #expect(throws: InvalidBond.self) {
            try LocalIdentity(address: BluetoothAddress("40:00:00:00:00:01/random")!, identityResolvingKey: irk)
        }
    }

    @Test func isGeneratedOnAStaticRandomAddressWithoutAPublicOne() throws {
        let generated = try LocalIdentity.generate()
        #expect(generated.address.isStaticRandom)
        #expect(try LocalIdentity.generate().identityResolvingKey != generated.identityResolvingKey)
        #expect(try LocalIdentity.generate(publicAddress: BondFixtures.publicPeer).address == BondFixtures.publicPeer)
    }
}

@Suite("Bonds as JSON")
struct BondCodingTests {
    typealias F = BondFixtures

    @Test(arguments: [
        F.legacyBond(), F.secureConnectionsBond(), F.legacyBond().seen(at: BluetoothAddress("70:81:94:0D:FB:AA/random")!),
        F.secureConnectionsBond().markedPeerRejectedKey(),
    ])
    func aBondDecodesToTheSameBond(bond: Bond) throws {
        #expect(try JSONDecoder().decode(Bond.self, from: JSONEncoder().encode(bond)) == bond)
    }

    @Test func aKeyThePeerRejectedIsMarkedInTheFileAndAnUnmarkedBondSaysNothing() throws {
        let marked = String(decoding: try JSONEncoder().encode(F.secureConnectionsBond().markedPeerRejectedKey()), as: UTF8.self)
        #expect(marked.contains(#""peerRejectedKey":true"#))
        let unmarked = String(decoding: try JSONEncoder().encode(F.secureConnectionsBond()), as: UTF8.self)
        #expect(!unmarked.contains("peerRejectedKey"))
        #expect(try !JSONDecoder().decode(Bond.self, from: Data(unmarked.utf8)).peerRejectedKey)
    }

    @Test func keysAreHexMostSignificantByteFirstAndAbsentKeysAreLeftOut() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(F.secureConnectionsBond()), as: UTF8.self)
        #expect(
            text == #"{"authenticated":false,"createdAt":"2025-06-01T12:00:00Z","identityAddress":"C0:11:22:33:44:55\/random","#
                + #""keySize":16,"lastAddress":"C0:11:22:33:44:55\/random","#
                + #""longTermKey":{"ediv":"0000","key":"a1a2a3a4a5a6a7a8a9aaabacadaeafb0","rand":"0000000000000000"},"#
                + #""peerIdentityResolvingKey":"c1c2c3c4c5c6c7c8c9cacbcccdcecfd0","secureConnections":true}"#)
    }

    @Test func aLegacyKeyKeepsItsEDIVAndRandAsHex() throws {
        let data = try JSONEncoder().encode(F.legacyBond())
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let ltk = try #require(object["longTermKey"] as? [String: String])
        #expect(ltk == ["key": "a1a2a3a4a5a6a7a8a9aaabacadaeafb0", "ediv": "5a17", "rand": "0123456789abcdef"])
    }

    @Test(arguments: [
        #""key":"a1a2""#,  // too short
        #""key":"zza2a3a4a5a6a7a8a9aaabacadaeafb0""#,  // not hex
        #""key":"a1a2a3a4a5a6a7a8a9aaabacadaeafb0a1""#,  // too long
    ])
    func aMalformedKeyIsRejectedWithoutEchoingIt(fragment: String) throws {
        let json = String(decoding: try JSONEncoder().encode(F.legacyBond()), as: UTF8.self)
            .replacingOccurrences(of: #""key":"a1a2a3a4a5a6a7a8a9aaabacadaeafb0""#, with: fragment)
        #expect(json.contains(fragment))
        #expect {
            try JSONDecoder().decode(Bond.self, from: Data(json.utf8))
        } throws: { error in
            !"\(error)".contains("a1a2") && !"\(error)".contains("zza2")
        }
    }

    @Test(arguments: [#""ediv":"1""#, #""ediv":"05a17""#, #""ediv":"5g17""#])
    func anEDIVIsFourHexDigits(replacement: String) throws {
        let json = String(decoding: try JSONEncoder().encode(F.legacyBond()), as: UTF8.self)
            .replacingOccurrences(of: #""ediv":"5a17""#, with: replacement)
        #expect(json.contains(replacement))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Bond.self, from: Data(json.utf8)) }
    }

    @Test func aSecureConnectionsKeyWithEDIVIsRejectedWhenRead() throws {
        let json = String(decoding: try JSONEncoder().encode(F.secureConnectionsBond()), as: UTF8.self)
            .replacingOccurrences(of: #""ediv":"0000""#, with: #""ediv":"0001""#)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Bond.self, from: Data(json.utf8)) }
    }

    @Test func theLocalIdentityIsItsAddressAndHexIRK() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(F.ourIdentity), as: UTF8.self)
        #expect(text == #"{"address":"00:1B:DC:07:32:5A\/public","identityResolvingKey":"f1f2f3f4f5f6f7f8f9fafbfcfdfefff0"}"#)
        #expect(try JSONDecoder().decode(LocalIdentity.self, from: Data(text.utf8)) == F.ourIdentity)
    }
}
