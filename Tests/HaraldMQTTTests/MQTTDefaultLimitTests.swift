import HaraldTestSupport
import Testing

@testable import HaraldMQTT
import HaraldMQTTTestSupport

/// The MQTT client's bounds at their defaults (RELIABILITY.md, "Bounded resources").
@Suite struct MQTTDefaultLimitTests {
    /// A client at the default limits that was connected and whose broker has gone.
    private func clientWhoseBrokerIsAway() async throws -> MQTTClient {
        let broker = TestBroker()
        let port = try await broker.start()
        let client = MQTTClient(
            configuration: MQTTClient.Configuration(host: "127.0.0.1", port: port, clientIdentifier: "limits", keepAlive: .zero),
            clock: ManualClock())
        try await client.connect()
        try await broker.stop()
        await client.waitUntilDisconnected()
        return client
    }

    @Test func whileTheBrokerIsAwayTheClientHolds1000DroppableMessagesAndDropsTheOldestAfter() async throws {
        try await withHangGuard {
            let client = try await clientWhoseBrokerIsAway()
            for index in 0..<1_000 { try await client.publish(topic: "adv/\(index)", payload: [1], delivery: .droppable) }
            #expect(await client.droppedMessageCount == 0)
            try await client.publish(topic: "adv/1000", payload: [1], delivery: .droppable)
            #expect(await client.droppedMessageCount == 1)
            #expect(await client.queuedMessageCount == 1_000)
            await client.disconnect()
        }
    }

    @Test func whileTheBrokerIsAwayTheClientHolds1000KeptMessagesAndRefusesTheNext() async throws {
        try await withHangGuard {
            let client = try await clientWhoseBrokerIsAway()
            for index in 0..<1_000 { try await client.publish(topic: "state/\(index)", payload: [1], delivery: .kept) }
            await #expect(throws: MQTTClientError.queueFull(limit: 1_000)) {
                try await client.publish(topic: "state/1000", payload: [1], delivery: .kept)
            }
            await client.disconnect()
        }
    }

    @Test func aSubscriptionHoldsTheNewest1000MessagesForASlowReaderByDefault() {
        #expect(MQTTClient.Configuration(host: "127.0.0.1", clientIdentifier: "limits").subscriptionBufferLimit == 1_000)
    }

    @Test func theClientAcceptsPacketsOfUpTo1048576BytesByDefault() {
        #expect(MQTTClient.Configuration(host: "127.0.0.1", clientIdentifier: "limits").maximumPacketSize == 1_048_576)
    }

    @Test func aConnectionHoldsAtMost4096PacketsTheClientHasNotTakenYet() {
        #expect(MQTTConnection.inboundLimit == 4_096)
    }
}
