import HaraldATT
import HaraldCodec
import Testing

/// ATT PDU vectors parsed by google/bumble (protocols.md D.4), copied here so the tests do not
/// read files outside the repository.
@Suite("ATT PDU vectors")
struct PDUVectorTests {
    func decode(_ hex: String) throws -> ATTPDU {
        try ATTPDU(decoding: try [UInt8](hex: hex))
    }

    func roundTrips(_ hex: String) throws -> Bool {
        let bytes = try [UInt8](hex: hex)
        return try ATTPDU(decoding: bytes).encodedBytes() == bytes
    }

    @Test func exchangeMTURequestCarriesClientRxMTU() throws {
        #expect(try decode("02F700") == .exchangeMTURequest(.init(clientRxMTU: 247)))
        #expect(try decode("03F700") == .exchangeMTUResponse(.init(serverRxMTU: 247)))
        #expect(try roundTrips("02F700"))
    }

    @Test func readByGroupTypeRequestAsksForPrimaryServicesOverTheWholeRange() throws {
        let pdu = try decode("10 0100 FFFF 0028")
        #expect(pdu == .readByGroupTypeRequest(.init(range: .all, groupType: BluetoothUUID(0x2800))))
        #expect(try roundTrips("100100FFFF0028"))
    }

    @Test func readByGroupTypeResponseListsTwoServices() throws {
        let pdu = try decode("11 06 0100 0500 0018 0600 0900 0118")
        let expected = ATTReadByGroupTypeResponse(entries: [
            .init(range: .init(start: 1, end: 5), value: [0x00, 0x18]),
            .init(range: .init(start: 6, end: 9), value: [0x01, 0x18]),
        ])
        #expect(pdu == .readByGroupTypeResponse(expected))
        #expect(try roundTrips("11060100050000180600090001 18"))
    }

    @Test func errorResponseNamesRequestHandleAndCode() throws {
        let pdu = try decode("01 10 0A00 0A")
        #expect(pdu == .errorResponse(.init(requestOpcode: .readByGroupTypeRequest, handle: 0x000A, error: .attributeNotFound)))
        #expect(try roundTrips("01100A000A"))
    }

    @Test func readByTypeRequestAndCharacteristicDeclarationResponse() throws {
        #expect(try decode("08 0100 0500 0328") == .readByTypeRequest(.init(range: .init(start: 1, end: 5), attributeType: BluetoothUUID(0x2803))))
        let response = try decode("09 07 0200 02 0300 002A")
        #expect(response == .readByTypeResponse(.init(entries: [.init(handle: 2, value: [0x02, 0x03, 0x00, 0x00, 0x2A])])))
        #expect(try roundTrips("0907020002030000 2A"))
    }

    @Test func findInformationRequestAndCCCDResponse() throws {
        #expect(try decode("04 0400 0500") == .findInformationRequest(.init(range: .init(start: 4, end: 5))))
        let response = try decode("05 01 0400 0229")
        #expect(response == .findInformationResponse(.init(entries: [.init(handle: 4, type: BluetoothUUID(0x2902))])))
        #expect(try roundTrips("050104000229"))
    }

    @Test func writeRequestEnablingNotificationsAndItsResponse() throws {
        #expect(try decode("12 0D00 0100") == .writeRequest(.init(handle: 0x000D, value: [0x01, 0x00])))
        #expect(try decode("13") == .writeResponse(.init()))
    }

    @Test func notificationIndicationAndConfirmation() throws {
        #expect(try decode("1B 0C00 0055") == .handleValueNotification(.init(handle: 0x000C, value: [0x00, 0x55])))
        #expect(try decode("1D 0E00 0100") == .handleValueIndication(.init(handle: 0x000E, value: [0x01, 0x00])))
        #expect(try decode("1E") == .handleValueConfirmation(.init()))
    }

    @Test func readBlobAtOffset22() throws {
        #expect(try decode("0C 0300 1600") == .readBlobRequest(.init(handle: 3, offset: 22)))
    }

    @Test func writeCommandAndExecuteWrite() throws {
        #expect(try decode("52 0300 FF") == .writeCommand(.init(handle: 3, value: [0xFF])))
        #expect(try decode("18 01") == .executeWriteRequest(.init(flags: .write)))
        #expect(try decode("18 00") == .executeWriteRequest(.init(flags: .cancel)))
    }

    @Test func signedWriteCommandKeepsTheTwelveByteSignature() throws {
        let pdu = try decode("D2 0300 AABB 0102030405060708090A0B0C")
        let expected = ATTSignedWriteCommand(handle: 3, value: [0xAA, 0xBB], signature: Array(1...12))
        #expect(pdu == .signedWriteCommand(expected))
        #expect(try expected.encodedBytes() == [UInt8](hex: "D20300AABB0102030405060708090A0B0C"))
    }

    @Test func multipleHandleValueNotificationSplitsTuples() throws {
        let pdu = try decode("23 0C00 0100 55 0E00 0200 0102")
        #expect(
            pdu
                == .multipleHandleValueNotification(
                    .init(values: [
                        .init(handle: 0x0C, value: [0x55]), .init(handle: 0x0E, value: [0x01, 0x02]),
                    ])))
    }

    @Test func readMultipleVariableResponseKeepsTruncatedLastValue() throws {
        let pdu = try decode("21 0200 AABB 0500 0102")
        guard case .readMultipleVariableResponse(let response) = pdu else {
            Issue.record("decoded as \(pdu)")
            return
        }
        #expect(response.entries.map(\.value) == [[0xAA, 0xBB], [0x01, 0x02]])
        #expect(response.entries.map(\.isTruncated) == [false, true])
    }

    @Test func prepareWriteEchoesHandleOffsetAndValue() throws {
        #expect(try decode("16 0300 1200 0102") == .prepareWriteRequest(.init(handle: 3, offset: 18, value: [1, 2])))
        #expect(try decode("17 0300 1200 0102") == .prepareWriteResponse(.init(handle: 3, offset: 18, value: [1, 2])))
    }

    @Test func unknownOpcodeDecodesToUnknownWithItsParameters() throws {
        #expect(try decode("7F 0102") == .unknown(opcode: ATTOpcode(0x7F), parameters: [1, 2]))
    }
}
