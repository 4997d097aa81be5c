import NIOCore
import NIOPosix
import NIOSSL

/// An MQTT 3.1.1 client that stays connected: it reconnects with backoff after any loss, keeps
/// the connection alive with pings, subscribes again on each new connection, resends
/// unacknowledged QoS 1 messages (with DUP), and holds what is published while the broker is
/// away in a bounded queue (see ``MQTTDeliveryClass``).
///
/// Waits (backoff, keep-alive) run on the clock given to `init`, so tests drive them with a
/// manual clock.
public actor MQTTClient {
    /// Where and how this client connects (fixed for its lifetime).
    public let configuration: Configuration
    private let clock: any Clock<Duration>
    private let group: any EventLoopGroup

    private var runTask: Task<Void, Never>?
    private var keepAliveTask: Task<Void, Never>?
    private var connection: MQTTConnection?
    /// True from CONNACK and the flush after it until the connection ends.
    public private(set) var isConnected = false
    /// Connections the broker accepted so far: a caller that sees it grow knows the broker may
    /// have lost its retained messages and can publish its state again.
    public private(set) var connectionCount = 0
    private var stopped = false
    private var permanentFailure: MQTTClientError?
    private var awaitingPingResponse = false

    private var queue: MQTTOutgoingQueue
    /// QoS 1 messages written and not yet acknowledged, in writing order.
    private var inflight: [MQTTPublish] = []
    private var lastPacketIdentifier: UInt16 = 0
    private var acknowledgementWaiters: [UInt16: CheckedContinuation<Result<Void, MQTTClientError>, Never>] = [:]
    private var subscribeWaiters: [UInt16: CheckedContinuation<MQTTSubAck?, Never>] = [:]
    private var connectionWaiters: [CheckedContinuation<Result<Void, MQTTClientError>, Never>] = []
    private var disconnectionWaiters: [CheckedContinuation<Void, Never>] = []
    private var subscriptions: [Int: SubscriptionEntry] = [:]
    private var nextSubscriptionID = 0

    /// A client for `configuration`; nothing happens until ``start()`` or ``connect()``.
    public init(
        configuration: Configuration, clock: any Clock<Duration> = ContinuousClock(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.configuration = configuration
        self.clock = clock
        group = eventLoopGroup
        queue = MQTTOutgoingQueue(droppableLimit: configuration.droppableQueueLimit, keptLimit: configuration.keptQueueLimit)
    }

    /// Droppable messages dropped from the queue, oldest first, while the broker was away.
    public var droppedMessageCount: Int { queue.droppedCount }
    /// Messages waiting in the queue for the broker.
    public var queuedMessageCount: Int { queue.entries.count }

    /// Starts connecting in the background (and reconnecting after every loss) without waiting.
    public func start() {
        guard runTask == nil, !stopped else { return }
        runTask = Task { await self.run() }
    }

    /// Starts the client and returns once the broker has accepted the first connection.
    /// Throws ``MQTTClientError/connectionRefused(_:)`` if the broker refuses it.
    public func connect() async throws(MQTTClientError) {
        start()
        try await waitUntilConnected()
    }

    /// Returns once connected (at once if connected now).
    public func waitUntilConnected() async throws(MQTTClientError) {
        if let permanentFailure { throw permanentFailure }
        if stopped { throw .disconnected }
        if isConnected { return }
        try await withCheckedContinuation { connectionWaiters.append($0) }.get()
    }

    /// Returns once the current connection has ended (at once if not connected).
    func waitUntilDisconnected() async {
        guard isConnected else { return }
        await withCheckedContinuation { disconnectionWaiters.append($0) }
    }

    /// Publishes one message. Connected, QoS 0 returns once written, QoS 1 once the broker's
    /// PUBACK came (across reconnections: it is resent with DUP). While the broker is away, the
    /// message joins the queue and this returns at once; it is sent, in order, on reconnection.
    public func publish(
        topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false, delivery: MQTTDeliveryClass = .kept
    ) async throws(MQTTClientError) {
        if stopped { throw .disconnected }
        var publish = MQTTPublish(topic: topic, payload: payload, qos: qos, retain: retain)
        if qos == .atLeastOnce { publish.packetIdentifier = nextPacketIdentifier() }
        let bytes: [UInt8]
        do { bytes = try MQTTPacket.publish(publish).encode() } catch { throw .invalidPacket(error) }
        guard isConnected, let connection else {
            try queue.enqueue(publish, delivery: delivery)
            return
        }
        if qos == .atLeastOnce { inflight.append(publish) }
        do {
            try await connection.send(bytes)
        } catch {
            // The connection went while writing: a QoS 1 message is resent from `inflight`.
            if qos == .atMostOnce { try queue.enqueue(publish, delivery: delivery) }
        }
        guard let identifier = publish.packetIdentifier else { return }
        try await waitForAcknowledgement(identifier)
    }

    private func waitForAcknowledgement(_ identifier: UInt16) async throws(MQTTClientError) {
        guard inflight.contains(where: { $0.packetIdentifier == identifier }) else { return }
        try await withCheckedContinuation { acknowledgementWaiters[identifier] = $0 }.get()
    }

    /// Subscribes to `filters` and returns their messages. Connected, it returns once the broker
    /// acknowledged (throwing ``MQTTClientError/subscriptionRefused`` if it refused every filter);
    /// otherwise the filters are sent when the connection comes.
    public func subscribe(_ filters: [MQTTTopicFilter]) async throws(MQTTClientError) -> MQTTSubscription {
        if stopped { throw .disconnected }
        guard !filters.isEmpty else { throw .invalidPacket(.emptyTopicList) }
        let (stream, continuation) = AsyncStream.makeStream(of: MQTTMessage.self, bufferingPolicy: .bufferingNewest(configuration.subscriptionBufferLimit))
        let id = nextSubscriptionID
        nextSubscriptionID += 1
        subscriptions[id] = SubscriptionEntry(filters: filters, continuation: continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscription(id) }
        }
        if isConnected, let connection {
            let identifier = nextPacketIdentifier()
            let packet = MQTTPacket.subscribe(MQTTSubscribe(packetIdentifier: identifier, filters: filters))
            let bytes: [UInt8]
            do { bytes = try packet.encode() } catch {
                subscriptions[id] = nil
                throw .invalidPacket(error)
            }
            let acknowledgement = await withCheckedContinuation { (waiter: CheckedContinuation<MQTTSubAck?, Never>) in
                subscribeWaiters[identifier] = waiter
                Task { try? await connection.send(bytes) }
            }
            if let acknowledgement, acknowledgement.returnCodes.allSatisfy({ $0 == .failure }) {
                subscriptions[id] = nil
                continuation.finish()
                throw .subscriptionRefused
            }
        }
        return MQTTSubscription(stream: stream)
    }

    private func removeSubscription(_ id: Int) async {
        guard let entry = subscriptions.removeValue(forKey: id) else { return }
        let stillUsed = Set(subscriptions.values.flatMap { $0.filters.map(\.filter) })
        let unused = Array(Set(entry.filters.map(\.filter)).subtracting(stillUsed)).sorted()
        guard !unused.isEmpty, isConnected, let connection else { return }
        try? await connection.send(.unsubscribe(MQTTUnsubscribe(packetIdentifier: nextPacketIdentifier(), filters: unused)))
    }

    /// Ends the client: sends DISCONNECT (so the broker discards the will), closes the
    /// connection, stops reconnecting, ends every subscription and fails waiting calls with
    /// ``MQTTClientError/disconnected``. Queued messages are not sent.
    public func disconnect() async {
        guard !stopped else { return }
        stopped = true
        if isConnected, let connection { try? await connection.send(.disconnect) }
        connection?.close()
        keepAliveTask?.cancel()
        runTask?.cancel()
        await runTask?.value
        finishEverything(with: .disconnected)
    }

    private func finishEverything(with error: MQTTClientError) {
        for waiter in acknowledgementWaiters.values { waiter.resume(returning: .failure(error)) }
        acknowledgementWaiters = [:]
        for waiter in connectionWaiters { waiter.resume(returning: .failure(error)) }
        connectionWaiters = []
        for waiter in subscribeWaiters.values { waiter.resume(returning: nil) }
        subscribeWaiters = [:]
        for waiter in disconnectionWaiters { waiter.resume() }
        disconnectionWaiters = []
        let ended = subscriptions.values
        subscriptions = [:]
        for entry in ended { entry.continuation.finish() }
    }

    /// The next packet identifier not in use by an unacknowledged or queued message (1...65,535).
    private func nextPacketIdentifier() -> UInt16 {
        repeat {
            lastPacketIdentifier = lastPacketIdentifier == UInt16.max ? 1 : lastPacketIdentifier + 1
        } while inflight.contains { $0.packetIdentifier == lastPacketIdentifier }
            || queue.entries.contains { $0.publish.packetIdentifier == lastPacketIdentifier }
        return lastPacketIdentifier
    }

    // MARK: The connection loop

    private func run() async {
        var failures = 0
        while !stopped {
            let reachedBroker = await runSession()
            if stopped || permanentFailure != nil { break }
            failures = reachedBroker ? 1 : failures + 1
            do { try await clock.sleep(for: configuration.backoff.delay(afterFailures: failures)) } catch { break }
        }
    }

    /// One connection from TCP connect to close; true if the broker accepted it.
    private func runSession() async -> Bool {
        var tlsContext: NIOSSLContext?
        if let tls = configuration.tls {
            do { tlsContext = try NIOSSLContext(configuration: tls) } catch {
                fail(permanently: .tls(String(describing: error)))
                return false
            }
        }
        let connection: MQTTConnection
        do {
            connection = try await MQTTConnection.open(
                host: configuration.host, port: configuration.port, tls: tlsContext, maximumPacketSize: configuration.maximumPacketSize, group: group)
        } catch { return false }
        guard !stopped else {
            connection.close()
            return false
        }
        self.connection = connection
        var accepted = false
        do {
            try await connection.send(.connect(connectPacket))
            for try await packet in connection.packets {
                if accepted {
                    handle(packet, on: connection)
                    continue
                }
                guard case .connAck(let acknowledgement) = packet else { break }
                guard acknowledgement.returnCode == .accepted else {
                    if acknowledgement.returnCode != .serverUnavailable { fail(permanently: .connectionRefused(acknowledgement.returnCode)) }
                    break
                }
                accepted = true
                connectionCount += 1
                startKeepAlive(on: connection)
                try await flush(on: connection)
                isConnected = true
                for waiter in connectionWaiters { waiter.resume(returning: .success(())) }
                connectionWaiters = []
            }
        } catch {}
        connection.close()
        sessionEnded()
        return accepted
    }

    private var connectPacket: MQTTConnect {
        MQTTConnect(
            clientIdentifier: configuration.clientIdentifier, cleanSession: configuration.cleanSession,
            keepAliveSeconds: configuration.keepAliveSeconds, will: configuration.will, username: configuration.username,
            password: configuration.password)
    }

    /// The configured birth message, before the queue; at QoS 1 it waits for its PUBACK in
    /// `inflight` like any other message.
    private func sendBirth(on connection: MQTTConnection) async throws {
        guard let birth = configuration.birth else { return }
        var publish = MQTTPublish(topic: birth.topic, payload: birth.payload, qos: birth.qos, retain: birth.retain)
        if birth.qos == .atLeastOnce {
            publish.packetIdentifier = nextPacketIdentifier()
            inflight.append(publish)
        }
        try await connection.send(.publish(publish))
    }

    /// After CONNACK: subscriptions again, unacknowledged QoS 1 messages with DUP, the birth
    /// message, then the queue, oldest first (publishing meanwhile joins the queue's end, so order holds).
    private func flush(on connection: MQTTConnection) async throws {
        var filters: [String: MQTTQoS] = [:]
        for entry in subscriptions.values {
            for filter in entry.filters { filters[filter.filter] = max(filters[filter.filter] ?? .atMostOnce, filter.qos) }
        }
        if !filters.isEmpty {
            let list = filters.keys.sorted().map { MQTTTopicFilter($0, qos: filters[$0] ?? .atMostOnce) }
            try await connection.send(.subscribe(MQTTSubscribe(packetIdentifier: nextPacketIdentifier(), filters: list)))
        }
        for publish in inflight {
            var again = publish
            again.duplicate = true
            try await connection.send(.publish(again))
        }
        try await sendBirth(on: connection)
        // One at a time, removed once written: a write that fails leaves it first in the queue.
        while let entry = queue.first {
            try await connection.send(.publish(entry.publish))
            queue.removeFirst(entry)
            if entry.publish.qos == .atLeastOnce { inflight.append(entry.publish) }
        }
    }

    private func handle(_ packet: MQTTPacket, on connection: MQTTConnection) {
        switch packet {
        case .publish(let publish):
            let message = MQTTMessage(topic: publish.topic, payload: publish.payload, retain: publish.retain, qos: publish.qos)
            for entry in subscriptions.values where entry.accepts(publish.topic) { entry.continuation.yield(message) }
            if let identifier = publish.packetIdentifier {
                Task { try? await connection.send(.pubAck(packetIdentifier: identifier)) }
            }
        case .pubAck(let identifier):
            inflight.removeAll { $0.packetIdentifier == identifier }
            acknowledgementWaiters.removeValue(forKey: identifier)?.resume(returning: .success(()))
        case .subAck(let acknowledgement):
            subscribeWaiters.removeValue(forKey: acknowledgement.packetIdentifier)?.resume(returning: acknowledgement)
        case .pingResponse:
            awaitingPingResponse = false
        case .unsubAck:
            break
        case .connect, .connAck, .subscribe, .unsubscribe, .pingRequest, .disconnect:
            // A broker never sends these: the connection is broken.
            connection.close()
        }
    }

    private func sessionEnded() {
        isConnected = false
        connection = nil
        keepAliveTask?.cancel()
        keepAliveTask = nil
        // A SUBSCRIBE in flight is sent again on the next connection.
        for waiter in subscribeWaiters.values { waiter.resume(returning: nil) }
        subscribeWaiters = [:]
        for waiter in disconnectionWaiters { waiter.resume() }
        disconnectionWaiters = []
    }

    private func fail(permanently error: MQTTClientError) {
        permanentFailure = error
        for waiter in connectionWaiters { waiter.resume(returning: .failure(error)) }
        connectionWaiters = []
    }

    /// Closes the TCP connection without DISCONNECT, as a crash or a pulled cable would (the
    /// broker then publishes the will); the client reconnects after its backoff. For tests.
    func killConnection() {
        connection?.close()
    }

    // MARK: Keep-alive

    private func startKeepAlive(on connection: MQTTConnection) {
        keepAliveTask?.cancel()
        awaitingPingResponse = false
        let seconds = configuration.keepAliveSeconds
        guard seconds > 0 else { return }
        let interval = Duration.seconds(Int(seconds))
        let clock = clock
        keepAliveTask = Task {
            while !Task.isCancelled {
                do { try await clock.sleep(for: interval) } catch { return }
                guard await self.keepAliveTick(on: connection) else { return }
            }
        }
    }

    /// One keep-alive interval has passed: a ping still unanswered closes the connection (the
    /// loop then reconnects); otherwise another ping goes out. False when the loop should end.
    private func keepAliveTick(on connection: MQTTConnection) async -> Bool {
        guard self.connection?.channel === connection.channel, !stopped else { return false }
        if awaitingPingResponse {
            connection.close()
            return false
        }
        awaitingPingResponse = true
        try? await connection.send(.pingRequest)
        return true
    }
}
