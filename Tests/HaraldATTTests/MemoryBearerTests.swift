import HaraldATT
import Testing

@Suite("In-memory ATT bearer: what each end sees")
struct MemoryBearerTests {
    @Test func anEndReleasedWithoutACloseIsALostLinkForItsPeer() async {
        var (first, second): (ATTMemoryBearer?, ATTMemoryBearer) = ATTMemoryBearer.pair()
        var events = second.events.makeAsyncIterator()
        #expect(first != nil)
        first = nil
        #expect(await events.next() == .closed(.linkLost(code: nil)))
        #expect(await events.next() == nil)
    }

    @Test func aCloseReachesThePeerAsClosedByPeerAndEndsBothStreams() async {
        let (first, second) = ATTMemoryBearer.pair()
        var own = first.events.makeAsyncIterator()
        var peer = second.events.makeAsyncIterator()
        await first.close(.closedLocally)
        #expect(await own.next() == .closed(.closedLocally))
        #expect(await own.next() == nil)
        #expect(await peer.next() == .closed(.closedByPeer))
        #expect(await peer.next() == nil)
    }
}
