import Foundation
import HaraldCore
import HaraldFleet
import HaraldMQTT

/// One message from the broker as the fleet reads it: a gateway's sighting of a device, a
/// gateway's availability, or something it skips (and counts).
///
/// Reading is liberal, for Theengs Gateway and OpenMQTTGateway as much as for Harald's gateways:
/// keys in any case, extra keys ignored, `address_type` optional (a device whose 48 bits a gateway
/// already reported as random stays random; otherwise public), `rssi` a number or a numeric
/// string. A payload that is not a JSON object, or a topic that is not a gateway's, is skipped;
/// nothing traps.
enum FleetInput: Hashable, Sendable {
    /// A gateway heard a device.
    case sighting(FleetSighting)
    /// A gateway's availability: its retained `online`, or its `offline` (its last will).
    case availability(gateway: GatewayID, online: Bool)
    /// A device report without a usable RSSI (nothing to arbitrate with).
    case withoutRSSI(gateway: GatewayID)
    /// A message under the fleet's own name (its own availability, for instance).
    case own
    /// A message the fleet cannot read: its topic, or its payload.
    case malformed
    /// An empty payload: a retained message being cleared.
    case cleared

    /// The RSSI range an HCI controller reports (dBm); outside it a value is not a measurement
    /// (127 is HCI's "not available"), and a report carrying one counts as without RSSI.
    static let plausibleRSSI: ClosedRange<Double> = -127...20

    /// Reads `message` for the fleet `topics`.
    init(_ message: MQTTMessage, topics: FleetTopics) {
        if let gateway = GatewayTopics.parseAvailability(message.topic, base: topics.base) {
            guard gateway != topics.name else {
                self = .own
                return
            }
            let text = String(decoding: message.payload, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            switch text {
            case GatewayTopics.online: self = .availability(gateway: gateway, online: true)
            case GatewayTopics.offline: self = .availability(gateway: gateway, online: false)
            case "": self = .cleared
            default: self = .malformed
            }
            return
        }
        guard let (gateway, compact) = GatewayTopics.parseDevice(message.topic, base: topics.base), let topicValue = UInt64(compact, radix: 16) else {
            self = .malformed
            return
        }
        guard gateway != topics.name else {
            self = .own
            return
        }
        guard !message.payload.isEmpty else {
            self = .cleared
            return
        }
        guard let fields = try? JSONDecoder().decode(ReportFields.self, from: Data(message.payload)) else {
            self = .malformed
            return
        }
        guard let rssi = fields.rssi, rssi.isFinite, Self.plausibleRSSI.contains(rssi) else {
            self = .withoutRSSI(gateway: gateway)
            return
        }
        let value = fields.id.flatMap(Self.addressValue) ?? topicValue
        let kind = fields.addressType.flatMap { BluetoothAddress.Kind($0.trimmingCharacters(in: .whitespaces)) }
        self = .sighting(FleetSighting(gateway: gateway, addressValue: value, kind: kind, rssi: rssi))
    }

    /// The 48 bits of an `id`: `AA:BB:CC:DD:EE:FF` (or dashes, any case) or twelve hex digits.
    static func addressValue(_ id: String) -> UInt64? {
        let text = id.trimmingCharacters(in: .whitespaces)
        if let address = BluetoothAddress(text) { return address.value }
        guard text.count == 12, text.allSatisfy(\.isHexDigit) else { return nil }
        return UInt64(text, radix: 16)
    }
}

/// One gateway hearing one device, as read from its report (the time is added when it arrives).
struct FleetSighting: Hashable, Sendable {
    /// The gateway, from the report's topic.
    var gateway: GatewayID
    /// The device's 48 bits: the report's `id`, or its topic's address when `id` is missing or
    /// not an address.
    var addressValue: UInt64
    /// The report's `address_type`; nil when missing or neither `public` nor `random`.
    var kind: BluetoothAddress.Kind?
    /// The RSSI, dBm.
    var rssi: Double
}

/// The keys of a device report the fleet reads, found in any case; every other key is ignored,
/// and a key of the wrong type reads as missing. Decoding fails only when the payload is not a
/// JSON object.
private struct ReportFields: Decodable {
    var id: String?
    var addressType: String?
    var rssi: Double?

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        for key in container.allKeys {
            switch key.stringValue.lowercased() {
            case "id": id = try? container.decode(String.self, forKey: key)
            case "address_type": addressType = try? container.decode(String.self, forKey: key)
            case "rssi":
                if let number = try? container.decode(Double.self, forKey: key) {
                    rssi = number
                } else if let text = try? container.decode(String.self, forKey: key) {
                    rssi = Double(text.trimmingCharacters(in: .whitespaces))
                }
            default: continue
            }
        }
    }
}
