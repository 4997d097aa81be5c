import Foundation
import HaraldCodec
import HaraldCore

/// Identifies a peripheral to connect to, the way the backend knows it: a Bluetooth device
/// address on HCI and in the simulator, an opaque per-phone UUID on CoreBluetooth.
///
/// Codable as `{"rawValue": "…", "address": "C0:00:00:00:00:01/random"}` (no `address` when the
/// backend has none), so an app can store the peripherals it knows and connect to them again
/// on the same backend.
public struct PeripheralIdentifier: Hashable, Sendable, Codable, Identifiable, CustomStringConvertible {
    /// The backend's text form: `"F0:F1:F2:F3:F4:F5/random"`, or a UUID string on Apple.
    public var rawValue: String
    /// The 48-bit device address, when the backend exposes it (not on CoreBluetooth).
    public var address: BluetoothAddress?

    /// An identifier from the backend's text form, with the device address when the backend has one.
    public init(rawValue: String, address: BluetoothAddress? = nil) {
        self.rawValue = rawValue
        self.address = address
    }

    /// An identifier for a device address.
    public init(address: BluetoothAddress) {
        self.rawValue = address.description
        self.address = address
    }

    /// An identifier for a peripheral CoreBluetooth names by a UUID (`CBPeripheral.identifier`,
    /// AccessorySetupKit's `ASAccessory.bluetoothIdentifier`, one kept from an earlier launch);
    /// what the CoreBluetooth backend reports for that peripheral.
    public init(uuid: UUID) {
        self.rawValue = uuid.uuidString
        self.address = nil
    }

    /// The identifier as CoreBluetooth's UUID (for `retrievePeripherals(withIdentifiers:)` and
    /// the like), or nil when it is not one (a device address on the other backends).
    public var uuid: UUID? { address == nil ? UUID(uuidString: rawValue) : nil }

    /// The identifier itself.
    public var id: PeripheralIdentifier { self }

    /// The backend's text form, ``rawValue``: `F0:F1:F2:F3:F4:F5/random`, or a UUID string on Apple.
    public var description: String { rawValue }
}

/// One advertisement (merged with its scan response for active scans) seen while scanning.
///
/// Identified by its ``peripheral`` (a list of advertisements shows one row per advertiser).
/// Codable as `{"peripheral", "rssi" (dBm, absent when unknown), "isConnectable", "data"
/// (the AD structures as hex), "receivedAt" (Swift's `Duration` coding), "resolvedPrivateAddress"
/// (absent unless resolved)}`; decoding validates every field and throws `DecodingError` for
/// malformed input.
///
/// A bonded device that advertises from a resolvable private address (one that changes every
/// few minutes) is recognised with the IRK it gave when pairing: on the HCI backend its
/// ``peripheral`` is then the bond's identity address, the same from one address to the next, and
/// connecting to it reaches the device at the address it was last seen at.
/// ``resolvedPrivateAddress`` keeps the address actually received.
public struct Advertisement: Hashable, Sendable, Codable, Identifiable {
    /// Who sent it; pass to `Central/connect(to:timeout:)`.
    public var peripheral: PeripheralIdentifier
    /// Received signal strength; nil when the backend could not measure it.
    public var rssi: RSSI?
    /// Whether the advertiser accepts connections.
    public var isConnectable: Bool
    /// The advertising data (and scan-response data, appended) with typed accessors.
    public var data: AdvertisingData
    /// When it was received, as backend time since the scan started.
    public var receivedAt: Duration
    /// The resolvable private address the advertisement came from, when the backend resolved it
    /// with a bonded peer's IRK (``peripheral`` is then that peer's identity address); nil when
    /// ``peripheral`` is the advertiser as received.
    public var resolvedPrivateAddress: BluetoothAddress?

    /// An advertisement as a backend reports it; `rssi` in dBm, `receivedAt` on the central's clock.
    public init(
        peripheral: PeripheralIdentifier, rssi: RSSI?, isConnectable: Bool, data: AdvertisingData, receivedAt: Duration = .zero,
        resolvedPrivateAddress: BluetoothAddress? = nil
    ) {
        self.peripheral = peripheral
        self.rssi = rssi
        self.isConnectable = isConnectable
        self.data = data
        self.receivedAt = receivedAt
        self.resolvedPrivateAddress = resolvedPrivateAddress
    }

    /// The advertiser: ``peripheral``.
    public var id: PeripheralIdentifier { peripheral }

    /// The advertised name, if any.
    public var localName: String? { data.localName }
    /// The advertised service UUIDs.
    public var serviceUUIDs: [BluetoothUUID] { data.serviceUUIDs }
}
