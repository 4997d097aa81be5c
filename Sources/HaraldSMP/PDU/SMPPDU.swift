import HaraldCodec

/// Any SMP PDU, decoded by its code (Core spec Vol 3 Part H §3.3).
///
/// Decoding never traps and throws ``SMPDecodingError``, which says which Pairing Failed reason
/// answers the bad PDU. Encoding gives the PDU's bytes, code first.
public enum SMPPDU: ByteEncodable, Sendable, Hashable {
    /// 0x01 Pairing Request.
    case pairingRequest(SMPPairingRequest)
    /// 0x02 Pairing Response.
    case pairingResponse(SMPPairingResponse)
    /// 0x03 Pairing Confirm.
    case pairingConfirm(SMPPairingConfirm)
    /// 0x04 Pairing Random.
    case pairingRandom(SMPPairingRandom)
    /// 0x05 Pairing Failed.
    case pairingFailed(SMPPairingFailed)
    /// 0x06 Encryption Information.
    case encryptionInformation(SMPEncryptionInformation)
    /// 0x07 Central Identification.
    case centralIdentification(SMPCentralIdentification)
    /// 0x08 Identity Information.
    case identityInformation(SMPIdentityInformation)
    /// 0x09 Identity Address Information.
    case identityAddressInformation(SMPIdentityAddressInformation)
    /// 0x0A Signing Information.
    case signingInformation(SMPSigningInformation)
    /// 0x0B Security Request.
    case securityRequest(SMPSecurityRequest)
    /// 0x0C Pairing Public Key.
    case pairingPublicKey(SMPPairingPublicKey)
    /// 0x0D Pairing DHKey Check.
    case pairingDHKeyCheck(SMPPairingDHKeyCheck)
    /// 0x0E Keypress Notification.
    case keypressNotification(SMPKeypressNotification)

    /// Decodes one PDU, the whole of an L2CAP frame on channel 0x0006.
    ///
    /// - Parameter bytes: the frame's payload: the Code octet, then the PDU's fields.
    /// - Parameter mtu: the SMP MTU of this device: ``SecurityManager/secureConnectionsMTU`` (65)
    ///   when it supports LE Secure Connections, ``SecurityManager/legacyMTU`` (23) when it supports
    ///   legacy pairing only. SMP does not fragment, so a longer PDU is an error.
    /// - Throws: ``SMPDecodingError/exceedsMTU(length:mtu:)`` for a PDU longer than `mtu`,
    ///   ``SMPDecodingError/unknownCode(_:)`` for a code the spec does not define, and
    ///   ``SMPDecodingError/malformed(_:)`` (naming the PDU, field and offset) for an empty input, a
    ///   PDU of the wrong length for its code, or a field with a reserved value.
    public init<Bytes: Sequence<UInt8>>(
        decoding bytes: Bytes, mtu: Int = SecurityManager.secureConnectionsMTU
    ) throws(SMPDecodingError) {
        let bytes = Array(bytes)
        guard let first = bytes.first else {
            throw .malformed(ByteDecodingError(typeName: "SMPPDU", field: "code", offset: 0, reason: .truncated(needed: 1, available: 0)))
        }
        guard bytes.count <= mtu else { throw .exceedsMTU(length: bytes.count, mtu: mtu) }
        guard let code = SMPCode(rawValue: first) else { throw .unknownCode(first) }
        do {
            self = try ByteReader.withReader(bytes) { (reader) throws(ByteDecodingError) -> SMPPDU in
                try Self.decode(code, from: &reader)
            }
        } catch {
            throw .malformed(error)
        }
    }

    private static func decode(_ code: SMPCode, from reader: inout ByteReader) throws(ByteDecodingError) -> SMPPDU {
        switch code {
        case .pairingRequest: .pairingRequest(try decode(SMPPairingRequest.self, from: &reader))
        case .pairingResponse: .pairingResponse(try decode(SMPPairingResponse.self, from: &reader))
        case .pairingConfirm: .pairingConfirm(try decode(SMPPairingConfirm.self, from: &reader))
        case .pairingRandom: .pairingRandom(try decode(SMPPairingRandom.self, from: &reader))
        case .pairingFailed: .pairingFailed(try decode(SMPPairingFailed.self, from: &reader))
        case .encryptionInformation: .encryptionInformation(try decode(SMPEncryptionInformation.self, from: &reader))
        case .centralIdentification: .centralIdentification(try decode(SMPCentralIdentification.self, from: &reader))
        case .identityInformation: .identityInformation(try decode(SMPIdentityInformation.self, from: &reader))
        case .identityAddressInformation:
            .identityAddressInformation(try decode(SMPIdentityAddressInformation.self, from: &reader))
        case .signingInformation: .signingInformation(try decode(SMPSigningInformation.self, from: &reader))
        case .securityRequest: .securityRequest(try decode(SMPSecurityRequest.self, from: &reader))
        case .pairingPublicKey: .pairingPublicKey(try decode(SMPPairingPublicKey.self, from: &reader))
        case .pairingDHKeyCheck: .pairingDHKeyCheck(try decode(SMPPairingDHKeyCheck.self, from: &reader))
        case .keypressNotification: .keypressNotification(try decode(SMPKeypressNotification.self, from: &reader))
        }
    }

    /// Decodes one PDU type, naming it in errors. The length is checked before any field value, so
    /// a PDU of the wrong length is always a length error: trailing octets here, and a missing
    /// field for a short PDU (each PDU reads all its fields before checking them).
    private static func decode<T: SMPPDUCodable>(_ type: T.Type, from reader: inout ByteReader) throws(ByteDecodingError) -> T {
        do throws(ByteDecodingError) {
            let extra = reader.remainingCount - T.code.pduLength
            if extra > 0 {
                throw ByteDecodingError(field: "", offset: reader.offset + T.code.pduLength, reason: .trailingBytes(count: extra))
            }
            let value = try T(from: &reader)
            try reader.expectEnd()
            return value
        } catch {
            var error = error
            if error.typeName.isEmpty { error.typeName = String(describing: T.self) }
            throw error
        }
    }

    /// The PDU's code.
    public var code: SMPCode { Swift.type(of: body).code }

    /// The PDU value inside the case.
    public var body: any SMPPDUCodable {
        switch self {
        case .pairingRequest(let pdu): pdu
        case .pairingResponse(let pdu): pdu
        case .pairingConfirm(let pdu): pdu
        case .pairingRandom(let pdu): pdu
        case .pairingFailed(let pdu): pdu
        case .encryptionInformation(let pdu): pdu
        case .centralIdentification(let pdu): pdu
        case .identityInformation(let pdu): pdu
        case .identityAddressInformation(let pdu): pdu
        case .signingInformation(let pdu): pdu
        case .securityRequest(let pdu): pdu
        case .pairingPublicKey(let pdu): pdu
        case .pairingDHKeyCheck(let pdu): pdu
        case .keypressNotification(let pdu): pdu
        }
    }

    /// The PDU as `type`, or nil when it is another PDU.
    public func `as`<T: SMPPDUCodable>(_ type: T.Type) -> T? {
        body as? T
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        try body.encode(to: &writer)
    }
}

/// Why bytes received on the SMP channel are not a PDU, and how the Security Manager answers them.
public enum SMPDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The PDU is longer than this device's SMP MTU.
    case exceedsMTU(length: Int, mtu: Int)
    /// The code is not a command the spec defines.
    case unknownCode(UInt8)
    /// A defined command whose length is wrong or one of whose fields holds a reserved or
    /// out-of-range value; the error names the PDU, the field and its offset. An empty input is
    /// malformed too (its `code` is missing).
    case malformed(ByteDecodingError)

    /// The reason of the Pairing Failed PDU that answers this input (Core spec Vol 3 Part H §3.5.5):
    /// Command Not Supported (0x07) for an unknown code; Encryption Key Size (0x06) for a Maximum
    /// Encryption Key Size outside 7…16, since no key of that size can be agreed; Invalid
    /// Parameters (0x0A) for any other wrong length or value.
    ///
    /// Whether to send it at all is the caller's call: nothing is sent after the SMP timeout, and
    /// a device not pairing may ignore the PDU.
    public var pairingFailureReason: PairingFailureReason {
        switch self {
        case .unknownCode: .commandNotSupported
        case .exceedsMTU: .invalidParameters
        case .malformed(let error):
            if error.field == PairingFeatures.Field.maxEncryptionKeySize, case .invalidValue = error.reason {
                .encryptionKeySize
            } else {
                .invalidParameters
            }
        }
    }

    /// What was wrong with the PDU: its length against the SMP MTU, its unknown code, or the field
    /// that failed to decode, e.g. `unknown SMP code 0x0F`.
    public var description: String {
        switch self {
        case let .exceedsMTU(length, mtu): "SMP PDU of \(length) octets exceeds the SMP MTU of \(mtu)"
        case let .unknownCode(code): "unknown SMP code 0x\(Hex.byte(code))"
        case let .malformed(error): error.description
        }
    }
}
