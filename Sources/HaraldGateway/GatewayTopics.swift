import HaraldCore

/// The MQTT topics of one gateway, in Theengs Gateway's layout (so consumers written for Theengs
/// or OpenMQTTGateway read Harald's gateways unchanged):
///
/// - `home/NAME/BTtoMQTT/AABBCCDDEEFF`: one JSON object per device (the address in capitals,
///   without colons), published on change and refreshed while the device is present;
/// - `home/NAME/LWT`: `online` (retained, sent on every connection) and `offline` (the retained
///   last will, which the broker publishes when the gateway dies);
/// - `homeassistant/sensor/harald_AABBCCDDEEFF/KEY/config`: Home Assistant MQTT discovery, one
///   retained config per decoded value (`binary_sensor` for on/off values).
public struct GatewayTopics: Hashable, Sendable {
    /// The gateway's name, `--id NAME` (also its MQTT client identifier).
    public var gateway: String
    /// The first level of every gateway topic: `home`.
    public var base: String
    /// Home Assistant's discovery prefix: `homeassistant`.
    public var discoveryPrefix: String

    /// The topics of the gateway named `gateway`.
    public init(gateway: String, base: String = "home", discoveryPrefix: String = "homeassistant") {
        self.gateway = gateway
        self.base = base
        self.discoveryPrefix = discoveryPrefix
    }

    /// The gateway's availability topic: `home/NAME/LWT`.
    public var availability: String { "\(base)/\(gateway)/LWT" }

    /// The payload of ``availability`` while the gateway runs.
    public static let online = "online"
    /// The payload of ``availability`` once it stopped or died (its last will).
    public static let offline = "offline"

    /// The topic of the device at `address`: `home/NAME/BTtoMQTT/AABBCCDDEEFF`.
    public func device(_ address: BluetoothAddress) -> String {
        "\(base)/\(gateway)/BTtoMQTT/\(Self.compact(address))"
    }

    /// Home Assistant's status topic (`homeassistant/status`): `online` when it (re)started and
    /// wants discovery configs again.
    public var homeAssistantStatus: String { "\(discoveryPrefix)/status" }

    /// The discovery config topic of the value `key` of the device at `address`.
    public func discovery(_ address: BluetoothAddress, key: String, component: String) -> String {
        "\(discoveryPrefix)/\(component)/\(Self.nodeID(address))/\(key)/config"
    }

    /// The device's node id in Home Assistant: `harald_AABBCCDDEEFF`.
    static func nodeID(_ address: BluetoothAddress) -> String { "harald_\(compact(address))" }

    /// The address in capitals without colons (`AABBCCDDEEFF`), as Theengs' topics spell it.
    public static func compact(_ address: BluetoothAddress) -> String {
        address.string.filter { $0 != ":" }
    }

    /// The parts of a device topic of any gateway under `base`: its gateway and its address;
    /// nil for any other topic (or an address that is not twelve hex digits).
    public static func parseDevice(_ topic: String, base: String = "home") -> (gateway: String, address: String)? {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count == 4, levels[0] == base, !levels[1].isEmpty, levels[2] == "BTtoMQTT" else { return nil }
        let address = levels[3]
        guard address.count == 12, address.allSatisfy(\.isHexDigit) else { return nil }
        return (String(levels[1]), String(address))
    }

    /// The gateway of an availability topic (`home/NAME/LWT`) under `base`; nil for any other.
    public static func parseAvailability(_ topic: String, base: String = "home") -> String? {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count == 3, levels[0] == base, !levels[1].isEmpty, levels[2] == "LWT" else { return nil }
        return String(levels[1])
    }
}
