import HaraldATT
import HaraldCodec
import Testing

/// Exchange MTU happens once per connection, however many callers ask for it.
@Suite("Exchange MTU")
struct MTUExchangeTests {
    /// Lets other tasks run until `client` holds `count` continuations, giving up after a bounded
    /// number of turns (so a client that never registers fails the test instead of hanging it).
    private func waitForContinuations(_ count: Int, on client: GATTClient) async {
        var turns = 0
        while await client.liveContinuations < count, turns < 1_000 {
            await Task.yield()
            turns += 1
        }
    }

    @Test func aCallWhileTheExchangeIsInFlightReturnsTheSettledMTU() async throws {
        var link = ScriptedLink(mtu: 247)
        let client = link.client
        let first = Task { try await client.exchangeMTU() }
        let request = await link.nextPDU()
        #expect(request == (try ATTExchangeMTURequest(clientRxMTU: 247).pduBytes()))
        let second = Task { try await client.exchangeMTU() }
        await waitForContinuations(2, on: client)
        try await link.reply(ATTExchangeMTUResponse(serverRxMTU: 100))
        #expect(try await first.value == 100)
        #expect(try await second.value == 100)
        let counters = await client.counters
        #expect(counters.pdusSent[.exchangeMTURequest] == 1)
        #expect(await client.liveContinuations == 0)
    }

    @Test func aCallWaitingForAnExchangeThatFailsGetsTheDefaultMTU() async throws {
        var link = ScriptedLink(mtu: 247)
        let client = link.client
        let first = Task { try await client.exchangeMTU() }
        _ = await link.nextPDU()
        let second = Task { try await client.exchangeMTU() }
        await waitForContinuations(2, on: client)
        try await link.reply(ATTErrorResponse(requestOpcode: .exchangeMTURequest, handle: 0, error: .requestNotSupported))
        await #expect(throws: GATTError.attribute(.requestNotSupported, handle: 0, request: .exchangeMTURequest)) { try await first.value }
        #expect(try await second.value == ATT.defaultMTU)
        #expect(await client.liveContinuations == 0)
    }

    @Test func aCallWaitingForTheExchangeFailsWhenTheLinkCloses() async throws {
        var link = ScriptedLink(mtu: 247)
        let client = link.client
        let first = Task { try await client.exchangeMTU() }
        _ = await link.nextPDU()
        let second = Task { try await client.exchangeMTU() }
        await waitForContinuations(2, on: client)
        await link.peer.close(.closedLocally)
        await #expect(throws: GATTError.disconnected) { try await first.value }
        await #expect(throws: GATTError.disconnected) { try await second.value }
        #expect(await client.liveContinuations == 0)
    }
}
