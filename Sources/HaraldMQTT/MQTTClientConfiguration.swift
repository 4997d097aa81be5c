import NIOSSL

/// Why a client call failed.
public enum MQTTClientError: Error, Equatable, Sendable {
    /// The broker answered CONNECT with a refusal; the client stops trying (bad credentials and
    /// the like do not heal by retrying). ``MQTTConnectReturnCode/serverUnavailable`` is retried instead.
    case connectionRefused(MQTTConnectReturnCode)
    /// The queue's share for kept messages is full while the broker is away (limit in messages).
    case queueFull(limit: Int)
    /// ``MQTTClient/disconnect()`` was called, before or during the call.
    case disconnected
    /// The message cannot be written as an MQTT packet (topic, field length).
    case invalidPacket(MQTTPacketError)
    /// The broker refused every filter of a SUBSCRIBE.
    case subscriptionRefused
    /// TLS could not be set up from the configuration (the NIOSSL error's description).
    case tls(String)
}

/// How long the client waits before its next connection attempt: `initial`, doubling after each
/// failed attempt, never more than `maximum`. A connection that reached CONNACK starts again from
/// `initial`. There is no jitter: gateways that lost the same broker retry in step, which a
/// broker of any size absorbs.
public struct MQTTBackoff: Sendable, Equatable {
    /// The wait after the first failure (default 1 s).
    public var initial: Duration
    /// The longest wait (default 60 s).
    public var maximum: Duration

    /// A schedule from `initial` doubling up to `maximum` (raised to `initial` if below it).
    public init(initial: Duration = .seconds(1), maximum: Duration = .seconds(60)) {
        self.initial = max(.zero, initial)
        self.maximum = max(self.initial, maximum)
    }

    /// The wait after `failures` failed attempts in a row (1 = the first failure).
    public func delay(afterFailures failures: Int) -> Duration {
        var delay = initial
        var step = 1
        while step < failures, delay < maximum {
            delay *= 2
            step += 1
        }
        return min(delay, maximum)
    }
}

extension MQTTClient {
    /// Where and how the client connects.
    public struct Configuration: Sendable {
        /// Broker host name or address.
        public var host: String
        /// Broker TCP port (1883 plain, 8883 with TLS, by convention).
        public var port: Int
        /// Identifies this client to the broker, e.g. the gateway's name; unique per broker.
        public var clientIdentifier: String
        /// PINGREQ interval, whole seconds (zero: no keep-alive). A PINGRESP that has not come by
        /// the next interval closes the connection, which then reconnects.
        public var keepAlive: Duration
        /// Whether the broker forgets the previous session on connect (the client subscribes again anyway).
        public var cleanSession: Bool
        /// Published by the broker if the connection ends without ``MQTTClient/disconnect()``.
        public var will: MQTTLastWill?
        /// The will's counterpart, published first on every accepted connection (before queued
        /// messages): a retained "online" comes back after each reconnection, a broker restart
        /// that lost retained messages included. Same shape as a will, by default QoS 1 and retained.
        public var birth: MQTTLastWill?
        /// User name for the broker's authentication (nil: anonymous).
        public var username: String?
        /// Password bytes; sent only with a ``username``.
        public var password: [UInt8]?
        /// TLS through NIOSSL when set (nil: plain TCP).
        public var tls: TLSConfiguration?
        /// The waits between connection attempts.
        public var backoff: MQTTBackoff
        /// Droppable messages held while the broker is away (default 1,000).
        public var droppableQueueLimit: Int
        /// Kept messages held while the broker is away (default 1,000).
        public var keptQueueLimit: Int
        /// Largest packet accepted from the broker, in bytes (default 1 MiB).
        public var maximumPacketSize: Int
        /// Messages a subscription holds for a slow reader; the newest are kept (default 1,000).
        public var subscriptionBufferLimit: Int

        /// A configuration with the given connection settings and the default bounds (1,000 messages per queue share and subscription buffer, 1 MiB packets).
        public init(
            host: String, port: Int = 1883, clientIdentifier: String, keepAlive: Duration = .seconds(60), cleanSession: Bool = true,
            will: MQTTLastWill? = nil, birth: MQTTLastWill? = nil, username: String? = nil, password: [UInt8]? = nil, tls: TLSConfiguration? = nil,
            backoff: MQTTBackoff = MQTTBackoff()
        ) {
            self.host = host
            self.port = port
            self.clientIdentifier = clientIdentifier
            self.keepAlive = keepAlive
            self.cleanSession = cleanSession
            self.will = will
            self.birth = birth
            self.username = username
            self.password = password
            self.tls = tls
            self.backoff = backoff
            droppableQueueLimit = 1_000
            keptQueueLimit = 1_000
            maximumPacketSize = MQTTFrameDecoder.defaultMaximumPacketSize
            subscriptionBufferLimit = 1_000
        }

        /// Keep-alive in whole seconds for CONNECT (0 when off; at most 65,535).
        var keepAliveSeconds: UInt16 {
            let seconds = keepAlive.components.seconds
            return UInt16(clamping: max(0, seconds))
        }
    }
}

/// One message received on a subscription.
public struct MQTTMessage: Sendable, Equatable {
    /// The topic name the message was published to.
    public var topic: String
    /// The application bytes, as published.
    public var payload: [UInt8]
    /// Whether the broker sent it as the topic's retained value (it was published before the
    /// subscription), not as a live message.
    public var retain: Bool
    /// The QoS it was delivered with (the lower of the publisher's and the subscription's).
    public var qos: MQTTQoS

    /// A received message.
    public init(topic: String, payload: [UInt8], retain: Bool, qos: MQTTQoS) {
        self.topic = topic
        self.payload = payload
        self.retain = retain
        self.qos = qos
    }
}
