import Testing

@testable import HaraldMQTT

/// The client's pure parts: backoff schedule, outgoing queue, topic filter matching.
@Suite struct MQTTClientPartsTests {
    @Test func backoffDoublesFromTheInitialWaitUpToTheMaximum() {
        let backoff = MQTTBackoff(initial: .seconds(1), maximum: .seconds(60))
        #expect((1...8).map { backoff.delay(afterFailures: $0) } == [1, 2, 4, 8, 16, 32, 60, 60].map { Duration.seconds($0) })
        #expect(backoff.delay(afterFailures: 1_000_000) == .seconds(60))
    }

    @Test func backoffNeverWaitsLessThanTheInitialWait() {
        #expect(MQTTBackoff(initial: .seconds(5), maximum: .seconds(1)).delay(afterFailures: 3) == .seconds(5))
    }

    @Test func theQueueDropsTheOldestDroppableMessageAndCountsIt() throws {
        var queue = MQTTOutgoingQueue(droppableLimit: 2, keptLimit: 2)
        for topic in ["adv/1", "adv/2"] { try queue.enqueue(MQTTPublish(topic: topic, payload: []), delivery: .droppable) }
        try queue.enqueue(MQTTPublish(topic: "state/1", payload: []), delivery: .kept)
        try queue.enqueue(MQTTPublish(topic: "adv/3", payload: []), delivery: .droppable)
        #expect(queue.entries.map(\.publish.topic) == ["adv/2", "state/1", "adv/3"])
        #expect(queue.droppedCount == 1)
    }

    @Test func theQueueRefusesAKeptMessageOverItsShareAndDropsNothing() throws {
        var queue = MQTTOutgoingQueue(droppableLimit: 2, keptLimit: 1)
        try queue.enqueue(MQTTPublish(topic: "state/1", payload: []), delivery: .kept)
        #expect(throws: MQTTClientError.queueFull(limit: 1)) { try queue.enqueue(MQTTPublish(topic: "state/2", payload: []), delivery: .kept) }
        #expect(queue.entries.count == 1)
        #expect(queue.droppedCount == 0)
    }

    @Test func plusMatchesExactlyOneLevel() {
        let filter = MQTTTopicFilter("home/+/BTtoMQTT")
        #expect(filter.matches(topic: "home/kitchen/BTtoMQTT"))
        #expect(!filter.matches(topic: "home/kitchen/hall/BTtoMQTT"))
        #expect(!filter.matches(topic: "home/BTtoMQTT"))
    }

    @Test func hashMatchesTheParentAndEveryLevelBelow() {
        let filter = MQTTTopicFilter("home/#")
        #expect(filter.matches(topic: "home"))
        #expect(filter.matches(topic: "home/a/b"))
        #expect(!filter.matches(topic: "house/a"))
    }

    @Test func wildcardsDoNotMatchDollarTopics() {
        #expect(!MQTTTopicFilter("#").matches(topic: "$SYS/broker/uptime"))
        #expect(MQTTTopicFilter("$SYS/#").matches(topic: "$SYS/broker/uptime"))
    }
}
