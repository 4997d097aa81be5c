/// Quality of service of one message: how hard client and broker try to deliver it.
public enum MQTTQoS: UInt8, Sendable, Comparable {
    /// Sent once, never acknowledged: may be lost (advertisements).
    case atMostOnce = 0
    /// Resent until acknowledged with PUBACK: may arrive twice (state messages).
    case atLeastOnce = 1

    /// Orders by delivery guarantee: at most once before at least once.
    public static func < (lhs: MQTTQoS, rhs: MQTTQoS) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The message the broker publishes for a client whose connection ends without DISCONNECT
/// (a gateway that died): typically a retained "offline" on the gateway's status topic.
public struct MQTTLastWill: Sendable, Equatable {
    /// Topic name the will is published to (no wildcards).
    public var topic: String
    /// Application bytes of the will.
    public var payload: [UInt8]
    /// How hard the broker tries to deliver the will.
    public var qos: MQTTQoS
    /// Whether the broker keeps the will as the topic's retained message.
    public var retain: Bool

    /// A will, by default QoS 1 and retained (so late subscribers see that the client is gone).
    public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atLeastOnce, retain: Bool = true) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }
}

/// CONNECT: the first packet a client sends on a new connection.
public struct MQTTConnect: Sendable, Equatable {
    /// Identifies the client to the broker (1–23 characters are accepted by every broker).
    public var clientIdentifier: String
    /// Whether the broker discards the previous session (subscriptions, queued QoS 1 messages).
    public var cleanSession: Bool
    /// Longest silence, in seconds, before the broker drops the client (0: no keep-alive).
    public var keepAliveSeconds: UInt16
    /// The message the broker publishes if the connection ends without DISCONNECT.
    public var will: MQTTLastWill?
    /// User name for authentication (nil: none).
    public var username: String?
    /// Password bytes; the spec allows one only with a user name.
    public var password: [UInt8]?

    /// A CONNECT packet; defaults: clean session, 60 s keep-alive, no will, no credentials.
    public init(
        clientIdentifier: String, cleanSession: Bool = true, keepAliveSeconds: UInt16 = 60, will: MQTTLastWill? = nil, username: String? = nil,
        password: [UInt8]? = nil
    ) {
        self.clientIdentifier = clientIdentifier
        self.cleanSession = cleanSession
        self.keepAliveSeconds = keepAliveSeconds
        self.will = will
        self.username = username
        self.password = password
    }
}

/// The broker's answer to CONNECT.
public enum MQTTConnectReturnCode: UInt8, Sendable, Equatable {
    /// The connection is accepted.
    case accepted = 0
    /// The broker does not speak MQTT 3.1.1.
    case unacceptableProtocolVersion = 1
    /// The client identifier is not allowed.
    case identifierRejected = 2
    /// The broker cannot take connections now (retried).
    case serverUnavailable = 3
    /// The user name or password is wrong.
    case badUsernameOrPassword = 4
    /// The client is not allowed to connect.
    case notAuthorized = 5
}

/// CONNACK: whether the broker accepted the connection.
public struct MQTTConnAck: Sendable, Equatable {
    /// Whether the broker kept a session from an earlier connection (only without clean session).
    public var sessionPresent: Bool
    /// Accepted, or why not.
    public var returnCode: MQTTConnectReturnCode

    /// A CONNACK; by default an accepted connection with no stored session.
    public init(sessionPresent: Bool = false, returnCode: MQTTConnectReturnCode = .accepted) {
        self.sessionPresent = sessionPresent
        self.returnCode = returnCode
    }
}

/// PUBLISH: one application message, either way.
public struct MQTTPublish: Sendable, Equatable {
    /// Topic name (no wildcards), e.g. `home/kitchen/BTtoMQTT/A4C138000001`.
    public var topic: String
    /// The application bytes (JSON for a gateway; any bytes for MQTT).
    public var payload: [UInt8]
    /// How hard the broker tries to deliver it.
    public var qos: MQTTQoS
    /// Whether the broker keeps this as the topic's last known value (and, inbound, whether it is one).
    public var retain: Bool
    /// Set on a QoS 1 message sent again after a lost connection.
    public var duplicate: Bool
    /// Non-zero for QoS 1, nil for QoS 0.
    public var packetIdentifier: UInt16?

    /// A PUBLISH; a QoS 1 one needs a non-zero `packetIdentifier` to be encoded.
    public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false, duplicate: Bool = false, packetIdentifier: UInt16? = nil) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.duplicate = duplicate
        self.packetIdentifier = packetIdentifier
    }
}

/// One topic filter of a SUBSCRIBE, with the highest QoS asked for.
public struct MQTTTopicFilter: Sendable, Equatable, Hashable {
    /// A topic filter, where `+` matches one level and a final `#` any number of levels.
    public var filter: String
    /// The highest QoS wanted for matching messages.
    public var qos: MQTTQoS

    /// A filter asking for messages up to `qos`.
    public init(_ filter: String, qos: MQTTQoS = .atMostOnce) {
        self.filter = filter
        self.qos = qos
    }
}

/// SUBSCRIBE: the filters a client wants messages for.
public struct MQTTSubscribe: Sendable, Equatable {
    /// Non-zero; the acknowledgement carries the same.
    public var packetIdentifier: UInt16
    /// The filters, at least one.
    public var filters: [MQTTTopicFilter]

    /// A SUBSCRIBE for `filters`.
    public init(packetIdentifier: UInt16, filters: [MQTTTopicFilter]) {
        self.packetIdentifier = packetIdentifier
        self.filters = filters
    }
}

/// The broker's answer for one filter of a SUBSCRIBE.
public enum MQTTSubscribeReturnCode: Sendable, Equatable {
    /// Accepted, at most this QoS (2 only if asked for, which this client never does).
    case granted(maximumQoS: UInt8)
    /// Refused (0x80).
    case failure
}

/// SUBACK: one return code per filter, in the order of the SUBSCRIBE.
public struct MQTTSubAck: Sendable, Equatable {
    /// Non-zero; the acknowledgement carries the same.
    public var packetIdentifier: UInt16
    /// One per filter of the SUBSCRIBE, in its order.
    public var returnCodes: [MQTTSubscribeReturnCode]

    /// A SUBACK answering the SUBSCRIBE with `packetIdentifier`.
    public init(packetIdentifier: UInt16, returnCodes: [MQTTSubscribeReturnCode]) {
        self.packetIdentifier = packetIdentifier
        self.returnCodes = returnCodes
    }
}

/// UNSUBSCRIBE: the filters a client no longer wants.
public struct MQTTUnsubscribe: Sendable, Equatable {
    /// Non-zero; the acknowledgement carries the same.
    public var packetIdentifier: UInt16
    /// The topic filters to remove, at least one.
    public var filters: [String]

    /// An UNSUBSCRIBE for `filters`.
    public init(packetIdentifier: UInt16, filters: [String]) {
        self.packetIdentifier = packetIdentifier
        self.filters = filters
    }
}

/// One MQTT 3.1.1 control packet (QoS 2's PUBREC, PUBREL and PUBCOMP are not spoken).
public enum MQTTPacket: Sendable, Equatable {
    /// CONNECT: client to broker, first on every connection.
    case connect(MQTTConnect)
    /// CONNACK: the broker's answer to CONNECT.
    case connAck(MQTTConnAck)
    /// PUBLISH: an application message, either way.
    case publish(MQTTPublish)
    /// Acknowledges a QoS 1 PUBLISH with this packet identifier.
    case pubAck(packetIdentifier: UInt16)
    /// SUBSCRIBE: client to broker.
    case subscribe(MQTTSubscribe)
    /// SUBACK: the broker's answer to SUBSCRIBE.
    case subAck(MQTTSubAck)
    /// UNSUBSCRIBE: client to broker.
    case unsubscribe(MQTTUnsubscribe)
    /// UNSUBACK: the broker's answer to the UNSUBSCRIBE with this identifier.
    case unsubAck(packetIdentifier: UInt16)
    /// PINGREQ: the client's keep-alive probe.
    case pingRequest
    /// PINGRESP: the broker's answer to PINGREQ.
    case pingResponse
    /// The client's clean goodbye: the broker discards the will.
    case disconnect
}
