import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldTestSupport
import Testing

/// No ATT PDU may be longer than the ATT_MTU in use: one that is fails the operation it answers
/// with a protocol violation naming the PDU and its length, and the client closes the bearer.
@Suite("GATT client: PDUs longer than the ATT_MTU")
struct StrictPDULengthTests {
    @Test func aReadResponseLongerThanTheMTUIsAViolationNamingItsLength() async throws {
        var link = ScriptedLink()
        let client = link.client
        let read = Task { try await client.read(handle: 3) }
        _ = await link.nextPDU()
        try await link.reply(ATTReadResponse(value: Array(repeating: 0xAB, count: 23)))
        let error = await #expect(throws: GATTError.self) { try await read.value }
        guard case .protocolViolation(let violation) = error else {
            Issue.record("expected a protocol violation, got \(String(describing: error))")
            return
        }
        #expect(violation.pdu == .readResponse)
        #expect(violation.handle == nil)
        #expect(violation.description.contains("24 bytes"), "\(violation)")
        #expect(violation.description.contains("ATT_MTU 23"), "\(violation)")
        #expect(await client.closeReason == .protocolViolation(violation.description))
        #expect(await link.nextPDU() == nil, "the peer sees the bearer close")
        #expect(await client.liveContinuations == 0)
    }

    @Test func aReadResponseOfExactlyTheMTUIsAccepted() async throws {
        var link = ScriptedLink()
        let client = link.client
        let read = Task { try await client.read(handle: 3) }
        _ = await link.nextPDU()
        // With its opcode, a response of exactly the default ATT_MTU (23 bytes).
        try await link.reply(ATTReadResponse(value: Array(repeating: 0xAB, count: 23 - 1)))
        #expect(try await read.value.count == 23 - 1)
        #expect(await client.isConnected)
    }

    @Test func operationsQueuedBehindTheOversizedResponseFailAsDisconnected() async throws {
        var link = ScriptedLink()
        let client = link.client
        let first = Task { try await client.read(handle: 3) }
        _ = await link.nextPDU()
        let second = Task { try await client.read(handle: 4) }
        await waitUntil { await client.liveContinuations >= 2 }
        try await link.reply(ATTReadResponse(value: Array(repeating: 0, count: 30)))
        let error = await #expect(throws: GATTError.self) { try await first.value }
        #expect(error?.isProtocolError == true)
        await #expect(throws: GATTError.disconnected) { try await second.value }
    }

    @Test func aNotificationLongerThanTheMTUClosesTheBearerAndIsNotDelivered() async throws {
        let link = ScriptedLink()
        let client = link.client
        let subscription = await client.subscribe(handle: 7)
        try await link.reply(ATTHandleValueNotification(handle: 7, value: Array(repeating: 1, count: 21)))
        var values = subscription.values.makeAsyncIterator()
        #expect(await values.next() == nil, "the stream ends with the bearer, without the value")
        guard case .protocolViolation(let detail)? = await client.closeReason else {
            Issue.record("closed for \(String(describing: await client.closeReason))")
            return
        }
        #expect(detail.contains("Handle Value Notification"), "\(detail)")
    }

    @Test func afterTheMTUExchangeTheLargerMTUIsTheLimit() async throws {
        var link = ScriptedLink(mtu: 100, configuration: .init(preferredMTU: 100))
        let client = link.client
        let exchange = Task { try await client.exchangeMTU() }
        _ = await link.nextPDU()
        try await link.reply(ATTExchangeMTUResponse(serverRxMTU: 64))
        #expect(try await exchange.value == 64)
        let fits = Task { try await client.read(handle: 3) }
        _ = await link.nextPDU()
        try await link.reply(ATTReadResponse(value: Array(repeating: 0, count: 63)))
        #expect(try await fits.value.count == 63)
        let tooLong = Task { try await client.read(handle: 3) }
        _ = await link.nextPDU()
        try await link.reply(ATTReadResponse(value: Array(repeating: 0, count: 64)))
        let error = await #expect(throws: GATTError.self) { try await tooLong.value }
        #expect(error?.description.contains("65 bytes, longer than ATT_MTU 64") == true, "\(String(describing: error))")
    }
}
