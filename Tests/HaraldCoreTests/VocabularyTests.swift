import HaraldCodec
import HaraldCore
import Testing

@Suite("Signal strength")
struct RSSITests {
    @Test func hciReports127WhenItHasNoMeasurement() {
        #expect(RSSI(hciValue: 127) == nil)
        #expect(RSSI(hciValue: -58)?.dBm == -58)
    }

    @Test func integersOutsideTheRangeAreNotAStrength() {
        #expect(RSSI(dBm: 200) == nil)
        #expect(RSSI(dBm: 127) == nil)
        #expect(RSSI(dBm: -128)?.dBm == -128)
    }

    @Test func strongerIsGreater() {
        let near: RSSI = -40
        let far: RSSI = -90
        #expect(far < near)
        #expect(near.description == "-40 dBm")
    }
}

@Suite("Client Characteristic Configuration")
struct ClientCharacteristicConfigurationTests {
    @Test func wireValuesTurnNotificationsAndIndicationsOn() throws {
        #expect(try ClientCharacteristicConfiguration(decoding: [0x01, 0x00]) == .notifications)
        #expect(try ClientCharacteristicConfiguration(decoding: [0x02, 0x00]) == .indications)
        #expect(ClientCharacteristicConfiguration.disabled.bytes == [0x00, 0x00])
        #expect(ClientCharacteristicConfiguration([.notifications, .indications]).bytes == [0x03, 0x00])
    }

    @Test func reservedBitsAreKeptAndShown() throws {
        let odd = try ClientCharacteristicConfiguration(decoding: [0x05, 0x80])
        #expect(odd.notificationsEnabled && !odd.indicationsEnabled)
        #expect(odd.reservedBits == 0x8004)
        #expect(odd.description == "notifications+reserved 0x8004")
    }

    @Test func aValueOtherThanTwoBytesIsAnError() {
        #expect(throws: ByteDecodingError.self) { try ClientCharacteristicConfiguration(decoding: [0x01]) }
        #expect(throws: ByteDecodingError.self) { try ClientCharacteristicConfiguration(decoding: [0x01, 0x00, 0x00]) }
    }
}

@Suite("Characteristic properties")
struct CharacteristicPropertiesTests {
    @Test func bitsFollowTheDeclarationByte() {
        let properties = CharacteristicProperties(rawValue: 0x12)
        #expect(properties == [.read, .notify])
        #expect(properties.names == ["read", "notify"])
        #expect(properties.description == "[read, notify]")
        #expect(CharacteristicProperties(rawValue: 0xFF).names.count == 8)
    }
}

@Suite("Attribute handle ranges")
struct ATTHandleRangeTests {
    @Test func aRangeIncludesBothEnds() {
        let range = ATTHandleRange(start: 0x0010, end: 0x0020)
        #expect(range.contains(0x0010) && range.contains(0x0020) && !range.contains(0x0021))
        #expect(range.description == "0x0010-0x0020")
    }

    @Test func zeroStartOrReversedEndsAreNotARequestRange() {
        #expect(!ATTHandleRange(start: 0, end: 5).isValid)
        #expect(!ATTHandleRange(start: 6, end: 5).isValid)
        #expect(ATTHandleRange.all.isValid)
    }
}

@Suite("Security levels and keys")
struct SecurityVocabularyTests {
    let key = SecretKey128(littleEndianBytes: Array(0x10...0x1F))!

    @Test func levelsAreOrdered() {
        #expect(SecurityLevel.none < .encrypted)
        #expect(SecurityLevel.encrypted < .authenticated)
        #expect(SecurityLevel.authenticated < .authenticatedSecureConnections)
    }

    @Test func keysAreSixteenBytes() {
        #expect(SecretKey128(littleEndianBytes: [1, 2, 3]) == nil)
        #expect(key.withUnsafeKeyBytes { $0 } == Array(0x10...0x1F))
    }

    @Test(arguments: [0, 7, 15])
    func keysDifferingInAnyOneByteAreUnequalAndHashApart(byte: Int) {
        var bytes = Array(UInt8(0x10)...0x1F)
        bytes[byte] ^= 0x01
        let other = SecretKey128(littleEndianBytes: bytes)!
        #expect(key != other)
        #expect(Set([key, other, SecretKey128(littleEndianBytes: Array(0x10...0x1F))!]).count == 2)
    }

    @Test func noDescriptionPrintsKeyMaterial() {
        let ltk = LongTermKey(key: key, ediv: 0x1234, rand: 0xDEAD_BEEF, keySize: 16, isAuthenticated: true, isSecureConnections: false)
        let texts = [
            "\(key)", String(reflecting: key), "\(ltk)", String(reflecting: ltk), "\(IdentityResolvingKey(key: key))",
            "\(ConnectionSignatureResolvingKey(key: key))", "\([ltk])",
        ]
        for text in texts {
            #expect(!text.contains("10") && !text.contains("1f") && !text.contains("1F"), "\(text)")
            #expect(!text.contains("4660") && !text.contains("1234") && !text.lowercased().contains("deadbeef"), "\(text)")
        }
        var dumped = ""
        dump(ltk, to: &dumped)
        #expect(!dumped.contains("16, 17") && !dumped.contains("0x10"), "\(dumped)")
    }

    @Test func aLongTermKeyKnowsTheLevelItGives() {
        #expect(LongTermKey(key: key, isAuthenticated: false, isSecureConnections: true).securityLevel == .encrypted)
        #expect(LongTermKey(key: key, isAuthenticated: true, isSecureConnections: false).securityLevel == .authenticated)
        #expect(LongTermKey(key: key, isAuthenticated: true, isSecureConnections: true).securityLevel == .authenticatedSecureConnections)
        // A key under 16 octets never counts as authenticated, whatever pairing made it.
        #expect(LongTermKey(key: key, keySize: 7, isAuthenticated: true, isSecureConnections: true).securityLevel == .encrypted)
        #expect(LongTermKey(key: key, keySize: 15, isAuthenticated: true, isSecureConnections: false).securityLevel == .encrypted)
    }
}

@Suite("Locked values")
struct LockedTests {
    @Test func concurrentUpdatesAreNotLost() async {
        let counter = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<1000 { counter.withLock { $0 += 1 } } }
            }
        }
        #expect(counter.value == 8000)
    }

    @Test func typedErrorsPassThrough() {
        struct Refused: Error {}
        let locked = Locked([1, 2])
        #expect(throws: Refused.self) { try locked.withLock { (_) throws(Refused) in throw Refused() } }
        #expect(locked.value == [1, 2])
    }
}
