import Harald
import HaraldAdvertisements
import HaraldProfiles
import HaraldMQTT

/// A BLE-to-MQTT gateway: scans without end on a `Central`, decodes every advertisement and
/// publishes each device's report in Theengs Gateway's topic layout (``GatewayTopics``), with
/// Home Assistant discovery and the gateway's availability (`online` on every connection,
/// `offline` as its last will and when it stops).
///
/// ```swift
/// let gateway = Gateway(
///     central: central, broker: MQTTClient.Configuration(host: "127.0.0.1", clientIdentifier: "hall"),
///     topics: GatewayTopics(gateway: "hall"))
/// try await gateway.run()   // until cancelled
/// ```
///
/// The broker may come and go: reports made meanwhile wait in the MQTT client's bounded queue
/// (the oldest dropped first, counted), discovery configs are never dropped, and every new
/// connection (or Home Assistant's `online` status) sends the discovery configs again.
public actor Gateway {
    /// What the gateway has done so far.
    public struct Statistics: Hashable, Sendable {
        /// Advertisements received from the scan.
        public var advertisements = 0
        /// Device reports handed to the MQTT client.
        public var reports = 0
        /// Discovery configs handed to the MQTT client.
        public var discoveryConfigs = 0
        /// Messages the MQTT client could not take (its queue for kept messages was full).
        public var refused = 0
        /// Devices remembered now.
        public var devices = 0
        /// Characteristics read by polls.
        public var polls = 0
        /// Poll rounds that failed (the device did not connect, or had no such characteristic),
        /// or found the device not heard yet.
        public var failedPolls = 0
    }

    /// The gateway's topics.
    public nonisolated let topics: GatewayTopics
    /// The MQTT client it publishes with (configured with the gateway's will and birth messages).
    public nonisolated let client: MQTTClient
    private let central: Central
    private let scanRequest: ScanRequest
    private let polls: [GatewayPoll]
    private let characteristics: CharacteristicRegistry
    private let elapsed: @Sendable () -> Duration
    private var reporter: DeviceReporter
    private var statistics = Statistics()
    private var seenConnections = 0

    /// A gateway scanning on `central` and publishing to the broker of `broker` (its will and
    /// birth are set to the availability topic; its client identifier, when empty, to the
    /// gateway's name). Waits run on the central's clock.
    public init(
        central: Central, broker: MQTTClient.Configuration, topics: GatewayTopics, policy: GatewayPolicy = GatewayPolicy(),
        decoders: AdvertisementDecoderRegistry = .standard, scan: ScanRequest = ScanRequest(duplicates: .reportAll, active: true),
        polls: [GatewayPoll] = [], characteristics: CharacteristicRegistry = .standard
    ) {
        self.topics = topics
        self.central = central
        self.scanRequest = scan
        self.polls = polls
        self.characteristics = characteristics
        client = MQTTClient(configuration: broker.announcing(availability: topics.availability, name: topics.gateway))
        reporter = DeviceReporter(topics: topics, policy: policy, decoders: decoders)
        elapsed = stopwatch(central.clock)
    }

    /// What the gateway has done so far.
    public var currentStatistics: Statistics {
        var current = statistics
        current.devices = reporter.deviceCount
        return current
    }

    /// Connects to the broker (waiting for the first connection as long as it takes), then scans
    /// and publishes until the task is cancelled or the scan ends; then publishes `offline` and
    /// disconnects. Returns normally when cancelled; throws the broker's refusal (bad
    /// credentials, say) or the scan's error.
    public func run() async throws {
        guard try await client.connectUnlessCancelled() else { return }
        seenConnections = await client.connectionCount
        let status = try await client.subscribe([MQTTTopicFilter(topics.homeAssistantStatus, qos: .atMostOnce)])
        let scan = central.scan(scanRequest)
        let tickInterval = max(reporter.policy.minimumInterval / 4, .milliseconds(50))
        let clock = central.clock
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await advertisement in scan { await self.receive(advertisement) }
                }
                group.addTask {
                    while !Task.isCancelled {
                        try await clock.sleep(for: tickInterval)
                        await self.tick()
                    }
                }
                for poll in polls {
                    group.addTask {
                        while !Task.isCancelled {
                            await self.read(poll)
                            try await clock.sleep(for: poll.interval)
                        }
                    }
                }
                group.addTask {
                    for await message in status where message.payload == Array(GatewayTopics.online.utf8) {
                        await self.rediscover()
                    }
                }
                // The first to end (the scan, or a failure) ends the others.
                try await group.next()
                group.cancelAll()
            }
        } catch {
            await stop()
            if Task.isCancelled { return }
            throw error
        }
        await stop()
    }

    /// Publishes `offline` (retained) and disconnects cleanly.
    private func stop() async {
        await client.signOff(availability: topics.availability)
    }

    private func receive(_ advertisement: Advertisement) async {
        statistics.advertisements += 1
        await send(reporter.receive(advertisement, at: elapsed()))
    }

    /// One round of `poll`: the device's address as heard, a connection, a read, the value into
    /// its report. A round that fails is counted; the next comes after the interval anyway.
    private func read(_ poll: GatewayPoll) async {
        guard let address = reporter.heardAddress(matching: poll.device) else {
            statistics.failedPolls += 1
            return
        }
        do {
            let value = try await poll.read(
                on: central, peripheral: PeripheralIdentifier(address: address), registry: characteristics, timeout: Self.pollTimeout)
            statistics.polls += 1
            await send(reporter.receivePoll(of: address, key: poll.key(in: characteristics), value: value, at: elapsed()))
        } catch {
            statistics.failedPolls += 1
        }
    }

    /// How long a poll waits for the connection and for each answer.
    static let pollTimeout: Duration = .seconds(10)

    private func tick() async {
        let connections = await client.connectionCount
        if connections != seenConnections {
            // A new connection: the broker may have restarted without its retained messages.
            seenConnections = connections
            reporter.rediscover()
        }
        await send(reporter.tick(at: elapsed()))
    }

    private func rediscover() {
        reporter.rediscover()
    }

    private func send(_ messages: [GatewayMessage]) async {
        for message in messages {
            do {
                try await client.publish(
                    topic: message.topic, payload: message.payload, qos: message.qos, retain: message.retain, delivery: message.delivery)
                switch message.kind {
                case .report: statistics.reports += 1
                case .discovery: statistics.discoveryConfigs += 1
                }
            } catch {
                statistics.refused += 1
                // A discovery config that did not go is sent again with a later report.
                if message.kind == .discovery { reporter.rediscover() }
            }
        }
    }
}
