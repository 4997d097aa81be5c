import HaraldAdvertisements
import HaraldCodec
import Testing

/// Octets from hex (the vectors below are written as their documents print them).
func hex(_ text: String) -> [UInt8] {
    (try? Hex.decode(text.filter { !$0.isWhitespace })) ?? []
}

/// AES-CCM against the published vectors: RFC 3610 §8 (13-octet nonce, 8-octet header, 8-octet
/// tag) and NIST SP 800-38C Appendix C (shorter nonces, 4- and 6-octet tags).
@Suite("AES-CCM")
struct AESCCMTests {
    static let rfcKey = hex("C0C1C2C3C4C5C6C7C8C9CACBCCCDCECF")
    static let nistKey = hex("404142434445464748494A4B4C4D4E4F")

    @Test func rfc3610PacketVector1SealsToThePublishedCiphertextAndTag() throws {
        let sealed = try AESCCM.seal(
            hex("08090A0B0C0D0E0F101112131415161718191A1B1C1D1E"), key: Self.rfcKey,
            nonce: hex("00000003020100A0A1A2A3A4A5"), associatedData: hex("0001020304050607"), tagLength: 8)
        #expect(sealed.ciphertext == hex("588C979A61C663D2F066D0C2C0F989806D5F6B61DAC384"))
        #expect(sealed.tag == hex("17E8D12CFDF926E0"))
    }

    @Test func rfc3610PacketVector2SealsAMessageOfExactlyTwoBlocks() throws {
        let sealed = try AESCCM.seal(
            hex("08090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F"), key: Self.rfcKey,
            nonce: hex("00000004030201A0A1A2A3A4A5"), associatedData: hex("0001020304050607"), tagLength: 8)
        #expect(sealed.ciphertext + sealed.tag == hex("72C91A36E135F8CF291CA894085C87E3CC15C439C9E43A3BA091D56E10400916"))
    }

    @Test func rfc3610PacketVector1OpensToThePlaintext() throws {
        let plaintext = try AESCCM.open(
            hex("588C979A61C663D2F066D0C2C0F989806D5F6B61DAC384"), tag: hex("17E8D12CFDF926E0"), key: Self.rfcKey,
            nonce: hex("00000003020100A0A1A2A3A4A5"), associatedData: hex("0001020304050607"))
        #expect(plaintext == hex("08090A0B0C0D0E0F101112131415161718191A1B1C1D1E"))
    }

    @Test func nistExample1SealsWithASevenOctetNonceAndAFourOctetTag() throws {
        let sealed = try AESCCM.seal(
            hex("20212223"), key: Self.nistKey, nonce: hex("10111213141516"), associatedData: hex("0001020304050607"), tagLength: 4)
        #expect(sealed.ciphertext + sealed.tag == hex("7162015B4DAC255D"))
    }

    @Test func nistExample2SealsWithAnEightOctetNonceAndASixOctetTag() throws {
        let sealed = try AESCCM.seal(
            hex("202122232425262728292A2B2C2D2E2F"), key: Self.nistKey, nonce: hex("1011121314151617"),
            associatedData: hex("000102030405060708090A0B0C0D0E0F"), tagLength: 6)
        #expect(sealed.ciphertext + sealed.tag == hex("D2A1F0E051EA5F62081A7792073D593D1FC64FBFACCD"))
    }

    @Test func anAlteredCiphertextFailsAuthentication() {
        #expect(throws: AESCCM.Failure.authenticationFailed) {
            try AESCCM.open(
                hex("598C979A61C663D2F066D0C2C0F989806D5F6B61DAC384"), tag: hex("17E8D12CFDF926E0"), key: Self.rfcKey,
                nonce: hex("00000003020100A0A1A2A3A4A5"), associatedData: hex("0001020304050607"))
        }
    }

    @Test func keysNoncesAndTagsOfTheWrongLengthAreRejected() {
        #expect(throws: AESCCM.Failure.invalidKeyLength(15)) {
            try AESCCM.seal([], key: [UInt8](repeating: 0, count: 15), nonce: [UInt8](repeating: 0, count: 13), tagLength: 4)
        }
        #expect(throws: AESCCM.Failure.invalidNonceLength(14)) {
            try AESCCM.seal([], key: Self.rfcKey, nonce: [UInt8](repeating: 0, count: 14), tagLength: 4)
        }
        #expect(throws: AESCCM.Failure.invalidTagLength(5)) {
            try AESCCM.seal([], key: Self.rfcKey, nonce: [UInt8](repeating: 0, count: 13), tagLength: 5)
        }
        #expect(throws: AESCCM.Failure.messageTooLong(65_536)) {
            try AESCCM.seal([UInt8](repeating: 0, count: 65_536), key: Self.rfcKey, nonce: [UInt8](repeating: 0, count: 13), tagLength: 4)
        }
    }
}
