import HaraldCodec
import HaraldCore

/// What a peripheral advertises: enough for centrals to find it and know what it is.
///
/// Backends put what fits where it may go: over HCI, legacy advertising (31 octets of
/// advertising data and 31 of scan response; the name moves to the scan response when both do not
/// fit together) and, when even that does not fit, one extended advertising set on controllers
/// that have it (else ``BluetoothError/unsupported(_:)`` naming the sizes); CoreBluetooth
/// advertises only the local name and service UUIDs.
public struct PeripheralAdvertisement: Hashable, Sendable {
    /// Complete Local Name.
    public var name: String?
    /// Service UUIDs, listed complete.
    public var services: [BluetoothUUID]
    /// Manufacturer Specific Data (company identifier and bytes).
    public var manufacturer: ManufacturerData?
    /// Appearance (GAP assigned number, e.g. 0x0341 heart-rate belt).
    public var appearance: UInt16?
    /// TX Power Level in dBm.
    public var txPower: Int8?
    /// Whether centrals may connect (else a beacon).
    public var isConnectable: Bool

    /// An advertisement; `appearance` is the GAP Appearance value, `txPower` in dBm.
    public init(
        name: String? = nil, services: [BluetoothUUID] = [], manufacturer: ManufacturerData? = nil, appearance: UInt16? = nil,
        txPower: Int8? = nil, isConnectable: Bool = true
    ) {
        self.name = name
        self.services = services
        self.manufacturer = manufacturer
        self.appearance = appearance
        self.txPower = txPower
        self.isConnectable = isConnectable
    }

    /// Everything in one list of AD structures: flags, service UUIDs, manufacturer data, name,
    /// appearance, TX power (what extended advertising carries when it does not fit 31 octets).
    public var advertisingData: AdvertisingData {
        AdvertisingData.device(name: name, services: services, manufacturer: manufacturer).adding(appearance: appearance, txPower: txPower)
    }

    /// Advertising data and scan response for legacy advertising (31 octets each): everything in
    /// the advertising data when it fits, else the name in the scan response; nil when even that
    /// does not fit.
    public func legacyPayloads() -> (data: AdvertisingData, scanResponse: AdvertisingData)? {
        let all = advertisingData
        if all.bytes.count <= 31 { return (all, AdvertisingData()) }
        let withoutName = AdvertisingData.device(name: nil, services: services, manufacturer: manufacturer)
            .adding(appearance: appearance, txPower: txPower)
        let nameOnly = AdvertisingData(structures: name.map { [AdvertisingData.Structure(type: .completeLocalName, data: Array($0.utf8))] } ?? [])
        guard withoutName.bytes.count <= 31, nameOnly.bytes.count <= 31 else { return nil }
        return (withoutName, nameOnly)
    }
}

extension AdvertisingData {
    /// The same data with Appearance and TX Power Level structures added (when given).
    func adding(appearance: UInt16?, txPower: Int8?) -> AdvertisingData {
        var structures = self.structures
        if let appearance { structures.append(Structure(type: .appearance, data: [UInt8(appearance & 0xFF), UInt8(appearance >> 8)])) }
        if let txPower { structures.append(Structure(type: .txPowerLevel, data: [UInt8(bitPattern: txPower)])) }
        return AdvertisingData(structures: structures)
    }
}
