import Foundation
import HaraldCore
import HaraldFleet
import HaraldGateway
import HaraldMQTTTestSupport
import HaraldTestSupport

@testable import HaraldMQTT

/// A fleet view on the loopback broker, its time on a manual clock, and gateways that are plain
/// MQTT clients publishing reports by hand (in Theengs' layout). Every wait is on an event: a
/// message the fleet has read, a message the broker saw, a tick the clock ran.
actor FleetHarness {
    let broker: TestBroker
    let port: Int
    /// The fleet's clock: report times and ticks.
    let clock = ManualClock()
    /// The gateways' clock, never advanced (a killed gateway does not reconnect).
    private let gatewayClock = ManualClock()
    let fleet: FleetView
    private let running: Task<Void, any Error>
    private var gateways: [String: MQTTClient] = [:]
    /// Messages the fleet should have read so far (each publish it subscribes to counts one).
    private var expectedMessages = 0
    private var stopped = false

    init(policy: FleetPolicy = FleetPolicy(smoothingFactor: 1), publishing: FleetPublishingPolicy = FleetPublishingPolicy()) async throws {
        broker = TestBroker()
        port = try await broker.start()
        fleet = FleetView(
            broker: MQTTClient.Configuration(host: "127.0.0.1", port: port, clientIdentifier: "fleet", keepAlive: .zero), policy: policy,
            publishing: publishing, clock: clock)
        let fleet = fleet
        running = Task { try await fleet.run() }
        // The fleet's own retained `online` comes back on its subscription: its first message.
        expectedMessages = 1
        await fleet.waitForMessages(atLeast: 1)
        await clock.waitForSleepers(atLeast: 1)
    }

    /// A gateway named `name` connected with its will (`offline`) and birth (`online`).
    @discardableResult
    func connectGateway(_ name: String) async throws -> MQTTClient {
        let topics = GatewayTopics(gateway: name)
        let client = MQTTClient(
            configuration: MQTTClient.Configuration(
                host: "127.0.0.1", port: port, clientIdentifier: name, keepAlive: .zero,
                will: MQTTLastWill(topic: topics.availability, payload: Array("offline".utf8)),
                birth: MQTTLastWill(topic: topics.availability, payload: Array("online".utf8))),
            clock: gatewayClock)
        try await client.connect()
        gateways[name] = client
        try await settle(adding: 1)
        return client
    }

    /// `gateway` reports the device `id` heard at `rssi` dBm (Harald's keys), and the fleet reads it.
    func report(_ gateway: String, _ id: String, rssi: Int, addressType: String = "public") async throws {
        let payload = #"{"id":"\#(id)","address_type":"\#(addressType)","rssi":\#(rssi),"gateway":"\#(gateway)","temperature":21.5}"#
        try await publish(gateway, topic: "home/\(gateway)/BTtoMQTT/\(id.filter { $0 != ":" }.uppercased())", payload: payload)
    }

    /// `gateway` publishes `payload` on `topic` (QoS 1), and the fleet reads it.
    func publish(_ gateway: String, topic: String, payload: String, retain: Bool = false) async throws {
        let client = try await existingOrNew(gateway)
        try await client.publish(topic: topic, payload: Array(payload.utf8), qos: .atLeastOnce, retain: retain)
        try await settle(adding: 1)
    }

    /// Kills `gateway`'s connection without DISCONNECT (its will goes out), and the fleet reads the will.
    func kill(_ gateway: String) async throws {
        await gateways[gateway]?.killConnection()
        try await settle(adding: 1)
    }

    /// Advances the fleet's clock by `duration` and returns once the tick it woke has run.
    func advance(by duration: Duration) async {
        clock.advance(by: duration)
        await clock.waitForSleepers(atLeast: 1)
    }

    /// The fleet's publications on `topic`, in order.
    nonisolated func published(on topic: String) -> [MQTTPublish] {
        Self.published(broker.events, on: topic)
    }

    /// Returns once the broker saw a publication on `topic` that satisfies `condition`.
    nonisolated func waitForPublication(on topic: String, _ condition: @escaping @Sendable (MQTTPublish) -> Bool) async {
        await broker.waitUntil { Self.published($0, on: topic).contains(where: condition) }
    }

    /// Cancels the fleet (it publishes `offline` and disconnects), disconnects the gateways and
    /// stops the broker; once.
    func stop() async throws {
        guard !stopped else { return }
        stopped = true
        running.cancel()
        try await running.value
        for client in gateways.values { await client.disconnect() }
        try await broker.stop()
    }

    private func existingOrNew(_ gateway: String) async throws -> MQTTClient {
        if let client = gateways[gateway] { return client }
        return try await connectGateway(gateway)
    }

    private func settle(adding count: Int) async throws {
        expectedMessages += count
        await fleet.waitForMessages(atLeast: expectedMessages)
    }

    private static func published(_ events: [TestBroker.Event], on topic: String) -> [MQTTPublish] {
        events.compactMap { event in
            guard case .published(let publish) = event, publish.topic == topic else { return nil }
            return publish
        }
    }
}

/// A JSON object payload, read back for the tests' expectations (nil for anything else).
func jsonObject(_ payload: [UInt8]) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any]
}

/// A view's `owner`, or nil when the payload is not a present device's view.
func owner(_ publish: MQTTPublish) -> String? {
    jsonObject(publish.payload)?["owner"] as? String
}
