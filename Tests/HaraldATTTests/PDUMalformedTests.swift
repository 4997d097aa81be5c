import HaraldATT
import HaraldCodec
import PropertyBased
import Testing

@Suite("Malformed ATT PDUs")
struct PDUMalformedTests {
    func error(decoding hex: String) throws -> ByteDecodingError? {
        let bytes = try [UInt8](hex: hex)
        do {
            _ = try ATTPDU(decoding: bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test func emptyInputIsTruncatedAtTheOpcode() throws {
        let error = try #require(try error(decoding: ""))
        #expect(error.field == "opcode")
        #expect(error.reason == .truncated(needed: 1, available: 0))
    }

    @Test func shortErrorResponseNamesTheMissingField() throws {
        let error = try #require(try error(decoding: "01 10 0A00"))
        #expect(error.typeName == "ATTErrorResponse")
        #expect(error.field == "errorCode")
    }

    @Test func findInformationWithUnknownFormatIsRejected() throws {
        let error = try #require(try error(decoding: "05 03 0400 0229"))
        #expect(error.field == "format")
    }

    @Test func readByTypeResponseWithRaggedEntriesIsRejected() throws {
        let error = try #require(try error(decoding: "09 07 0200 02 0300 00"))
        #expect(error.typeName == "ATTReadByTypeResponse")
    }

    @Test func readByGroupTypeResponseWithEntryShorterThanTwoHandlesIsRejected() throws {
        let error = try #require(try error(decoding: "11 03 010005"))
        #expect(error.field == "length")
    }

    @Test func executeWriteWithReservedFlagsIsRejected() throws {
        let error = try #require(try error(decoding: "18 02"))
        #expect(error.field == "flags")
    }

    @Test func signedWriteShorterThanItsSignatureIsRejected() throws {
        let error = try #require(try error(decoding: "D2 0300 0102"))
        #expect(error.field == "authenticationSignature")
    }

    @Test func readByTypeRequestWithThreeByteTypeIsRejected() throws {
        let error = try #require(try error(decoding: "08 0100 FFFF 001122"))
        #expect(error.field == "attributeType")
    }

    @Test func readMultipleRequestNeedsTwoHandles() throws {
        #expect(try error(decoding: "0E 0300") != nil)
        #expect(try error(decoding: "0E 0300 04") != nil)
        #expect(try error(decoding: "0E 0300 0400") == nil)
    }

    @Test func fixedSizePDUWithTrailingBytesIsRejected() throws {
        let error = try #require(try error(decoding: "13 00"))
        #expect(error.reason == .trailingBytes(count: 1))
    }

    @Test func multipleHandleValueNotificationWithShortValueIsRejected() throws {
        let error = try #require(try error(decoding: "23 0C00 0300 55"))
        #expect(error.field == "value")
    }

    static let knownOpcodes: [UInt8] = [
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12,
        0x13, 0x16, 0x17, 0x18, 0x19, 0x1B, 0x1D, 0x1E, 0x20, 0x21, 0x23, 0x52, 0xD2,
    ]

    @Test func randomBytesDecodeOrThrowWithoutTrapping() async {
        await propertyCheck(count: 2000, input: Gen.uint8().array(of: 0...40)) { bytes in
            _ = try? ATTPDU(decoding: bytes)
        }
    }

    /// Whatever decodes re-encodes to bytes that decode to the same PDU.
    @Test func decodedPDUsSurviveAnEncodeDecodeRoundTrip() async {
        await propertyCheck(count: 3000, input: Gen.element(of: Self.knownOpcodes), Gen.uint8().array(of: 0...48)) { opcode, parameters in
            guard let pdu = try? ATTPDU(decoding: [opcode!] + parameters) else { return }
            let again = try ATTPDU(decoding: try pdu.encodedBytes())
            #expect(again == pdu)
        }
    }
}
