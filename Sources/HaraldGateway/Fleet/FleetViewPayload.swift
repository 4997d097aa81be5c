import HaraldCore
import HaraldFleet
import HaraldMQTT
import HaraldProfiles

/// One message a fleet view publishes.
struct FleetMessage: Hashable, Sendable {
    var topic: String
    var payload: [UInt8]
    var retain: Bool
    /// Kept for presence, ownership and liveness; droppable for RSSI-only updates (a later
    /// update, or the full republication on reconnection, supersedes them).
    var delivery: MQTTDeliveryClass
}

/// The JSON a fleet view publishes.
enum FleetViewPayload {
    /// A present device: `{"id": "AA:BB:CC:DD:EE:FF", "address_type": "public", "present": true,
    /// "owner": "hall", "rssi": {"hall": -61.5, "kitchen": -78}, "last_heard_ago": 0.4}`, with
    /// each online gateway's smoothed RSSI (dBm, to 0.1) and the seconds since any gateway last
    /// heard it, at publication.
    static func present(_ device: FleetDevice, at now: Duration) -> [UInt8] {
        JSONValue.object([
            "id": .string(device.address.string),
            "address_type": .string(device.address.kind.description),
            "present": .bool(true),
            "owner": .string(device.owner),
            "rssi": .object(device.rssi.mapValues { .number(tenths($0)) }),
            "last_heard_ago": .number(tenths(seconds(max(.zero, now - device.lastHeard)))),
        ]).bytes
    }

    /// A device that went away: `{"id": …, "address_type": …, "present": false}` (published live,
    /// not retained, before the retained view is cleared).
    static func away(_ address: BluetoothAddress) -> [UInt8] {
        JSONValue.object([
            "id": .string(address.string), "address_type": .string(address.kind.description), "present": .bool(false),
        ]).bytes
    }

    /// Every known gateway's liveness: `{"hall": "online", "kitchen": "offline"}`.
    static func gateways(_ liveness: [GatewayID: Bool]) -> [UInt8] {
        JSONValue.object(liveness.mapValues { .string($0 ? GatewayTopics.online : GatewayTopics.offline) }).bytes
    }

    static func tenths(_ value: Double) -> Double { (value * 10).rounded() / 10 }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
