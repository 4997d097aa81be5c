import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldTestSupport
import PropertyBased
import Testing

/// Encode → decode is the identity for every ATT PDU, with field values drawn at random
/// (seeded by PropertyBased, so a failure prints the seed that replays it) within what the PDU's
/// format can carry (an entry list has one entry length, a handle set two or more handles).
@Suite("Property: ATT PDU round trips")
struct PDURoundTripProperties {
    /// The kinds of PDU, one per case of ``ATTPDU``.
    static let kinds = 0..<32

    /// A PDU of kind `kind` with every field drawn from `octets`.
    static func pdu(_ kind: Int, _ octets: [UInt8]) -> ATTPDU {
        var draw = OctetDraw(octets: octets)
        switch kind {
        case 0: return .errorResponse(ATTErrorResponse(requestOpcode: ATTOpcode(draw.byte()), handle: draw.word(), error: ATTErrorCode(rawValue: draw.byte())))
        case 1: return .exchangeMTURequest(ATTExchangeMTURequest(clientRxMTU: draw.word()))
        case 2: return .exchangeMTUResponse(ATTExchangeMTUResponse(serverRxMTU: draw.word()))
        case 3: return .findInformationRequest(ATTFindInformationRequest(range: draw.range()))
        case 4:
            let wide = draw.byte() & 1 == 1
            let entries = (0...draw.count(below: 6)).map { _ in ATTFindInformationResponse.Entry(handle: draw.word(), type: draw.uuid(wide: wide)) }
            return .findInformationResponse(ATTFindInformationResponse(entries: entries))
        case 5: return .findByTypeValueRequest(ATTFindByTypeValueRequest(range: draw.range(), attributeType: draw.word(), value: draw.value(upTo: 20)))
        case 6: return .findByTypeValueResponse(ATTFindByTypeValueResponse(handles: (0...draw.count(below: 6)).map { _ in draw.range() }))
        case 7: return .readByTypeRequest(ATTReadByTypeRequest(range: draw.range(), attributeType: draw.uuid()))
        case 8:
            let length = draw.count(below: 30)
            return .readByTypeResponse(
                ATTReadByTypeResponse(entries: (0...draw.count(below: 5)).map { _ in ATTHandleValue(handle: draw.word(), value: draw.bytes(length)) }))
        case 9: return .readRequest(ATTReadRequest(handle: draw.word()))
        case 10: return .readResponse(ATTReadResponse(value: draw.value(upTo: 64)))
        case 11: return .readBlobRequest(ATTReadBlobRequest(handle: draw.word(), offset: draw.word()))
        case 12: return .readBlobResponse(ATTReadBlobResponse(value: draw.value(upTo: 64)))
        case 13: return .readMultipleRequest(ATTReadMultipleRequest(handles: draw.handles(atLeast: 2)))
        case 14: return .readMultipleResponse(ATTReadMultipleResponse(values: draw.value(upTo: 64)))
        case 15: return .readByGroupTypeRequest(ATTReadByGroupTypeRequest(range: draw.range(), groupType: draw.uuid()))
        case 16:
            let length = draw.count(below: 30)
            let entries = (0...draw.count(below: 5)).map { _ in ATTReadByGroupTypeResponse.Entry(range: draw.range(), value: draw.bytes(length)) }
            return .readByGroupTypeResponse(ATTReadByGroupTypeResponse(entries: entries))
        case 17: return .writeRequest(ATTWriteRequest(handle: draw.word(), value: draw.value(upTo: 64)))
        case 18: return .writeResponse(ATTWriteResponse())
        case 19: return .writeCommand(ATTWriteCommand(handle: draw.word(), value: draw.value(upTo: 64)))
        case 20: return .signedWriteCommand(ATTSignedWriteCommand(handle: draw.word(), value: draw.value(upTo: 40), signature: draw.bytes(12)))
        case 21: return .prepareWriteRequest(ATTPrepareWriteRequest(handle: draw.word(), offset: draw.word(), value: draw.value(upTo: 40)))
        case 22: return .prepareWriteResponse(ATTPrepareWriteResponse(handle: draw.word(), offset: draw.word(), value: draw.value(upTo: 40)))
        case 23: return .executeWriteRequest(ATTExecuteWriteRequest(flags: draw.byte() & 1 == 0 ? .cancel : .write))
        case 24: return .executeWriteResponse(ATTExecuteWriteResponse())
        case 25: return .handleValueNotification(ATTHandleValueNotification(handle: draw.word(), value: draw.value(upTo: 64)))
        case 26: return .handleValueIndication(ATTHandleValueIndication(handle: draw.word(), value: draw.value(upTo: 64)))
        case 27: return .handleValueConfirmation(ATTHandleValueConfirmation())
        case 28: return .readMultipleVariableRequest(ATTReadMultipleVariableRequest(handles: draw.handles(atLeast: 2)))
        case 29:
            let entries = (0...draw.count(below: 5)).map { _ in ATTReadMultipleVariableResponse.Entry(value: draw.value(upTo: 20)) }
            return .readMultipleVariableResponse(ATTReadMultipleVariableResponse(entries: entries))
        case 30:
            let values = (0...draw.count(below: 5)).map { _ in ATTHandleValue(handle: draw.word(), value: draw.value(upTo: 20)) }
            return .multipleHandleValueNotification(ATTMultipleHandleValueNotification(values: values))
        default:
            // 0x3F: no ATT opcode (not even with the command or signature bit).
            return .unknown(opcode: ATTOpcode(0x3F), parameters: draw.value(upTo: 20))
        }
    }

    @Test func everyPDUDecodesToWhatWasEncoded() async {
        await propertyCheck(count: 2000, input: Gen.uint8(), Gen.uint8().array(of: 1...64)) { kind, octets in
            let pdu = Self.pdu(Int(kind) % Self.kinds.count, octets)
            let bytes = try pdu.encodedBytes()
            #expect(bytes.first == pdu.opcode.rawValue)
            #expect(try ATTPDU(decoding: bytes) == pdu)
        }
    }

    @Test func everyKindIsDrawn() {
        let opcodes = Set(Self.kinds.map { Self.pdu($0, [1, 2, 3, 4, 5]).opcode })
        #expect(opcodes.count == Self.kinds.count)
    }
}

extension OctetDraw {
    /// A handle range, its ends drawn independently (so it may be inverted).
    mutating func range() -> ATTHandleRange { ATTHandleRange(start: word(), end: word()) }
    /// At least `minimum` handles, up to seven more.
    mutating func handles(atLeast minimum: Int) -> [UInt16] { (0..<(minimum + count(below: 8))).map { _ in word() } }
}
