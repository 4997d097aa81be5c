import HaraldAdvertisements
import HaraldProfiles
import HaraldCore

/// Home Assistant MQTT discovery for a gateway's devices: one retained config per decoded value,
/// so each value appears in Home Assistant as an entity of the device, with its unit and device
/// class, unavailable while the gateway is offline and after the stale time without a report.
enum HomeAssistantDiscovery {
    /// Readings that describe the device rather than measure anything: no entity of their own
    /// (the manufacturer's name goes into the device block).
    static let deviceKeys: Set<String> = ["manufacturer"]

    /// Whether the reading gets an entity.
    static func announces(_ reading: AdvertisementReading) -> Bool {
        !deviceKeys.contains(reading.key)
    }

    /// `binary_sensor` for on/off values, `sensor` for the rest.
    static func component(of reading: AdvertisementReading) -> String {
        if case .bool = reading.value { return "binary_sensor" }
        return "sensor"
    }

    /// A topic level made of the characters discovery accepts in an object id (letters, digits,
    /// `_` and `-`); anything else becomes `_`.
    static func objectID(_ key: String) -> String {
        String(key.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? $0 : "_" })
    }

    /// The retained config message of `reading` of the device `report`.
    static func config(
        for reading: AdvertisementReading, of report: DeviceReport, topics: GatewayTopics, expireAfter: Duration
    ) -> GatewayMessage {
        let key = DeviceReport.publishedKey(reading.key)
        let object = objectID(key)
        let node = GatewayTopics.nodeID(report.address)
        let component = component(of: reading)
        var config: [String: JSONValue] = [
            "name": .string(key.replacingUnderscores),
            "unique_id": .string("\(node)_\(object)"),
            "state_topic": .string(topics.device(report.address)),
            "availability_topic": .string(topics.availability),
            "payload_available": .string(GatewayTopics.online),
            "payload_not_available": .string(GatewayTopics.offline),
            "expire_after": .number(Double(max(1, expireAfter.components.seconds))),
            "device": .object(device(report, node: node, gateway: topics.gateway)),
        ]
        // The key is quoted: a key like `temperature_2` or one with a dash still reads.
        let lookup = "value_json['\(key)']"
        if component == "binary_sensor" {
            config["value_template"] = .string("{{ 'ON' if \(lookup) else 'OFF' }}")
        } else {
            config["value_template"] = .string("{{ \(lookup) }}")
            if case .number = reading.value { config["state_class"] = .string("measurement") }
        }
        if let unit = reading.unit { config["unit_of_measurement"] = .string(unit) }
        if let deviceClass = reading.deviceClass { config["device_class"] = .string(deviceClass) }
        return GatewayMessage(
            topic: topics.discovery(report.address, key: object, component: component), payload: JSONValue.object(config).bytes,
            retain: true, kind: .discovery)
    }

    private static func device(_ report: DeviceReport, node: String, gateway: String) -> [String: JSONValue] {
        var device: [String: JSONValue] = [
            "identifiers": .array([.string(node)]),
            "connections": .array([.array([.string("bluetooth"), .string(report.address.string)])]),
            "name": .string(report.name ?? report.address.string),
        ]
        if case let .text(manufacturer)? = report.readings["manufacturer"]?.value { device["manufacturer"] = .string(manufacturer) }
        return device
    }
}

extension String {
    /// `temperature_2` → `temperature 2`: a key as an entity name.
    fileprivate var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
}
