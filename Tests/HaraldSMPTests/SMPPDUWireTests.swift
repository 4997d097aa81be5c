import HaraldCodec
import HaraldCore
import HaraldSMP
import Testing

/// Exact bytes: the PDUs Bumble sends (notes/smp.md §1, §9) and the spec's sample values (§8)
/// placed in the PDUs that carry them, least significant octet first.
@Suite("SMP PDUs on the wire")
struct SMPPDUWireTests {
    func bytes(_ hex: String) throws -> [UInt8] { try [UInt8](hex: hex) }

    /// A spec value printed most significant octet first, as it goes on the wire.
    func wire(_ specHex: String) throws -> [UInt8] { try bytes(specHex).reversed() }

    @Test func bumblesDefaultPairingRequestIsNoInputNoOutputBondingMITMSC() throws {
        let pdu = try SMPPDU(decoding: try bytes("01 03 00 0d 10 03 03"))
        let features = PairingFeatures(
            ioCapability: .noInputNoOutput, oobDataPresent: false, authReq: [.bonding, .mitm, .secureConnections],
            maxEncryptionKeySize: 16, initiatorKeyDistribution: [.encKey, .idKey], responderKeyDistribution: [.encKey, .idKey])
        #expect(pdu == .pairingRequest(SMPPairingRequest(features)))
        #expect(try pdu.encodedBytes() == bytes("01 03 00 0d 10 03 03"))
    }

    @Test func bumblesDefaultPairingResponseCarriesTheSameFeatures() throws {
        let pdu = try SMPPDU(decoding: try bytes("02 03 00 0d 10 03 03"))
        let response = try #require(pdu.as(SMPPairingResponse.self))
        #expect(response.features.ioCapability == .noInputNoOutput)
        #expect(response.features.authReq == [.bonding, .mitm, .secureConnections])
        #expect(response.features.authReq.isBonding)
        #expect(response.features.maxEncryptionKeySize == 16)
    }

    @Test func legacyC1SampleRequestAndResponse() throws {
        // The c1 example: DisplayYesNo, no OOB, AuthReq 0, 16 octets, EncKey|IdKey|SignKey both ways…
        let request = try SMPPairingRequest(decoding: try bytes("01 01 00 00 10 07 07"))
        #expect(request.features.ioCapability == .displayYesNo)
        #expect(request.features.authReq == [])
        #expect(request.features.initiatorKeyDistribution == [.encKey, .idKey, .signKey])
        // …answered by NoInputNoOutput, 8-octet keys, nothing from the initiator, EncKey|SignKey back.
        let response = try SMPPairingResponse(decoding: try bytes("02 03 00 00 08 00 05"))
        #expect(response.features.ioCapability == .noInputNoOutput)
        #expect(response.features.maxEncryptionKeySize == 8)
        #expect(response.features.initiatorKeyDistribution == [])
        #expect(response.features.responderKeyDistribution == [.encKey, .signKey])
        #expect(try response.encodedBytes() == bytes("02 03 00 00 08 00 05"))
    }

    @Test func bumblesSecurityRequestAsksForBondingMITMSC() throws {
        let pdu = try SMPPDU(decoding: try bytes("0b 0d"))
        #expect(pdu == .securityRequest(SMPSecurityRequest(authReq: [.bonding, .mitm, .secureConnections])))
    }

    @Test func pairingConfirmCarriesTheF4ValueLeastSignificantOctetFirst() throws {
        let confirm = try wire("f2c916f1 07a9bd1c f1eda1be a974872d")
        let pdu = SMPPDU.pairingConfirm(SMPPairingConfirm(confirmValue: confirm))
        #expect(try pdu.encodedBytes() == bytes("03 2d8774a9bea1edf11cbda907f116c9f2"))
    }

    @Test func pairingRandomCarriesNaLeastSignificantOctetFirst() throws {
        let pdu = try SMPPDU(decoding: try bytes("04") + wire("d5cb8454 d177733e ffffb2ec 712baeab"))
        #expect(pdu.as(SMPPairingRandom.self)?.randomValue.first == 0xab)
    }

    @Test func pairingPublicKeyCarriesTheDebugKeyXThenY() throws {
        let x = try wire("20b003d2 f297be2c 5e2c83a7 e9f9a5b9 eff49111 acf4fddb cc030148 0e359de6")
        let y = try wire("dc809c49 652aeb6d 63329abf 5a52155c 766345c2 8fed3024 741c8ed0 1589d28b")
        let encoded = try SMPPDU.pairingPublicKey(SMPPairingPublicKey(x: x, y: y)).encodedBytes()
        #expect(encoded.count == 65)
        #expect(Array(encoded[0...32]) == (try bytes("0c e69d350e 480103cc dbfdf4ac 1191f4ef b9a5f9e9 a7832c5e 2cbe97f2 d203b020")))
        #expect(try SMPPDU(decoding: encoded) == .pairingPublicKey(SMPPairingPublicKey(x: x, y: y)))
    }

    @Test func pairingDHKeyCheckCarriesTheF6Value() throws {
        let check = try wire("e3c47398 9cd0e8c5 d26c0b09 da958f61")
        #expect(try SMPPairingDHKeyCheck(checkValue: check).encodedBytes() == bytes("0d 618f95da090b6cd2c5e8d09c9873c4e3"))
    }

    @Test func pairingFailedKeepsEveryReasonEvenUnnamedOnes() throws {
        #expect(try SMPPDU(decoding: try bytes("05 0f")) == .pairingFailed(SMPPairingFailed(reason: .keyRejected)))
        let unnamed = try #require(try SMPPDU(decoding: try bytes("05 42")).as(SMPPairingFailed.self))
        #expect(unnamed.reason.rawValue == 0x42)
        #expect(unnamed.reason.name == nil)
        #expect(unnamed.reason.description == "Reserved (0x42)")
        #expect(try unnamed.encodedBytes() == bytes("05 42"))
    }

    @Test func everyNamedFailureReasonHasTheSpecsCode() {
        #expect(PairingFailureReason.allNamed.map(\.rawValue) == Array(0x01...0x0F))
        #expect(PairingFailureReason.invalidParameters.description == "Invalid Parameters (0x0A)")
        #expect(PairingFailureReason.dhKeyCheckFailed.name == "DHKey Check Failed")
    }

    @Test func centralIdentificationIsEDIVThenRandLittleEndian() throws {
        let pdu = SMPCentralIdentification(ediv: 0x1234, rand: 0x0102_0304_0506_0708)
        #expect(try pdu.encodedBytes() == bytes("07 3412 0807060504030201"))
    }

    @Test func identityAddressInformationIsTypeThenAddressLeastSignificantFirst() throws {
        // A2 of the f5 sample: public 56:12:37:37:BF:CE.
        let pdu = try SMPPDU(decoding: try bytes("09 00 cebf37371256"))
        let address = try #require(pdu.as(SMPIdentityAddressInformation.self)?.identityAddress)
        #expect(address == BluetoothAddress("56:12:37:37:BF:CE", kind: .public))
        let staticRandom = try #require(BluetoothAddress("C0:00:00:00:00:01", kind: .random))
        #expect(try SMPIdentityAddressInformation(identityAddress: staticRandom).encodedBytes() == bytes("09 01 0100000000c0"))
    }

    @Test func keyDistributionPDUsCarryTheKeyLeastSignificantOctetFirst() throws {
        let irk = try wire("ec0234a3 57c8ad05 341010a6 0a397d9b")
        let pdu = try SMPPDU(decoding: [0x08] + irk)
        let info = try #require(pdu.as(SMPIdentityInformation.self))
        #expect(info.identityResolvingKey.key.withUnsafeKeyBytes { $0 } == irk)
        #expect(try pdu.encodedBytes() == [0x08] + irk)
        #expect(try SMPPDU(decoding: [0x06] + irk).code == .encryptionInformation)
        #expect(try SMPPDU(decoding: [0x0A] + irk).code == .signingInformation)
    }

    @Test func keypressNotificationNamesEachStep() throws {
        let types = try (0...4).map { try #require(SMPPDU(decoding: [0x0E, UInt8($0)]).as(SMPKeypressNotification.self)).notificationType }
        #expect(types == [.passkeyEntryStarted, .passkeyDigitEntered, .passkeyDigitErased, .passkeyCleared, .passkeyEntryCompleted])
    }

    @Test func everyCodeHasTheSpecsLength() throws {
        let lengths: [SMPCode: Int] = [
            .pairingRequest: 7, .pairingResponse: 7, .pairingConfirm: 17, .pairingRandom: 17, .pairingFailed: 2,
            .encryptionInformation: 17, .centralIdentification: 11, .identityInformation: 17,
            .identityAddressInformation: 8, .signingInformation: 17, .securityRequest: 2, .pairingPublicKey: 65,
            .pairingDHKeyCheck: 17, .keypressNotification: 2,
        ]
        #expect(SMPCode.allCases.map(\.rawValue) == Array(0x01...0x0E))
        for code in SMPCode.allCases { #expect(code.pduLength == lengths[code], "\(code)") }
    }

    @Test func reservedBitsSurviveARoundTrip() throws {
        // AuthReq with bonding flags 11 and bits 6–7; key distribution with bits 4–7.
        let raw = try bytes("01 04 01 ff 07 f0 ff")
        let request = try SMPPairingRequest(decoding: raw)
        #expect(request.features.authReq.isBonding == false)
        #expect(request.features.authReq.contains([.mitm, .secureConnections, .keypress, .ct2]))
        #expect(request.features.oobDataPresent)
        #expect(try request.encodedBytes() == raw)
    }
}

/// Keys go on the wire but never into a description, a debug description or a dump.
@Suite("SMP PDUs keep key material out of text")
struct SMPKeyRedactionTests {
    static let keyBytes: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6, 0x07, 0x18, 0x29, 0x3A, 0x4B, 0x5C, 0x6D, 0x7E, 0x8F, 0x90]
    static let key = SecretKey128(littleEndianBytes: keyBytes)!

    static let keyCarrying: [SMPPDU] = [
        .encryptionInformation(SMPEncryptionInformation(longTermKey: key)),
        .identityInformation(SMPIdentityInformation(identityResolvingKey: IdentityResolvingKey(key: key))),
        .signingInformation(SMPSigningInformation(signatureKey: ConnectionSignatureResolvingKey(key: key))),
        .centralIdentification(SMPCentralIdentification(ediv: 0xA1B2, rand: 0xC3D4_E5F6_0718_293A)),
    ]

    func texts(_ pdu: SMPPDU) -> [String] {
        var dumped = ""
        dump(pdu, to: &dumped)
        var bodyDump = ""
        dump(pdu.body, to: &bodyDump)
        return [String(describing: pdu), String(reflecting: pdu), "\(pdu.body)", String(reflecting: pdu.body), dumped, bodyDump]
    }

    @Test(arguments: keyCarrying)
    func noTextShowsTheKeyBytes(_ pdu: SMPPDU) {
        let forbidden = ["a1b2", "A1B2", "b2c3", "B2C3", "c3d4", "C3D4", "8f90", "8F90", "\(0xA1B2)", "\(UInt64(0xC3D4_E5F6_0718_293A))"]
        for text in texts(pdu) {
            for needle in forbidden { #expect(!text.contains(needle), "\(text)") }
        }
    }

    @Test func keysStillGoOnTheWire() throws {
        #expect(try Self.keyCarrying[0].encodedBytes() == [0x06] + Self.keyBytes)
    }
}
