import HaraldMQTT

/// How often a gateway publishes and how much it remembers.
public struct GatewayPolicy: Hashable, Sendable {
    /// The least time between two reports of one device (its rate limit): a change heard sooner
    /// is held, and the latest state goes out when the time has passed. Default 1 s.
    public var minimumInterval: Duration
    /// A device still heard is reported again after this long even when nothing changed, so
    /// consumers (and a fleet's arbitration) keep seeing it. Default 30 s.
    public var refreshInterval: Duration
    /// An RSSI that moved by at least this many dB since the last report counts as a change
    /// (smaller swings are the radio's noise). Default 5 dB.
    public var rssiChange: Int
    /// A device not heard for this long is forgotten (Home Assistant marks its entities
    /// unavailable after the same time: the discovery configs' `expire_after`). Default 195 s,
    /// habluetooth's stale time for advertisements.
    public var staleTime: Duration
    /// The most devices remembered at once; past it the longest unheard are forgotten first
    /// (an eighth of the table at a time). Default 4,096.
    public var maximumDevices: Int
    /// Whether Home Assistant discovery configs are published. Default true.
    public var homeAssistantDiscovery: Bool

    /// The defaults above, or the values given.
    public init(
        minimumInterval: Duration = .seconds(1), refreshInterval: Duration = .seconds(30), rssiChange: Int = 5,
        staleTime: Duration = .seconds(195), maximumDevices: Int = 4_096, homeAssistantDiscovery: Bool = true
    ) {
        self.minimumInterval = minimumInterval
        self.refreshInterval = refreshInterval
        self.rssiChange = rssiChange
        self.staleTime = staleTime
        self.maximumDevices = max(1, maximumDevices)
        self.homeAssistantDiscovery = homeAssistantDiscovery
    }
}

/// One message a gateway publishes.
public struct GatewayMessage: Hashable, Sendable {
    /// What the message is, which decides how the MQTT client treats it while the broker is away.
    public enum Kind: Hashable, Sendable {
        /// A device's report: soon superseded, dropped oldest first when the queue is full.
        case report
        /// A Home Assistant discovery config: retained, never dropped.
        case discovery
    }

    /// The topic.
    public var topic: String
    /// The JSON bytes.
    public var payload: [UInt8]
    /// Whether the broker keeps it as the topic's retained message.
    public var retain: Bool
    /// What it is.
    public var kind: Kind

    /// A message of `kind` for `topic`.
    public init(topic: String, payload: [UInt8], retain: Bool, kind: Kind) {
        self.topic = topic
        self.payload = payload
        self.retain = retain
        self.kind = kind
    }

    /// How the MQTT client queues it while the broker is away.
    public var delivery: MQTTDeliveryClass { kind == .report ? .droppable : .kept }
    /// Discovery configs go at QoS 1 (they must arrive); reports at QoS 0.
    public var qos: MQTTQoS { kind == .report ? .atMostOnce : .atLeastOnce }
}
