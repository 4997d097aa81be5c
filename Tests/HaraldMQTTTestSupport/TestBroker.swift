import HaraldMQTT
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A small MQTT broker on loopback for the client's tests: CONNECT, PUBLISH (QoS 0 and 1,
/// retained), SUBSCRIBE, PINGREQ, DISCONNECT and the last will. It records what it sees as
/// events that tests wait for (no sleeping), and it can be stopped and started again on the
/// same port.
package final class TestBroker: Sendable {
    package enum Event: Equatable, Sendable {
        case connected(clientIdentifier: String)
        case published(MQTTPublish)
        case subscribed([String])
        case pinged
        case disconnectedCleanly(clientIdentifier: String)
        case connectionClosed(clientIdentifier: String)
        case willPublished(MQTTLastWill)
    }

    private struct Session {
        let channel: any Channel
        var clientIdentifier = ""
        var will: MQTTLastWill?
        var filters: [MQTTTopicFilter] = []
        var cleanlyDisconnected = false
        var nextPacketIdentifier: UInt16 = 0
    }

    private struct State {
        var events: [Event] = []
        var waiters: [(condition: @Sendable ([Event]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
        var sessions: [ObjectIdentifier: Session] = [:]
        var retained: [String: MQTTPublish] = [:]
        var server: (any Channel)?
        var stopping = false
        var acknowledgesPublishes = true
    }

    private let state = NIOLockedValueBox(State())
    /// Whether PINGREQ gets a PINGRESP (false: a broker that went silent).
    package let answersPings: Bool
    private let group = MultiThreadedEventLoopGroup.singleton

    /// Whether a QoS 1 PUBLISH gets its PUBACK (false: the broker loses it before acknowledging).
    package var acknowledgesPublishes: Bool {
        get { state.withLockedValue { $0.acknowledgesPublishes } }
        set { state.withLockedValue { $0.acknowledgesPublishes = newValue } }
    }

    package init(answersPings: Bool = true) { self.answersPings = answersPings }

    /// Listens on 127.0.0.1:`port` (0: a free port) and returns the port.
    @discardableResult
    package func start(port: Int = 0) async throws -> Int {
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(BrokerConnectionHandler(broker: self))
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
        state.withLockedValue {
            $0.server = server
            $0.stopping = false
        }
        return server.localAddress?.port ?? 0
    }

    /// Stops listening and closes every connection (publishing no will, like a broker shutting down).
    package func stop() async throws {
        let (server, channels) = state.withLockedValue { state in
            state.stopping = true
            for key in state.sessions.keys { state.sessions[key]?.cleanlyDisconnected = true }
            defer { state.server = nil }
            return (state.server, state.sessions.values.map(\.channel))
        }
        for channel in channels { try? await channel.close() }
        try await server?.close()
    }

    package var events: [Event] { state.withLockedValue { $0.events } }

    /// Returns once the events recorded so far satisfy `condition`.
    package func waitUntil(_ condition: @escaping @Sendable ([Event]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLockedValue { state in
                if condition(state.events) { return true }
                state.waiters.append((condition, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func record(_ event: Event) {
        let ready = state.withLockedValue { state in
            state.events.append(event)
            let ready = state.waiters.filter { $0.condition(state.events) }.map(\.continuation)
            state.waiters.removeAll { $0.condition(state.events) }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    // MARK: Packets from one connection (on its event loop)

    fileprivate func received(_ packet: MQTTPacket, on channel: any Channel) {
        let key = ObjectIdentifier(channel)
        switch packet {
        case .connect(let connect):
            state.withLockedValue {
                $0.sessions[key] = Session(channel: channel, clientIdentifier: connect.clientIdentifier, will: connect.will)
            }
            record(.connected(clientIdentifier: connect.clientIdentifier))
            write(.connAck(MQTTConnAck()), to: channel)
        case .publish(let publish):
            record(.published(publish))
            if let identifier = publish.packetIdentifier, acknowledgesPublishes { write(.pubAck(packetIdentifier: identifier), to: channel) }
            route(publish)
        case .subscribe(let subscribe):
            let retained = state.withLockedValue { state in
                state.sessions[key]?.filters.append(contentsOf: subscribe.filters)
                return state.retained.values.filter { message in subscribe.filters.contains { $0.matches(topic: message.topic) } }
            }
            record(.subscribed(subscribe.filters.map(\.filter)))
            let codes = subscribe.filters.map { MQTTSubscribeReturnCode.granted(maximumQoS: $0.qos.rawValue) }
            write(.subAck(MQTTSubAck(packetIdentifier: subscribe.packetIdentifier, returnCodes: codes)), to: channel)
            for message in retained {
                var copy = message
                copy.qos = .atMostOnce
                copy.packetIdentifier = nil
                copy.duplicate = false
                write(.publish(copy), to: channel)
            }
        case .unsubscribe(let unsubscribe):
            state.withLockedValue { $0.sessions[key]?.filters.removeAll { unsubscribe.filters.contains($0.filter) } }
            write(.unsubAck(packetIdentifier: unsubscribe.packetIdentifier), to: channel)
        case .pingRequest:
            record(.pinged)
            if answersPings { write(.pingResponse, to: channel) }
        case .disconnect:
            let identifier = state.withLockedValue { state -> String in
                state.sessions[key]?.cleanlyDisconnected = true
                return state.sessions[key]?.clientIdentifier ?? ""
            }
            record(.disconnectedCleanly(clientIdentifier: identifier))
            channel.close(promise: nil)
        case .connAck, .pubAck, .subAck, .unsubAck, .pingResponse:
            break
        }
    }

    fileprivate func closed(_ channel: any Channel) {
        guard let session = state.withLockedValue({ $0.sessions.removeValue(forKey: ObjectIdentifier(channel)) }) else { return }
        record(.connectionClosed(clientIdentifier: session.clientIdentifier))
        if let will = session.will, !session.cleanlyDisconnected {
            record(.willPublished(will))
            route(MQTTPublish(topic: will.topic, payload: will.payload, qos: will.qos, retain: will.retain))
        }
    }

    /// Sends `publish` to every session with a matching filter, and keeps it if retained.
    private func route(_ publish: MQTTPublish) {
        let deliveries: [(any Channel, MQTTPublish)] = state.withLockedValue { state in
            if publish.retain { state.retained[publish.topic] = publish }
            var deliveries: [(any Channel, MQTTPublish)] = []
            for (key, session) in state.sessions {
                guard let filter = session.filters.first(where: { $0.matches(topic: publish.topic) }) else { continue }
                var copy = publish
                copy.retain = false
                copy.duplicate = false
                copy.qos = min(publish.qos, filter.qos)
                if copy.qos == .atLeastOnce {
                    let next = session.nextPacketIdentifier == UInt16.max ? 1 : session.nextPacketIdentifier + 1
                    state.sessions[key]?.nextPacketIdentifier = next
                    copy.packetIdentifier = next
                } else {
                    copy.packetIdentifier = nil
                }
                deliveries.append((session.channel, copy))
            }
            return deliveries
        }
        for (channel, copy) in deliveries { write(.publish(copy), to: channel) }
    }

    private func write(_ packet: MQTTPacket, to channel: any Channel) {
        guard let bytes = try? packet.encode() else { return }
        channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
    }
}

/// One broker connection: bytes through a frame decoder, packets to the broker.
private final class BrokerConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let broker: TestBroker
    private var decoder = MQTTFrameDecoder()

    init(broker: TestBroker) { self.broker = broker }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        decoder.append(unwrapInboundIn(data).readableBytesView)
        do {
            while let packet = try decoder.next() { broker.received(packet, on: context.channel) }
        } catch {
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        broker.closed(context.channel)
        context.fireChannelInactive()
    }
}
