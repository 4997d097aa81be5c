import HaraldAdvertisements
import HaraldProfiles
import HaraldCore

/// What a gateway knows of one device, merged over its advertisements: a device that sends its
/// name in the scan response, or alternates a beacon frame and a sensor frame, is reported whole.
/// Published as one JSON object on the device's topic (``GatewayTopics/device(_:)``).
public struct DeviceReport: Hashable, Sendable {
    /// The device's address: its identity address when a bond's IRK resolved the address heard.
    public var address: BluetoothAddress
    /// The resolvable private address actually heard, when one was resolved to ``address``.
    public var resolvedPrivateAddress: BluetoothAddress?
    /// The advertised local name, once seen.
    public var name: String?
    /// The last RSSI, in dBm.
    public var rssi: Int?
    /// The advertised TX power level, in dBm.
    public var txPower: Int?
    /// The decoded values by key, each the latest heard (the manufacturer's name among them), and
    /// the scalar values of polled characteristics (decoder `GATT`).
    public var readings: [String: AdvertisementReading]
    /// The last BTHome service data heard (with its packet id): a new packet is a change even when
    /// its values repeat (a button pressed twice). Not published.
    var bthomeServiceData: [UInt8]?
    /// Values of polled characteristics that are not a single number, state or text (a heart
    /// rate measurement's fields), by key, as decoded.
    public var polled: [String: JSONValue]

    /// A report of the device at `address` with nothing heard yet.
    public init(address: BluetoothAddress) {
        self.address = address
        readings = [:]
        polled = [:]
    }

    /// Keys of the JSON object that are not decoded values; a reading with one of these keys is
    /// published under `<key>_value` instead (the manufacturer's name is published as is).
    static let reservedKeys: Set<String> = ["id", "address_type", "rpa", "name", "rssi", "txpower", "gateway", "units"]

    /// The key a reading is published under.
    static func publishedKey(_ key: String) -> String {
        reservedKeys.contains(key) ? key + "_value" : key
    }

    /// The same report, RSSI aside: what decides whether a new advertisement changed anything.
    var content: DeviceReport {
        var copy = self
        copy.rssi = nil
        return copy
    }

    /// The JSON object: `id` (`AA:BB:CC:DD:EE:FF`), `address_type`, `rpa` when resolved, `name`,
    /// `rssi`, `txpower`, `gateway`, every decoded value under its key, and `units` mapping each
    /// key that has a unit to it.
    func json(gateway: String) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(address.string),
            "address_type": .string(address.kind.description),
            "gateway": .string(gateway),
        ]
        if let resolvedPrivateAddress { object["rpa"] = .string(resolvedPrivateAddress.string) }
        if let name { object["name"] = .string(name) }
        if let rssi { object["rssi"] = .number(Double(rssi)) }
        if let txPower { object["txpower"] = .number(Double(txPower)) }
        var units: [String: JSONValue] = [:]
        for reading in readings.values {
            let key = Self.publishedKey(reading.key)
            object[key] = Self.json(reading.value)
            if let unit = reading.unit { units[key] = .string(unit) }
        }
        for (key, value) in polled { object[Self.publishedKey(key)] = value }
        if !units.isEmpty { object["units"] = .object(units) }
        return .object(object)
    }

    static func json(_ value: AdvertisementValue) -> JSONValue {
        switch value {
        case let .number(number): .number(number)
        case let .bool(flag): .bool(flag)
        case let .text(text): .string(text)
        }
    }
}
