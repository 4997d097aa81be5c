import Testing

@testable import HaraldCore

@Suite("StreamBroadcast: every watcher's stream gets every element from its creation on")
struct StreamBroadcastTests {
    @Test func eachStreamGetsTheElementsYieldedAfterItWasMade() async {
        let broadcast = StreamBroadcast<Int>(bufferingNewest: 8)
        let early = broadcast.makeStream()
        broadcast.yield(1)
        let late = broadcast.makeStream()
        broadcast.yield(2)
        broadcast.finish()
        #expect(await Array(early) == [1, 2])
        #expect(await Array(late) == [2])
    }

    @Test func aStreamMadeAfterTheFinishEndsAtOnce() async {
        let broadcast = StreamBroadcast<Int>(bufferingNewest: 8)
        broadcast.finish()
        broadcast.yield(1)
        #expect(await Array(broadcast.makeStream()).isEmpty)
        #expect(broadcast.isFinished)
    }

    @Test func aSlowReaderKeepsOnlyTheNewestElements() async {
        let broadcast = StreamBroadcast<Int>(bufferingNewest: 3)
        let stream = broadcast.makeStream()
        for value in 1...10 { broadcast.yield(value) }
        broadcast.finish()
        #expect(await Array(stream) == [8, 9, 10])
    }

    @Test func aStreamWhoseReaderWentAwayLeavesTheTableAtOnce() {
        let broadcast = StreamBroadcast<Int>(bufferingNewest: 8)
        var stream: AsyncStream<Int>? = broadcast.makeStream()
        let kept = broadcast.makeStream()
        #expect(broadcast.liveStreams == 2)
        withExtendedLifetime(stream) {}
        stream = nil
        #expect(broadcast.liveStreams == 1)
        withExtendedLifetime(kept) {}
    }

    @Test func finishingTwiceIsHarmless() async {
        let broadcast = StreamBroadcast<Int>(bufferingNewest: 8)
        let stream = broadcast.makeStream()
        broadcast.finish()
        broadcast.finish()
        #expect(await Array(stream).isEmpty)
        #expect(broadcast.liveStreams == 0)
    }
}

extension Array where Element: Sendable {
    fileprivate init(_ stream: AsyncStream<Element>) async {
        var elements: [Element] = []
        for await element in stream { elements.append(element) }
        self = elements
    }
}
