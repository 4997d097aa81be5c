import HaraldATT
import HaraldCore
import HaraldTestSupport
import Testing

/// The link's serial domain in these tests: the bearer yields on it, and the client runs on it.
private actor LinkDomain {
    var inbox: ATTEventInbox?

    func attach(_ inbox: ATTEventInbox) { self.inbox = inbox }

    /// Closes the bearer's side: the client's reader gets the close and ends.
    func close(_ reason: ATTCloseReason) {
        inbox?.yield(.closed(reason))
        inbox?.finish()
    }

    /// Yields `events` in one job, as the HCI host yields the SDUs of one batch of ACL data, and
    /// says how many of `client`'s requests were still unanswered right after (in the same job).
    func yield(_ events: [ATTBearerEvent], thenCountUnansweredOf client: GATTClient) -> Int {
        for event in events { inbox?.yield(event) }
        return client.assumeIsolated { $0.liveContinuations }
    }
}

/// A bearer whose events are yielded by the test on a `LinkDomain`, and which says so through
/// `deliveryDomain` when asked to.
private final class DomainBearer: ATTInboxBearer {
    let localMTU = 23
    let domain: LinkDomain
    let declaresDomain: Bool
    let sent: AsyncStream<[UInt8]>
    private let sentContinuation: AsyncStream<[UInt8]>.Continuation

    init(domain: LinkDomain, declaresDomain: Bool) {
        self.domain = domain
        self.declaresDomain = declaresDomain
        (sent, sentContinuation) = AsyncStream.makeStream()
    }

    var deliveryDomain: (any Actor)? { declaresDomain ? domain : nil }
    var events: AsyncStream<ATTBearerEvent> { AsyncStream { $0.finish() } }

    func deliverEvents(to inbox: ATTEventInbox) {
        let domain = domain
        Task { await domain.attach(inbox) }
    }

    nonisolated(nonsending) func send(_ pdu: [UInt8]) async throws(ATTBearerError) { sentContinuation.yield(pdu) }
    nonisolated(nonsending) func close(_ reason: ATTCloseReason) async { await domain.close(reason) }
    nonisolated(nonsending) func didNegotiateMTU(_ mtu: Int) async {}
}

/// A response that arrives on the client's own executor is handed to the waiting request
/// synchronously, in the bearer's yield, through one receive entry (no reader job), and never
/// ahead of an event the reader has still to handle.
@Suite("GATT client: responses on the link's executor")
struct DirectResponseTests {
    /// A client on `domain` with a Read Request for handle 3 in flight.
    private func readInFlight(declaresDomain: Bool) async -> (LinkDomain, GATTClient, Task<[UInt8], any Error>) {
        let domain = LinkDomain()
        let bearer = DomainBearer(domain: domain, declaresDomain: declaresDomain)
        let client = GATTClient(bearer: bearer, clock: ManualClock(), serialDomain: domain)
        let read = Task { try await client.read(handle: 3) }
        var sent = bearer.sent.makeAsyncIterator()
        #expect(await sent.next() == [0x0A, 0x03, 0x00])
        while await domain.inbox == nil { await Task.yield() }
        return (domain, client, read)
    }

    @Test func aResponseYieldedOnTheClientsExecutorAnswersItsRequestBeforeTheYieldReturns() async throws {
        let (domain, client, read) = await readInFlight(declaresDomain: true)
        #expect(await domain.yield([.received([0x0B, 0x01, 0x02])], thenCountUnansweredOf: client) == 0)
        #expect(try await read.value == [0x01, 0x02])
        await client.disconnect()
    }

    @Test func aResponseFromABearerThatYieldsElsewhereWaitsForTheReader() async throws {
        let (domain, client, read) = await readInFlight(declaresDomain: false)
        #expect(await domain.yield([.received([0x0B, 0x01, 0x02])], thenCountUnansweredOf: client) == 1)
        #expect(try await read.value == [0x01, 0x02])
        await client.disconnect()
    }

    @Test func aResponseQueuesBehindAnEventTheReaderHasNotHandled() async throws {
        let (domain, client, read) = await readInFlight(declaresDomain: true)
        let unanswered = await domain.yield([.mtuChanged(100), .received([0x0B, 0x01, 0x02])], thenCountUnansweredOf: client)
        #expect(unanswered == 1)
        #expect(try await read.value == [0x01, 0x02])
        #expect(await client.mtu == 100)
        // The reader has caught up: the next response is taken directly again.
        let second = Task { try await client.read(handle: 3) }
        while await client.counters.totalPDUsSent < 2 { await Task.yield() }
        #expect(await domain.yield([.received([0x0B, 0x07])], thenCountUnansweredOf: client) == 0)
        #expect(try await second.value == [0x07])
        await client.disconnect()
    }

    @Test func aMalformedResponseTakenDirectlyFailsItsRequest() async {
        let (domain, client, read) = await readInFlight(declaresDomain: true)
        // A Read By Type Response cannot answer a Read Request.
        #expect(await domain.yield([.received([0x09, 0x03, 0x01, 0x00, 0x05])], thenCountUnansweredOf: client) == 0)
        await #expect(throws: GATTError.self) { try await read.value }
        await client.disconnect()
    }
}
