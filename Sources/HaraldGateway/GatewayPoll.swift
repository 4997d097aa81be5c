import Harald
import HaraldProfiles

/// A characteristic a gateway reads on a schedule (`--poll ADDRESS:UUID:SECONDS`): a value the
/// device does not advertise, such as a battery level only readable over GATT. Each round
/// connects, reads, and disconnects through the ordinary connection API; the decoded value joins
/// the device's report.
public struct GatewayPoll: Hashable, Sendable {
    /// The device, matched on its 48 bits against the devices the gateway hears (its address type
    /// is learnt from its advertisements).
    public var device: BluetoothAddress
    /// The characteristic read (the first with this UUID, in any service).
    public var characteristic: BluetoothUUID
    /// Time between two reads; the first is made once the device has been heard.
    public var interval: Duration

    /// A poll of `characteristic` on `device` every `interval`.
    public init(device: BluetoothAddress, characteristic: BluetoothUUID, interval: Duration) {
        self.device = device
        self.characteristic = characteristic
        self.interval = interval
    }

    /// `C0:00:00:00:00:01:2A19:60`: the address, the characteristic UUID (16-bit or 128-bit),
    /// the seconds between reads (at least 1); nil when malformed.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 8, let device = BluetoothAddress(parts[0..<6].joined(separator: ":")),
            let characteristic = BluetoothUUID(String(parts[6])), let seconds = Double(parts[7]), seconds.isFinite, seconds >= 1, seconds <= 86_400
        else { return nil }
        self.init(device: device, characteristic: characteristic, interval: .milliseconds(Int64(seconds * 1000)))
    }

    /// The key the value is published under: the characteristic's name in snake case
    /// (`battery_level`) when `registry` knows it, else `gatt_` and the UUID (`gatt_2a19`).
    public func key(in registry: CharacteristicRegistry) -> String {
        guard let name = registry.entry(for: characteristic)?.name else {
            return "gatt_" + characteristic.description.lowercased().filter { $0.isLetter || $0.isNumber }
        }
        var key = ""
        for character in name.lowercased() {
            if character.isLetter || character.isNumber {
                key.append(character)
            } else if !key.isEmpty, key.last != "_" {
                key.append("_")
            }
        }
        while key.last == "_" { key.removeLast() }
        return key
    }

    /// Connects to `peripheral`, reads the characteristic and disconnects; the value decoded by
    /// `registry` (hex text when it has no decoder).
    func read(on central: Central, peripheral: PeripheralIdentifier, registry: CharacteristicRegistry, timeout: Duration) async throws -> JSONValue {
        let connection = try await central.connect(to: peripheral, timeout: timeout)
        do {
            var found: DiscoveredCharacteristic?
            for (_, characteristics) in try await connection.discoverAll(timeout: timeout) {
                found = characteristics.first { $0.uuid == characteristic }
                if found != nil { break }
            }
            guard let found else { throw BluetoothError.notFound("characteristic \(characteristic)") }
            let bytes = try await connection.readRaw(found, timeout: timeout)
            await connection.disconnect()
            return try registry.describe(bytes, as: characteristic) ?? .string(bytes.map { Hex.byte($0) }.joined())
        } catch {
            await connection.disconnect()
            throw error
        }
    }
}
