@testable import Harald
import Testing

@Suite("Value update streams")
struct ValueUpdatesTests {
    /// Records whether an end handler ran.
    private final class Ran: @unchecked Sendable {
        // @unchecked Sendable: the tests set and read it on one task, in sequence.
        var value = false
    }

    @Test func releasingTheStreamEndsItForTheProducer() {
        let ran = Ran()
        var continuation: ValueUpdates.Continuation?
        do {
            let (updates, source) = ValueUpdates.makeStream(buffering: .default)
            continuation = source
            source.onTermination { ran.value = true }
            _ = updates.droppedCount
        }
        #expect(ran.value)
        #expect(continuation?.yield([1]) == false)
    }

    @Test func cancellingAWaitingConsumerEndsTheStream() async {
        let (updates, source) = ValueUpdates.makeStream(buffering: .default)
        let consumer = Task {
            var count = 0
            for await _ in updates { count += 1 }
            return count
        }
        consumer.cancel()
        #expect(await consumer.value == 0)
        #expect(source.yield([1]) == false)
    }

    @Test func oldestBufferingKeepsTheFirstValuesAndCountsTheRest() async {
        let (updates, source) = ValueUpdates.makeStream(buffering: .oldest(2))
        for value in UInt8(1)...4 { source.yield([value]) }
        source.finish()
        var seen: [[UInt8]] = []
        for await value in updates { seen.append(value) }
        #expect(seen == [[1], [2]])
        #expect(updates.droppedCount == 2)
    }

    @Test func newestBufferingKeepsTheLastValuesAndCountsTheDisplacedOnes() async {
        let (updates, source) = ValueUpdates.makeStream(buffering: .newest(2))
        for value in UInt8(1)...5 { source.yield([value]) }
        source.finish()
        var seen: [[UInt8]] = []
        for await value in updates { seen.append(value) }
        #expect(seen == [[4], [5]])
        #expect(updates.droppedCount == 3)
    }

    @Test func unboundedBufferingKeepsEveryValueInOrder() async {
        let (updates, source) = ValueUpdates.makeStream(buffering: .unbounded)
        for value in 0..<10_000 { source.yield([UInt8(truncatingIfNeeded: value), UInt8(value >> 8)]) }
        source.finish()
        var seen: [[UInt8]] = []
        for await value in updates { seen.append(value) }
        #expect(seen == (0..<10_000).map { [UInt8(truncatingIfNeeded: $0), UInt8($0 >> 8)] })
    }

    @Test func unboundedBufferingDropsNothing() {
        let (updates, source) = ValueUpdates.makeStream(buffering: .unbounded)
        for value in 0..<10_000 { source.yield([UInt8(truncatingIfNeeded: value)]) }
        #expect(updates.droppedCount == 0)
    }

    @Test(arguments: [UpdateBuffering.newest(4), .oldest(4), .unbounded])
    func nothingIsCountedAsDroppedWhileTheBufferHasRoom(buffering: UpdateBuffering) {
        let (updates, source) = ValueUpdates.makeStream(buffering: buffering)
        for value in UInt8(1)...4 { source.yield([value]) }
        #expect(updates.droppedCount == 0)
    }

    @Test(arguments: [UpdateBuffering.newest(4), .oldest(4)])
    func everyValueBeyondABoundedBufferIsCounted(buffering: UpdateBuffering) {
        let (updates, source) = ValueUpdates.makeStream(buffering: buffering)
        for value in 0..<1_000 { source.yield([UInt8(truncatingIfNeeded: value)]) }
        #expect(updates.droppedCount == 1_000 - 4)
    }

    @Test(arguments: [UpdateBuffering.newest(8), .oldest(8), .unbounded])
    func valuesAlreadyTakenAreReleasedWhileTheConsumerStaysBehind(buffering: UpdateBuffering) async {
        let (updates, source) = ValueUpdates.makeStream(buffering: buffering)
        var iterator = updates.makeAsyncIterator()
        // Three values always wait, so the buffer never runs empty.
        for value in UInt8(0)..<3 { source.yield([value]) }
        for value in 0..<10_000 {
            source.yield([UInt8(truncatingIfNeeded: value)])
            _ = await iterator.next()
        }
        #expect(updates.heldSlotCount < 200)
    }

    @Test(arguments: [UpdateBuffering.newest(4), .oldest(4), .unbounded])
    func aFloodedStreamStillEndsWithTheProducersError(buffering: UpdateBuffering) async {
        let (updates, source) = ValueUpdates.makeStream(buffering: buffering)
        for value in 0..<10_000 { source.yield([UInt8(truncatingIfNeeded: value)]) }
        source.finish(throwing: .disconnected(.connectionLost))
        var count = 0
        for await _ in updates { count += 1 }
        #expect(count + updates.droppedCount == 10_000)
        #expect(updates.endError == .disconnected(.connectionLost))
    }

    @Test func valuesQueuedBeforeTheFinishAreStillDelivered() async {
        let (updates, source) = ValueUpdates.makeStream(buffering: .newest(8))
        source.yield([1])
        source.finish(throwing: .disconnected(.connectionLost))
        var seen: [[UInt8]] = []
        for await value in updates { seen.append(value) }
        #expect(seen == [[1]])
        #expect(updates.endError == .disconnected(.connectionLost))
    }
}
