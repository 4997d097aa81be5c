/// How a ``FleetView`` publishes and how much it accepts, beside the arbitration rules of
/// `FleetPolicy`.
public struct FleetPublishingPolicy: Hashable, Sendable {
    /// How often stale devices are looked for (`FleetArbiter/expire(at:)`) and RSSI updates go
    /// out. Default 1 s.
    public var tickInterval: Duration
    /// The least time between two publications of a device's view for RSSI alone: a smoothed
    /// RSSI that moved by a whole dB (or a gateway that started or stopped hearing the device) is
    /// published at most this often. An arrival, an owner change and an away go out at once.
    /// Default 10 s.
    public var rssiUpdateInterval: Duration
    /// The most gateways the fleet knows at once (online or offline); messages from further
    /// gateways are skipped and counted (``FleetStatistics/refusedGateways``). Default 1,024.
    public var maximumGateways: Int

    /// The defaults above, or the values given (intervals raised to at least 1 ms, the gateway
    /// limit to at least 1).
    public init(tickInterval: Duration = .seconds(1), rssiUpdateInterval: Duration = .seconds(10), maximumGateways: Int = 1_024) {
        self.tickInterval = max(tickInterval, .milliseconds(1))
        self.rssiUpdateInterval = max(rssiUpdateInterval, .milliseconds(1))
        self.maximumGateways = max(1, maximumGateways)
    }
}

/// What a ``FleetView`` has done so far. Every message from the broker is counted once, in
/// ``messages`` and in exactly one of the counts after it.
public struct FleetStatistics: Hashable, Sendable {
    /// Messages received from the broker.
    public var messages = 0
    /// Device reports fed to the arbiter (an RSSI from a gateway for a device).
    public var sightings = 0
    /// Gateway availability messages (`online`, `offline`) taken.
    public var availabilityMessages = 0
    /// Device reports without a usable RSSI (missing, not a number, outside −127…20 dBm).
    public var reportsWithoutRSSI = 0
    /// Messages skipped because their payload or topic could not be read: a report that is not
    /// a JSON object, an address that is not twelve hex digits, availability neither `online`
    /// nor `offline`.
    public var malformed = 0
    /// Messages under the fleet's own name (its own availability), skipped.
    public var own = 0
    /// Empty payloads (retained messages being cleared), skipped.
    public var cleared = 0
    /// Messages from gateways past ``FleetPublishingPolicy/maximumGateways``, skipped.
    public var refusedGateways = 0
    /// Messages handed to the MQTT client.
    public var published = 0
    /// Messages the MQTT client could not take (its queue for kept messages was full while the
    /// broker was away); the views go out again on the next connection.
    public var refused = 0
    /// Devices present now.
    public var devices = 0
    /// Gateways known now (online or offline).
    public var gateways = 0

    /// No messages yet.
    public init() {}
}
