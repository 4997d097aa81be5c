import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldTestSupport
import Testing

/// Bad requests get the ATT error the Core spec names for them (Vol 3 Part F §3.4.1.1), and the
/// server keeps serving; commands it cannot carry out are dropped without an answer. Requests are
/// sent raw at ATT_MTU 23.
@Suite("GATT server: bad requests")
struct ServerBadRequestTests {
    /// The Device Name value (read only, "Harald") of the sample database.
    static let deviceName: UInt16 = 3

    @Test func aReadRequestForHandleZeroIsInvalidHandle() async throws {
        var client = try await RawClient()
        #expect(try await client.exchange([0x0A, 0x00, 0x00]) == [0x01, 0x0A, 0x00, 0x00, 0x01])
    }

    @Test("GATT/SR/GAW/BI-02-C: a Write Request for handle 0x0000 is Invalid Handle")
    func writeOfHandleZeroIsInvalidHandle() async throws {
        var client = try await RawClient()
        let reply = try await client.exchange(ATTWriteRequest(handle: 0, value: [1, 2, 3]))
        #expect(reply == errorPDU(.writeRequest, 0, .invalidHandle))
    }

    @Test("GATT/SR/GAW/BI-03-C: a Write Request to a value without write permission is Write Not Permitted")
    func writeOfAReadOnlyValueIsWriteNotPermitted() async throws {
        var client = try await RawClient()
        let reply = try await client.exchange(ATTWriteRequest(handle: Self.deviceName, value: [1, 2, 3]))
        #expect(reply == errorPDU(.writeRequest, Self.deviceName, .writeNotPermitted))
    }

    @Test func aPrepareWriteToAReadOnlyValueIsWriteNotPermittedAndQueuesNothing() async throws {
        var client = try await RawClient()
        let reply = try await client.exchange(ATTPrepareWriteRequest(handle: Self.deviceName, offset: 0, value: [1]))
        #expect(reply == errorPDU(.prepareWriteRequest, Self.deviceName, .writeNotPermitted))
        #expect(await client.server.preparedWriteCount(for: client.connection) == 0)
    }

    @Test func aReadMultipleWithOneAbsentHandleIsInvalidHandleNamingIt() async throws {
        var client = try await RawClient()
        let reply = try await client.exchange(ATTReadMultipleRequest(handles: [Self.deviceName, 0x0F00]))
        #expect(reply == errorPDU(.readMultipleRequest, 0x0F00, .invalidHandle))
    }

    @Test func aResponseSentToTheServerIsIgnored() async throws {
        var client = try await RawClient()
        try await client.bearer.send(ATTReadResponse(value: [1, 2]).pduBytes())
        #expect(try await client.exchange(ATTReadRequest(handle: Self.deviceName)) == .readResponse(.init(value: Array("Harald".utf8))))
        #expect(await client.server.counters.ignoredPDUs == 1)
    }

    @Test func anEmptyPDUIsIgnored() async throws {
        var client = try await RawClient()
        try await client.bearer.send([])
        #expect(try await client.exchange(ATTReadRequest(handle: Self.deviceName)) == .readResponse(.init(value: Array("Harald".utf8))))
        #expect(await client.server.counters.ignoredPDUs == 1)
    }

    @Test func unknownRequestsAreRequestNotSupportedWhateverTheirOpcode() async throws {
        var client = try await RawClient()
        // Opcodes no ATT version defines, with bit 6 (Command) clear.
        for opcode: UInt8 in [0x24, 0x27, 0x3E] {
            #expect(try await client.exchange([opcode, 0x01, 0x00]) == [0x01, opcode, 0x00, 0x00, 0x06], "opcode 0x\(Hex.byte(opcode))")
        }
    }

    @Test func unknownCommandsAreIgnoredWhateverTheirOpcode() async throws {
        var client = try await RawClient()
        for opcode: UInt8 in [0x40, 0x7F, 0x64] { try await client.bearer.send([opcode, 0x01]) }
        #expect(try await client.exchange(ATTReadRequest(handle: Self.deviceName)) == .readResponse(.init(value: Array("Harald".utf8))))
        #expect(await client.server.counters.ignoredPDUs == 3)
    }

    @Test func anExecuteWriteWithNothingPreparedIsAnswered() async throws {
        var client = try await RawClient()
        #expect(try await client.exchange(ATTExecuteWriteRequest(flags: .write)) == .executeWriteResponse(.init()))
    }
}
