import Harald
import HaraldCore
import Testing

@testable import HaraldGATTLink

/// The ranges Service Changed indications named, kept until services are discovered again: a
/// peer decides how many indications it sends, so what they leave behind is bounded.
@Suite("Stale handle ranges after Service Changed")
struct StaleHandleRangesTests {
    static func range(_ start: UInt16, _ end: UInt16) -> ATTHandleRange { ATTHandleRange(start: start, end: end) }

    @Test func aHandleInAChangedRangeIsStaleUntilADiscoveryThatBeganAfterTheChange() {
        var stale = StaleHandleRanges()
        stale.add(Self.range(0x0010, 0x0020))
        #expect(stale.contains(0x0015))
        #expect(!stale.contains(0x0021))
        let discoveryBegan = stale.latestChange
        stale.clear(through: discoveryBegan)
        #expect(!stale.contains(0x0015))
        #expect(stale.count == 0)
    }

    @Test func aChangeDuringADiscoveryStaysStale() {
        var stale = StaleHandleRanges()
        stale.add(Self.range(0x0010, 0x0020))
        let discoveryBegan = stale.latestChange
        stale.add(Self.range(0x0030, 0x0040))  // arrives while the discovery runs
        stale.clear(through: discoveryBegan)
        #expect(!stale.contains(0x0015))
        #expect(stale.contains(0x0035))
    }

    @Test func pastTheLimitTheRangesCollapseIntoOneCoveringThemAll() {
        var stale = StaleHandleRanges()
        for index in 0..<(StaleHandleRanges.limit + 1) {
            let start = UInt16(0x0100 + index * 0x10)
            stale.add(Self.range(start, start + 4))
        }
        #expect(stale.count == 1)
        #expect(stale.contains(0x0100))
        #expect(stale.contains(0x0108))  // between two ranges: wider, never narrower
        #expect(stale.contains(UInt16(0x0100 + StaleHandleRanges.limit * 0x10 + 4)))
        #expect(!stale.contains(0x00FF))
    }

    @Test func aCollapsedRangeHoldingAChangeFromDuringADiscoveryStaysStale() {
        var stale = StaleHandleRanges()
        for index in 0..<StaleHandleRanges.limit { stale.add(Self.range(UInt16(index + 1), UInt16(index + 1))) }
        let discoveryBegan = stale.latestChange
        stale.add(Self.range(0x0200, 0x0210))  // the change past the limit, during the discovery
        stale.clear(through: discoveryBegan)
        #expect(stale.contains(0x0205))
    }

    @Test func tenThousandIndicationsWithoutADiscoveryKeepAtMostTheLimit() {
        var stale = StaleHandleRanges()
        var most = 0
        for index in 0..<10_000 {
            let start = UInt16(index + 1)
            stale.add(Self.range(start, start))
            most = max(most, stale.count)
        }
        #expect(most == StaleHandleRanges.limit)
    }

    @Test func aServiceChangeStreamNobodyReadsKeepsTheNewestChanges() async {
        let streams = StreamBroadcast<ServiceChange>(bufferingNewest: GATTConnection.changeBufferLimit)
        let stream = streams.makeStream()
        for index in 0..<100 { streams.yield(ServiceChange(handles: Self.range(UInt16(index + 1), UInt16(index + 1)))) }
        streams.finish()
        var received: [UInt16] = []
        for await change in stream { received.append(change.handles?.start ?? 0) }
        #expect(received == Array(UInt16(101 - GATTConnection.changeBufferLimit)...100))
    }
}
