import Foundation
import HaraldCore
import Testing

/// The one bounded inbox of the lower layers: producers on any thread, one consumer task.
@Suite("Inbox", .timeLimit(.minutes(1)))
struct InboxTests {
    struct Broken: Error, Equatable {}

    /// Polls `condition` while yielding to other tasks, for at most 30 s.
    func eventually(_ condition: () -> Bool) async {
        let start = ContinuousClock.now
        while !condition(), ContinuousClock.now - start < .seconds(30) { try? await Task.sleep(for: .milliseconds(2)) }
    }

    @Test func elementsComeOutInTheOrderTheyWentIn() async throws {
        let inbox = Inbox<Int, Broken>(capacity: 10)
        for value in 1...5 { #expect(inbox.yield(value) == .accepted) }
        inbox.finish()
        var seen: [Int] = []
        for try await value in inbox { seen.append(value) }
        #expect(seen == [1, 2, 3, 4, 5])
    }

    @Test func aFullInboxRefusesWithoutBlocking() {
        let inbox = Inbox<Int, Broken>(capacity: 2)
        #expect(inbox.yield(1) == .accepted)
        #expect(inbox.yield(2) == .accepted)
        #expect(inbox.yield(3) == .full)
        #expect(inbox.count == 2)
    }

    @Test func aFinishedInboxRefusesAndHandsOverWhatWasQueuedFirst() async throws {
        let inbox = Inbox<Int, Broken>(capacity: 4)
        inbox.yield(7)
        inbox.finish()
        #expect(inbox.yield(8) == .finished)
        #expect(try await inbox.next() == 7)
        #expect(try await inbox.next() == nil)
        #expect(try await inbox.next() == nil)
    }

    @Test func aFailureIsThrownAfterTheQueuedElements() async throws {
        let inbox = Inbox<Int, Broken>(capacity: 4)
        inbox.yield(1)
        inbox.finish(throwing: Broken())
        inbox.finish()  // only the first end counts
        #expect(try await inbox.next() == 1)
        await #expect(throws: Broken.self) { try await inbox.next() }
    }

    @Test func aWaitingConsumerIsHandedTheNextElement() async throws {
        let inbox = Inbox<Int, Broken>(capacity: 1)
        let consumer = Task { try await inbox.next() }
        // The consumer waits (it has no element yet); the yield hands one straight over, even to
        // an inbox of capacity 1 that could also have queued it.
        try await Task.sleep(for: .milliseconds(20))
        #expect(inbox.yield(42) == .accepted)
        #expect(try await consumer.value == 42)
        #expect(inbox.count == 0)
    }

    @Test func cancellingTheWaitingConsumerEndsItsWaitWithNil() async throws {
        let inbox = Inbox<Int, Broken>(capacity: 4)
        let consumer = Task { try await inbox.next() }
        try await Task.sleep(for: .milliseconds(20))
        consumer.cancel()
        #expect(try await consumer.value == nil)
        // The inbox itself is still open: a later element is queued for the next read.
        #expect(inbox.yield(5) == .accepted)
        #expect(try await inbox.next() == 5)
    }

    @Test func takingAfterARefusalCallsRoomAvailableOnce() async throws {
        let calls = Locked(0)
        let inbox = Inbox<Int, Broken>(capacity: 2) { calls.withLock { $0 += 1 } }
        inbox.yield(1)
        inbox.yield(2)
        #expect(inbox.yield(3) == .full)
        #expect(inbox.yield(4) == .full)
        #expect(calls.value == 0)
        #expect(try await inbox.next() == 1)
        #expect(calls.value == 1)
        #expect(try await inbox.next() == 2)
        #expect(calls.value == 1)  // no refusal since the last take
    }

    @Test func takingWithoutAnyRefusalNeverCallsRoomAvailable() async throws {
        let calls = Locked(0)
        let inbox = Inbox<Int, Broken>(capacity: 2) { calls.withLock { $0 += 1 } }
        for value in 0..<10 {
            inbox.yield(value)
            #expect(try await inbox.next() == value)
        }
        #expect(calls.value == 0)
    }

    @Test func aLongRunOfElementsKeepsOrderAcrossTheQueuesCompaction() async throws {
        let inbox = Inbox<Int, Broken>(capacity: 10_000)
        for value in 0..<5_000 { inbox.yield(value) }
        var seen: [Int] = []
        for _ in 0..<3_000 { seen.append(try await inbox.next()!) }
        for value in 5_000..<6_000 { inbox.yield(value) }
        inbox.finish()
        while let value = try await inbox.next() { seen.append(value) }
        #expect(seen == Array(0..<6_000))
    }

    @Test func aProducerThreadThatHoldsBackRefusedElementsPassesEveryElementInOrder() async throws {
        // The socket transports' discipline: keep what a full inbox refused, wait for room, go on.
        let room = NSCondition()
        let inbox = Inbox<Int, Broken>(capacity: 8) {
            room.lock()
            room.signal()
            room.unlock()
        }
        let thread = Thread {
            var value = 0
            while value < 20_000 {
                room.lock()
                while inbox.yield(value) == .full { _ = room.wait(until: Date(timeIntervalSinceNow: 0.01)) }
                room.unlock()
                value += 1
            }
            inbox.finish()
        }
        thread.start()
        var expected = 0
        for try await value in inbox {
            #expect(value == expected)
            expected += 1
        }
        #expect(expected == 20_000)
    }
}
