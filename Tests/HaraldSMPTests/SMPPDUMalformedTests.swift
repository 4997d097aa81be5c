import HaraldCodec
import HaraldSMP
import Testing

/// Bad input on the SMP channel: which error it is, what it names, and which Pairing Failed
/// reason answers it (Core spec Vol 3 Part H §3.5.5).
@Suite("Malformed SMP PDUs")
struct SMPPDUMalformedTests {
    func error(decoding hex: String, mtu: Int = SecurityManager.secureConnectionsMTU) throws -> SMPDecodingError? {
        let bytes = try [UInt8](hex: hex)
        do throws(SMPDecodingError) {
            _ = try SMPPDU(decoding: bytes, mtu: mtu)
            return nil
        } catch {
            return error
        }
    }

    func malformed(_ hex: String) throws -> ByteDecodingError {
        let error = try #require(try error(decoding: hex))
        guard case .malformed(let inner) = error else {
            Issue.record("expected a malformed PDU, got \(error)")
            return ByteDecodingError(field: "", offset: -1, reason: .invalidUTF8)
        }
        #expect(error.pairingFailureReason == .invalidParameters)
        return inner
    }

    @Test func anEmptyFrameIsMissingItsCode() throws {
        let error = try malformed("")
        #expect(error.field == "code")
        #expect(error.reason == .truncated(needed: 1, available: 0))
    }

    @Test func anUnknownCodeIsAnsweredWithCommandNotSupported() throws {
        for code: UInt8 in [0x00, 0x0F, 0x10, 0x7F, 0xFF] {
            let error = try #require(try error(decoding: Hex.byte(code) + "00"))
            #expect(error == .unknownCode(code))
            #expect(error.pairingFailureReason == .commandNotSupported)
        }
    }

    @Test func aShortPDUNamesTheMissingFieldAndItsOffset() throws {
        let error = try malformed("01 03 00 0d 10 03")
        #expect(error.typeName == "SMPPairingRequest")
        #expect(error.field == "responderKeyDistribution")
        #expect(error.offset == 6)
        #expect(error.reason == .truncated(needed: 1, available: 0))

        let confirm = try malformed("03 00112233")
        #expect(confirm.field == "confirmValue")
        #expect(confirm.offset == 1)

        let publicKey = try malformed("0c" + String(repeating: "00", count: 40))
        #expect(publicKey.field == "publicKeyY")
        #expect(publicKey.offset == 33)

        #expect(try malformed("07 3412 0102").field == "rand")
        #expect(try malformed("05").field == "reason")
    }

    @Test func aLongPDUNamesTheOffsetOfItsFirstExtraOctet() throws {
        let error = try malformed("0b 0d 00")
        #expect(error.typeName == "SMPSecurityRequest")
        #expect(error.offset == 2)
        #expect(error.reason == .trailingBytes(count: 1))
        #expect(try malformed("05 08 08").reason == .trailingBytes(count: 1))
    }

    @Test func everyCodeRejectsEveryOtherLength() throws {
        for code in SMPCode.allCases {
            for length in 1...SecurityManager.secureConnectionsMTU where length != code.pduLength {
                let bytes = [code.rawValue] + Array(repeating: 0x01, count: length - 1)
                let error = try #require(throws: SMPDecodingError.self) { try SMPPDU(decoding: bytes) }
                #expect(error.pairingFailureReason == .invalidParameters, "\(code) with \(length) octets")
            }
        }
    }

    @Test func reservedIOCapabilityIsAnInvalidParameter() throws {
        let error = try malformed("01 05 00 0d 10 03 03")
        #expect(error.field == "ioCapability")
        #expect(error.offset == 1)
    }

    @Test func reservedOOBDataFlagIsAnInvalidParameter() throws {
        let error = try malformed("02 03 02 0d 10 03 03")
        #expect(error.field == "oobDataFlag")
        #expect(error.offset == 2)
    }

    @Test func aKeySizeOutsideSevenToSixteenIsAnsweredWithEncryptionKeySize() throws {
        for size in ["00", "06", "11", "ff"] {
            let error = try #require(try error(decoding: "01 03 00 0d \(size) 03 03"))
            guard case .malformed(let inner) = error else { Issue.record("\(error)"); continue }
            #expect(inner.field == "maxEncryptionKeySize")
            #expect(inner.offset == 4)
            #expect(error.pairingFailureReason == .encryptionKeySize)
        }
        #expect(try error(decoding: "01 03 00 0d 07 03 03") == nil)
        #expect(try error(decoding: "01 03 00 0d 10 03 03") == nil)
    }

    @Test func aTruncatedKeySizeIsAnInvalidParameterNotAKeySizeFailure() throws {
        #expect(try error(decoding: "01 03 00 0d")?.pairingFailureReason == .invalidParameters)
    }

    @Test func reservedAddressTypeAndKeypressTypeAreInvalidParameters() throws {
        #expect(try malformed("09 02 0100000000c0").field == "addrType")
        #expect(try malformed("0e 05").field == "notificationType")
    }

    @Test func thePublicKeyDoesNotFitTheLegacyMTU() throws {
        let publicKey = "0c" + String(repeating: "11", count: 64)
        #expect(try error(decoding: publicKey, mtu: SecurityManager.secureConnectionsMTU) == nil)
        let error = try #require(try error(decoding: publicKey, mtu: SecurityManager.legacyMTU))
        #expect(error == .exceedsMTU(length: 65, mtu: 23))
        #expect(error.pairingFailureReason == .invalidParameters)
    }

    @Test func everyLegacyPDUFitsTheLegacyMTU() {
        #expect(SecurityManager.legacyMTU == 23)
        #expect(SecurityManager.secureConnectionsMTU == 65)
        for code in SMPCode.allCases where code != .pairingPublicKey {
            #expect(code.pduLength <= SecurityManager.legacyMTU, "\(code)")
        }
    }

    @Test func aFrameLongerThanTheMTUIsRejectedBeforeItsCodeIsRead() throws {
        let error = try #require(try error(decoding: "ff" + String(repeating: "00", count: 65)))
        #expect(error == .exceedsMTU(length: 66, mtu: 65))
    }

    @Test func aPDUTypeRefusesAnotherPDUsCode() throws {
        let error = try #require(throws: ByteDecodingError.self) { try SMPPairingRequest(decoding: [0x02, 3, 0, 0x0d, 16, 3, 3]) }
        #expect(error.field == "code")
    }

    @Test func valuesThatBreakTheFormatDoNotEncode() {
        #expect(throws: ByteEncodingError.self) { try SMPPairingConfirm(confirmValue: [1, 2, 3]).encodedBytes() }
        #expect(throws: ByteEncodingError.self) { try SMPPairingPublicKey(x: [UInt8](repeating: 0, count: 32), y: []).encodedBytes() }
        let features = PairingFeatures(
            ioCapability: .displayOnly, authReq: [], maxEncryptionKeySize: 6, initiatorKeyDistribution: [],
            responderKeyDistribution: [])
        #expect(throws: ByteEncodingError.self) { try SMPPairingRequest(features).encodedBytes() }
    }

    @Test func errorsReadAsSentences() throws {
        #expect(SMPDecodingError.unknownCode(0x42).description == "unknown SMP code 0x42")
        #expect(SMPDecodingError.exceedsMTU(length: 65, mtu: 23).description == "SMP PDU of 65 octets exceeds the SMP MTU of 23")
        let short = try #require(try error(decoding: "04 00"))
        #expect(short.description == "SMPPairingRandom: needs 16 bytes for 'randomValue' at offset 1, 1 left")
    }
}
