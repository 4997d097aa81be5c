import HaraldCodec
import HaraldCore
import HaraldSMP
import HaraldTestSupport
import PropertyBased
import Testing

/// Encode → decode is the identity for every PDU, with field values drawn at random (seeded by
/// PropertyBased, so a failure prints the seed that replays it).
@Suite("SMP PDU round trips")
struct SMPPDURoundTripProperties {
    /// A PDU of `code` with every field drawn from `octets`.
    static func pdu(_ code: SMPCode, _ octets: [UInt8]) -> SMPPDU {
        var draw = OctetDraw(octets: octets)
        switch code {
        case .pairingRequest: return .pairingRequest(SMPPairingRequest(draw.features()))
        case .pairingResponse: return .pairingResponse(SMPPairingResponse(draw.features()))
        case .pairingConfirm: return .pairingConfirm(SMPPairingConfirm(confirmValue: draw.bytes(16)))
        case .pairingRandom: return .pairingRandom(SMPPairingRandom(randomValue: draw.bytes(16)))
        case .pairingFailed: return .pairingFailed(SMPPairingFailed(reason: PairingFailureReason(draw.byte())))
        case .encryptionInformation: return .encryptionInformation(SMPEncryptionInformation(longTermKey: draw.key()))
        case .centralIdentification:
            return .centralIdentification(SMPCentralIdentification(ediv: draw.integer(UInt16.self), rand: draw.integer(UInt64.self)))
        case .identityInformation:
            return .identityInformation(SMPIdentityInformation(identityResolvingKey: IdentityResolvingKey(key: draw.key())))
        case .identityAddressInformation:
            let kind: BluetoothAddress.Kind = draw.byte() & 1 == 0 ? .public : .random
            let address = BluetoothAddress(value: draw.integer(UInt64.self) & 0xFFFF_FFFF_FFFF, kind: kind)!
            return .identityAddressInformation(SMPIdentityAddressInformation(identityAddress: address))
        case .signingInformation:
            return .signingInformation(SMPSigningInformation(signatureKey: ConnectionSignatureResolvingKey(key: draw.key())))
        case .securityRequest: return .securityRequest(SMPSecurityRequest(authReq: AuthReq(rawValue: draw.byte())))
        case .pairingPublicKey: return .pairingPublicKey(SMPPairingPublicKey(x: draw.bytes(32), y: draw.bytes(32)))
        case .pairingDHKeyCheck: return .pairingDHKeyCheck(SMPPairingDHKeyCheck(checkValue: draw.bytes(16)))
        case .keypressNotification:
            let types = KeypressNotificationType.allCases
            return .keypressNotification(SMPKeypressNotification(types[Int(draw.byte()) % types.count]))
        }
    }

    @Test func everyPDUDecodesToItselfAtItsCodesLength() async {
        await propertyCheck(count: 3000, input: Gen.element(of: SMPCode.allCases), Gen.uint8().array(of: 1...64)) { code, octets in
            let pdu = Self.pdu(code!, octets)
            let bytes = try pdu.encodedBytes()
            #expect(bytes.first == code!.rawValue)
            #expect(bytes.count == code!.pduLength)
            #expect(try SMPPDU(decoding: bytes) == pdu)
        }
    }

    @Test func everyPDUTypeDecodesOnItsOwnToo() async {
        await propertyCheck(count: 1000, input: Gen.element(of: SMPCode.allCases), Gen.uint8().array(of: 1...64)) { code, octets in
            let pdu = Self.pdu(code!, octets)
            let bytes = try pdu.encodedBytes()
            let alone = try Self.decodeAlone(pdu.body, bytes)
            #expect(alone == pdu)
        }
    }

    /// Decodes `bytes` as the PDU type of `sample`, then re-reads its encoding as any PDU.
    static func decodeAlone<T: SMPPDUCodable>(_ sample: T, _ bytes: [UInt8]) throws -> SMPPDU {
        let value = try T(decoding: bytes)
        return try SMPPDU(decoding: try value.encodedBytes())
    }

    @Test func bytesOfTheRightLengthThatDecodeEncodeBackExactly() async {
        await propertyCheck(count: 5000, input: Gen.element(of: SMPCode.allCases), Gen.uint8().array(of: 64)) { code, octets in
            let bytes = [code!.rawValue] + octets.prefix(code!.pduLength - 1)
            guard let pdu = try? SMPPDU(decoding: bytes) else { return }
            let encoded = try pdu.encodedBytes()
            #expect(encoded == bytes)
        }
    }

    @Test func randomBytesDecodeOrThrowWithoutTrapping() async {
        await propertyCheck(count: 3000, input: Gen.uint8().array(of: 0...80)) { bytes in
            do throws(SMPDecodingError) {
                _ = try SMPPDU(decoding: bytes, mtu: SecurityManager.legacyMTU)
            } catch {
                _ = error.pairingFailureReason
                _ = error.description
            }
        }
    }
}

extension OctetDraw {
    mutating func key() -> SecretKey128 { SecretKey128(littleEndianBytes: bytes(16))! }

    mutating func features() -> PairingFeatures {
        PairingFeatures(
            ioCapability: IOCapability.allCases[Int(byte()) % IOCapability.allCases.count],
            oobDataPresent: byte() & 1 == 1,
            authReq: AuthReq(rawValue: byte()),
            maxEncryptionKeySize: 7 + Int(byte()) % 10,
            initiatorKeyDistribution: KeyDistribution(rawValue: byte()),
            responderKeyDistribution: KeyDistribution(rawValue: byte()))
    }
}
