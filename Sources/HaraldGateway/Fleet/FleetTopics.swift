import HaraldCore
import HaraldMQTT

/// The MQTT topics of a fleet view, beside its gateways' topics (``GatewayTopics``):
///
/// - it reads `home/+/BTtoMQTT/+` (every gateway's device reports) and `home/+/LWT` (every
///   gateway's availability);
/// - it writes `home/fleet/AABBCCDDEEFF`, one retained JSON object per present device (see
///   ``FleetView``), `home/fleet/gateways` (retained: each gateway's `online` or `offline`) and
///   `home/fleet/LWT` (retained `online` on every connection, `offline` as its last will).
///
/// The fleet's name takes a gateway's place in the topics, so no gateway may be named like it:
/// messages under the fleet's own name are never read as a gateway's.
public struct FleetTopics: Hashable, Sendable {
    /// The fleet's name: the second level of its topics (default `fleet`), and its MQTT client
    /// identifier unless the configuration names another.
    public var name: String
    /// The first level of every topic, the gateways' and the fleet's: `home`.
    public var base: String

    /// The topics of the fleet named `name` under `base`.
    public init(name: String = "fleet", base: String = "home") {
        self.name = name
        self.base = base
    }

    /// What the fleet subscribes to: every gateway's device reports and availability.
    public var subscriptions: [MQTTTopicFilter] {
        [MQTTTopicFilter("\(base)/+/BTtoMQTT/+", qos: .atLeastOnce), MQTTTopicFilter("\(base)/+/LWT", qos: .atLeastOnce)]
    }

    /// The view of the device at `address`: `home/fleet/AABBCCDDEEFF` (the 48 bits in capitals,
    /// as a gateway's device topic spells them).
    public func device(_ address: BluetoothAddress) -> String {
        "\(base)/\(name)/\(GatewayTopics.compact(address))"
    }

    /// Every gateway's liveness: `home/fleet/gateways`.
    public var gateways: String { "\(base)/\(name)/gateways" }

    /// The fleet's own availability: `home/fleet/LWT` (`online`, or `offline` as its will).
    public var availability: String { "\(base)/\(name)/LWT" }
}
