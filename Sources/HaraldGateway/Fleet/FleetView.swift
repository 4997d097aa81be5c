import HaraldCore
import HaraldFleet
import HaraldMQTT

/// Many gateways hearing the same devices, seen as one through the broker: reads every gateway's
/// device reports and availability, decides which gateway owns each device by `FleetArbiter`'s
/// rules, and publishes one view per device and the gateways' liveness (``FleetTopics``).
///
/// ```swift
/// let fleet = FleetView(broker: MQTTClient.Configuration(host: "127.0.0.1", clientIdentifier: "fleet"))
/// Task { for await event in fleet.events { print(event) } }
/// try await fleet.run()   // until cancelled
/// ```
///
/// What it publishes, every message QoS 1:
/// - `home/fleet/AABBCCDDEEFF`, retained, while the device is present: `{"id": "AA:BB:CC:DD:EE:FF",
///   "address_type": "public", "present": true, "owner": "hall", "rssi": {"hall": -61.5,
///   "kitchen": -78}, "last_heard_ago": 0.4}` (smoothed dBm per online gateway that hears it;
///   seconds since it was last heard). Sent on arrival and owner change at once, and when the
///   RSSI moved by a whole dB at most every ``FleetPublishingPolicy/rssiUpdateInterval``.
/// - When the device goes away: `{"id": …, "address_type": …, "present": false}` live (not
///   retained), then an empty retained payload that clears the view. A consumer subscribed at
///   the time sees the device leave; one that subscribes later finds only present devices, and
///   the broker keeps no retained message for devices long gone (rotating private addresses
///   would otherwise pile up there). A view left retained by a fleet that died (rather than
///   stopped) is not cleared until a gateway hears that device again.
/// - `home/fleet/gateways`, retained: `{"hall": "online", "kitchen": "offline"}`, on each change.
/// - `home/fleet/LWT`: `online` (retained) on every connection, `offline` as its last will and
///   when it stops.
///
/// Gateways are read as Theengs Gateway publishes them (see ``GatewayTopics``); a report's time
/// is when it arrives here, on the view's clock. A gateway that reports without ever publishing
/// its availability counts as online.
///
/// Bounds: at most `FleetPolicy/maximumDevices` devices (the longest unheard goes away past it)
/// and ``FleetPublishingPolicy/maximumGateways`` gateways; messages waiting to be read are held by
/// the MQTT subscription (`MQTTClient/Configuration/subscriptionBufferLimit`, the newest kept);
/// messages waiting for the broker by the MQTT client's queue. A message that cannot be read is
/// counted in ``FleetStatistics`` and skipped.
public actor FleetView {
    /// The fleet's topics.
    public let topics: FleetTopics
    /// The arbitration rules in force.
    public let policy: FleetPolicy
    /// The MQTT client it reads and publishes with (configured with the fleet's will and birth).
    public let client: MQTTClient
    /// Every change, in order: arrivals, owner changes, aways, gateways online and offline. One
    /// reader; it holds the newest 1,024 for a slow reader, and ends when ``run()`` returns.
    public nonisolated let events: AsyncStream<FleetEvent>
    private let eventSink: AsyncStream<FleetEvent>.Continuation
    private let elapsed: @Sendable () -> Duration
    private let sleep: @Sendable (Duration) async throws -> Void
    private var tracker: FleetTracker
    private var seenConnections = 0
    private var outbox: [FleetMessage] = []
    private var draining = false
    private var messageWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// Events held for a slow reader of ``events``.
    public static let eventBufferLimit = 1_024

    /// A fleet view reading from and publishing to the broker of `broker` (its will and birth are
    /// set to the fleet's availability topic; its client identifier, when empty, to the fleet's
    /// name). Report times and ticks run on `clock`.
    public init(
        broker: MQTTClient.Configuration, policy: FleetPolicy = FleetPolicy(), publishing: FleetPublishingPolicy = FleetPublishingPolicy(),
        topics: FleetTopics = FleetTopics(), clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.topics = topics
        self.policy = policy
        client = MQTTClient(configuration: broker.announcing(availability: topics.availability, name: topics.name))
        tracker = FleetTracker(topics: topics, policy: policy, publishing: publishing)
        (events, eventSink) = AsyncStream.makeStream(of: FleetEvent.self, bufferingPolicy: .bufferingNewest(Self.eventBufferLimit))
        elapsed = stopwatch(clock)
        sleep = { try await clock.sleep(for: $0) }
    }

    // MARK: Reading

    /// The device at `address` (its kind included), if present.
    public func device(_ address: BluetoothAddress) -> FleetDevice? { tracker.arbiter.device(address) }

    /// Every present device, ordered by address.
    public var devices: [FleetDevice] { tracker.arbiter.devices }

    /// Each known gateway: true while online.
    public var gateways: [GatewayID: Bool] { tracker.gateways }

    /// What the view has done so far.
    public var statistics: FleetStatistics { tracker.currentStatistics }

    // MARK: Running

    /// Connects (waiting for the broker), subscribes to every gateway's topics, then reads,
    /// arbitrates and publishes until the task is cancelled; then publishes `offline` and
    /// disconnects cleanly. Cancelled before the broker answered, it returns without publishing.
    /// Throws the broker's refusal (`MQTTClientError/connectionRefused(_:)`). Run it once.
    public func run() async throws {
        defer { eventSink.finish() }
        let client = client
        guard try await client.connectUnlessCancelled() else { return }
        seenConnections = await client.connectionCount
        do {
            let messages = try await client.subscribe(topics.subscriptions)
            let interval = tracker.publishing.tickInterval
            let sleep = sleep
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await message in messages { await self.receive(message) }
                }
                group.addTask {
                    while !Task.isCancelled {
                        try await sleep(interval)
                        await self.tick()
                    }
                }
                // The first to end (the subscription, or cancellation) ends the other.
                try await group.next()
                group.cancelAll()
            }
        } catch is CancellationError {
        } catch {
            await stop()
            throw error
        }
        await stop()
    }

    /// Publishes `offline` (retained) and disconnects cleanly.
    private func stop() async {
        await client.signOff(availability: topics.availability)
    }

    private func receive(_ message: MQTTMessage) async {
        let step = tracker.receive(message, at: elapsed())
        let received = tracker.statistics.messages
        let ready = messageWaiters.filter { $0.count <= received }
        messageWaiters.removeAll { $0.count <= received }
        for waiter in ready { waiter.continuation.resume() }
        await take(step)
    }

    private func tick() async {
        let connections = await client.connectionCount
        if connections != seenConnections {
            // A new connection: the broker may have restarted without its retained messages.
            seenConnections = connections
            await take(tracker.republish(at: elapsed()))
        }
        await take(tracker.tick(at: elapsed()))
    }

    /// Hands the step's events to ``events`` and its messages to the broker, in the order the
    /// steps were taken (a step taken while another is publishing waits its turn).
    private func take(_ step: FleetStep) async {
        for event in step.events { eventSink.yield(event) }
        outbox.append(contentsOf: step.messages)
        guard !draining else { return }
        draining = true
        defer { draining = false }
        while !outbox.isEmpty {
            let batch = outbox
            outbox = []
            for message in batch {
                do {
                    try await client.publish(
                        topic: message.topic, payload: message.payload, qos: .atLeastOnce, retain: message.retain, delivery: message.delivery)
                    tracker.countPublished()
                } catch {
                    tracker.countRefused()
                }
            }
        }
    }

    /// Returns once the view has read at least `count` messages from the broker (for tests).
    package func waitForMessages(atLeast count: Int) async {
        guard tracker.statistics.messages < count else { return }
        await withCheckedContinuation { messageWaiters.append((count, $0)) }
    }
}
