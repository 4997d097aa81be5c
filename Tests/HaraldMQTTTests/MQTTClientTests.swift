import HaraldTestSupport
import Testing

@testable import HaraldMQTT
import HaraldMQTTTestSupport

/// The client against the in-process broker on loopback; waits, backoff and keep-alive on a
/// manual clock, every wait on an event (no sleeping); a hang guard turns a wait that never
/// ends into a failure.
@Suite struct MQTTClientTests {
    private func configuration(port: Int, id: String = "gateway", keepAlive: Duration = .zero, will: MQTTLastWill? = nil) -> MQTTClient.Configuration {
        MQTTClient.Configuration(host: "127.0.0.1", port: port, clientIdentifier: id, keepAlive: keepAlive, will: will)
    }

    private func published(_ events: [TestBroker.Event]) -> [MQTTPublish] {
        events.compactMap { if case .published(let publish) = $0 { publish } else { nil } }
    }

    @Test func aMessagePublishedByOneClientReachesAnotherClientsSubscription() async throws {
        try await withHangGuard {
            let broker = TestBroker()
            let port = try await broker.start()
            let gateway = MQTTClient(configuration: configuration(port: port), clock: ManualClock())
            let listener = MQTTClient(configuration: configuration(port: port, id: "listener"), clock: ManualClock())
            try await gateway.connect()
            try await listener.connect()
            let messages = try await listener.subscribe([MQTTTopicFilter("home/+/BTtoMQTT/#")])
            try await gateway.publish(topic: "home/kitchen/BTtoMQTT/A4C138000001", payload: Array("{}".utf8))
            var iterator = messages.makeAsyncIterator()
            let message = await iterator.next()
            #expect(message == MQTTMessage(topic: "home/kitchen/BTtoMQTT/A4C138000001", payload: Array("{}".utf8), retain: false, qos: .atMostOnce))
            await gateway.disconnect()
            await listener.disconnect()
            try await broker.stop()
        }
    }

    @Test func aQoS1PublishReturnsOnceTheBrokerAcknowledged() async throws {
        try await withHangGuard {
            let broker = TestBroker()
            let port = try await broker.start()
            let client = MQTTClient(configuration: configuration(port: port), clock: ManualClock())
            try await client.connect()
            try await client.publish(topic: "state", payload: [1], qos: .atLeastOnce)
            let publish = try #require(published(broker.events).first)
            #expect(publish.qos == .atLeastOnce)
            #expect(publish.packetIdentifier != nil)
            await client.disconnect()
            try await broker.stop()
        }
    }

    @Test func aQoS1PublishWithoutItsPubAckIsStillWaitingWhenTheClientDisconnects() async throws {
        try await withHangGuard {
            let broker = TestBroker()
            broker.acknowledgesPublishes = false
            let port = try await broker.start()
            let client = MQTTClient(configuration: configuration(port: port), clock: ManualClock())
            try await client.connect()
            let publishing = Task { try await client.publish(topic: "state", payload: [1], qos: .atLeastOnce) }
            await broker.waitUntil { self.published($0).count == 1 }
            await client.disconnect()
            await #expect(throws: MQTTClientError.disconnected) { try await publishing.value }
            try await broker.stop()
        }
    }

    @Test func aRetainedMessageArrivesFlaggedRetainedOnALaterSubscription() async throws {
        try await withHangGuard {
            let broker = TestBroker()
            let port = try await broker.start()
            let client = MQTTClient(configuration: configuration(port: port), clock: ManualClock())
            try await client.connect()
            try await client.publish(topic: "home/kitchen/LWT", payload: Array("online".utf8), qos: .atLeastOnce, retain: true)
            var iterator = try await client.subscribe([MQTTTopicFilter("home/kitchen/LWT")]).makeAsyncIterator()
            #expect(await iterator.next()?.retain == true)
            await client.disconnect()
            try await broker.stop()
        }
    }

    @Test func messagesPublishedWhileTheBrokerIsAwayAreSentInOrderAfterReconnecting() async throws {
        try await withHangGuard {
            let broker = TestBroker()
            let port = try await broker.start()
            let clock = ManualClock()
            let client = MQTTClient(configuration: configuration(port: port), clock: clock)
            try await client.connect()
            try await broker.stop()
            await client.waitUntilDisconnected()
            try await client.publish(topic: "a/1", payload: [1], delivery: .droppable)
            try await client.publish(topic: "a/2", payload: [2], qos: .atLeastOnce, delivery: .kept)
            try await client.publish(topic: "a/3", payload: [3], delivery: .droppable)
            #expect(await client.queuedMessageCount == 3)
            try await broker.start(port: port)
            await clock.waitForSleepers(atLeast: 1)
            clock.advance(by: .seconds(60))
            try await client.waitUntilConnected()
            await broker.waitUntil { self.published($0).count == 3 }
            #expect(published(broker.events).map(\.topic) == ["a/1", "a/2", "a/3"])
            #expect(await client.queuedMessageCount == 0)
            await client.disconnect()
            try await broker.stop()
        }
    }

    @Test func theOldestAdvertisementIsDroppedAndCountedWhenTheirShareIsFull() async throws {
        try await withHangGuard {
            let broker = TestBroker()
            let port = try await broker.start()
            let clock = ManualClock()
            var configuration = configuration(port: port)
            configuration.droppableQueueLimit = 2
            let client = MQTTClient(configuration: configuration, clock: clock)
            try await client.connect()
            try await broker.stop()
            await client.waitUntilDisconnected()
            try await client.publish(topic: "adv/1", payload: [1], delivery: .droppable)
            try await client.publish(topic: "state/1", payload: [9], delivery: .kept)
            try await client.publish(topic: "adv/2", payload: [2], delivery: .droppable)
            try await client.publish(topic: "adv/3", payload: [3], delivery: .droppable)
            #expect(await client.droppedMessageCount == 1)
            try await broker.start(port: port)
            await clock.waitForSleepers(atLeast: 1)
            clock.advance(by: .seconds(60))
            await broker.waitUntil { self.published($0).count == 3 }
            #expect(published(broker.events).map(\.topic) == ["state/1", "adv/2", "adv/3"])
            await client.disconnect()
            try await broker.stop()
        }
    }

    @Test func keptMessagesAreNeverDroppedAndAFullShareThrows() async throws {
        try await withHangGuard {
            let broker = TestBroker()
            let port = try await broker.start()
            var configuration = configuration(port: port)
            configuration.keptQueueLimit = 1
            let client = MQTTClient(configuration: configuration, clock: ManualClock())
            try await client.connect()
            try await broker.stop()
            await client.waitUntilDisconnected()
            try await client.publish(topic: "state/1", payload: [1], delivery: .kept)
            await #expect(throws: MQTTClientError.queueFull(limit: 1)) { try await client.publish(topic: "state/2", payload: [2], delivery: .kept) }
            #expect(await client.droppedMessageCount == 0)
            #expect(await client.queuedMessageCount == 1)
            await client.disconnect()
        }
    }

    @Test func aCleanDisconnectSendsDisconnectSoTheWillIsNotPublished() async throws {
        try await withHangGuard {
            let broker = TestBroker()
            let port = try await broker.start()
            let will = MQTTLastWill(topic: "home/kitchen/LWT", payload: Array("offline".utf8))
            let client = MQTTClient(configuration: configuration(port: port, will: will), clock: ManualClock())
            try await client.connect()
            await client.disconnect()
            await broker.waitUntil { $0.contains(.connectionClosed(clientIdentifier: "gateway")) }
            #expect(broker.events.contains(.disconnectedCleanly(clientIdentifier: "gateway")))
            #expect(!broker.events.contains(.willPublished(will)))
            try await broker.stop()
        }
    }

    @Test func aMissingPingResponseClosesTheConnectionAndTheClientReconnects() async throws {
        try await withHangGuard {
            let broker = TestBroker(answersPings: false)
            let port = try await broker.start()
            let clock = ManualClock()
            let client = MQTTClient(configuration: configuration(port: port, keepAlive: .seconds(5)), clock: clock)
            try await client.connect()
            await clock.waitForSleepers(atLeast: 1)
            clock.advance(by: .seconds(5))
            await broker.waitUntil { $0.contains(.pinged) }
            await clock.waitForSleepers(atLeast: 1)
            clock.advance(by: .seconds(5))
            await broker.waitUntil { $0.contains(.connectionClosed(clientIdentifier: "gateway")) }
            await clock.waitForSleepers(atLeast: 1)
            clock.advance(by: .seconds(1))
            await broker.waitUntil { events in events.filter { $0 == .connected(clientIdentifier: "gateway") }.count == 2 }
            await client.disconnect()
            try await broker.stop()
        }
    }

    @Test func anUnacknowledgedQoS1MessageIsResentWithDupAfterReconnecting() async throws {
        try await withHangGuard {
            let broker = TestBroker()
            broker.acknowledgesPublishes = false
            let port = try await broker.start()
            let clock = ManualClock()
            let client = MQTTClient(configuration: configuration(port: port), clock: clock)
            try await client.connect()
            let publishing = Task { try await client.publish(topic: "state", payload: [1], qos: .atLeastOnce) }
            await broker.waitUntil { self.published($0).count == 1 }
            try await broker.stop()
            broker.acknowledgesPublishes = true
            try await broker.start(port: port)
            await clock.waitForSleepers(atLeast: 1)
            clock.advance(by: .seconds(60))
            try await publishing.value
            let sent = published(broker.events)
            #expect(sent.map(\.duplicate) == [false, true])
            #expect(sent[0].packetIdentifier == sent[1].packetIdentifier)
            await client.disconnect()
            try await broker.stop()
        }
    }

    @Test func theBirthMessageIsPublishedOnEveryConnectionBeforeTheQueuedMessages() async throws {
        try await withHangGuard {
            let broker = TestBroker()
            let port = try await broker.start()
            let clock = ManualClock()
            var configuration = configuration(port: port)
            configuration.birth = MQTTLastWill(topic: "home/hall/LWT", payload: Array("online".utf8))
            let client = MQTTClient(configuration: configuration, clock: clock)
            try await client.connect()
            await broker.waitUntil { self.published($0).count == 1 }
            try await broker.stop()
            await client.waitUntilDisconnected()
            try await client.publish(topic: "home/hall/BTtoMQTT/A4C1380B0C0D", payload: [1], delivery: .droppable)
            try await broker.start(port: port)
            await clock.waitForSleepers(atLeast: 1)
            clock.advance(by: .seconds(60))
            try await client.waitUntilConnected()
            await broker.waitUntil { self.published($0).count == 3 }
            let sent = published(broker.events)
            #expect(sent.map(\.topic) == ["home/hall/LWT", "home/hall/LWT", "home/hall/BTtoMQTT/A4C1380B0C0D"])
            #expect(sent[0].retain && sent[1].retain)
            #expect(sent[1].payload == Array("online".utf8))
            await client.disconnect()
            try await broker.stop()
        }
    }

    @Test func theConnectionCountGrowsWithEachConnectionTheBrokerAccepts() async throws {
        try await withHangGuard {
            let broker = TestBroker()
            let port = try await broker.start()
            let clock = ManualClock()
            let client = MQTTClient(configuration: configuration(port: port), clock: clock)
            #expect(await client.connectionCount == 0)
            try await client.connect()
            #expect(await client.connectionCount == 1)
            try await broker.stop()
            await client.waitUntilDisconnected()
            try await broker.start(port: port)
            await clock.waitForSleepers(atLeast: 1)
            clock.advance(by: .seconds(60))
            try await client.waitUntilConnected()
            #expect(await client.connectionCount == 2)
            await client.disconnect()
            try await broker.stop()
        }
    }
}
