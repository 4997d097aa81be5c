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
