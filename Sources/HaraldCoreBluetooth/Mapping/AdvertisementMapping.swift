import Foundation
import Harald
import HaraldCodec
import HaraldCore

/// Turns CoreBluetooth's advertisement dictionary back into AD structures.
///
/// CoreBluetooth hands apps a parsed dictionary, not the bytes on air, so ``AdvertisingData``
/// is rebuilt from it in a fixed order: complete local name (0x09), TX power level (0x0A),
/// service UUID lists (complete, per width: 0x03/0x05/0x07), overflow-area UUIDs as incomplete
/// lists (0x02/0x04/0x06), solicited UUIDs (0x14/0x1F/0x15), service data (0x16/0x20/0x21),
/// manufacturer data (0xFF, company ID first as on air). The Flags and Appearance structures are
/// not available through CoreBluetooth and never appear.
enum AdvertisementMapping {
    static func advertisingData(from dictionary: [String: Any], keys: CoreBluetoothKeys, uuid: (AnyObject) -> BluetoothUUID?) -> AdvertisingData {
        var structures: [AdvertisingData.Structure] = []
        if let name = dictionary[keys.localName] as? String {
            structures.append(.init(type: .completeLocalName, data: Array(name.utf8)))
        }
        if let power = number(dictionary[keys.txPowerLevel]) {
            structures.append(.init(type: .txPowerLevel, data: [UInt8(bitPattern: Int8(clamping: power.intValue))]))
        }
        let lists: [(String, [AdvertisingDataType])] = [
            (keys.serviceUUIDs, [.completeList16BitServiceUUIDs, .completeList32BitServiceUUIDs, .completeList128BitServiceUUIDs]),
            (keys.overflowServiceUUIDs, [.incompleteList16BitServiceUUIDs, .incompleteList32BitServiceUUIDs, .incompleteList128BitServiceUUIDs]),
            (keys.solicitedServiceUUIDs, [.solicitation16BitServiceUUIDs, .solicitation32BitServiceUUIDs, .solicitation128BitServiceUUIDs]),
        ]
        for (key, types) in lists {
            guard let objects = dictionary[key] as? [AnyObject] else { continue }
            structures += uuidLists(objects.compactMap(uuid), types: types)
        }
        if let serviceData = dictionary[keys.serviceData] as? [AnyHashable: Any] {
            var entries: [(BluetoothUUID, [UInt8])] = []
            for (key, value) in serviceData {
                guard let serviceUUID = uuid(key.base as AnyObject), let bytes = bytes(value) else { continue }
                entries.append((serviceUUID, bytes))
            }
            for (serviceUUID, bytes) in entries.sorted(by: { $0.0 < $1.0 }) {
                let type: AdvertisingDataType =
                    switch serviceUUID.bitWidth {
                    case 16: .serviceData16BitUUID
                    case 32: .serviceData32BitUUID
                    default: .serviceData128BitUUID
                    }
                structures.append(.init(type: type, data: littleEndianBytes(serviceUUID) + bytes))
            }
        }
        if let manufacturer = bytes(dictionary[keys.manufacturerData] as Any) {
            structures.append(.init(type: .manufacturerSpecificData, data: manufacturer))
        }
        return AdvertisingData(structures: structures)
    }

    /// Whether the dictionary says the advertiser is connectable (true when it does not say).
    static func isConnectable(_ dictionary: [String: Any], keys: CoreBluetoothKeys) -> Bool {
        number(dictionary[keys.isConnectable])?.boolValue ?? true
    }

    /// The UUID in the wire order of AD structures: little-endian, in its shortest width.
    static func littleEndianBytes(_ uuid: BluetoothUUID) -> [UInt8] {
        if let short = uuid.uuid16 { return [UInt8(short & 0xFF), UInt8(short >> 8)] }
        if let short = uuid.uuid32 { return (0..<4).map { UInt8(truncatingIfNeeded: short >> (8 * $0)) } }
        return uuid.bigEndianBytes.reversed()
    }

    private static func uuidLists(_ uuids: [BluetoothUUID], types: [AdvertisingDataType]) -> [AdvertisingData.Structure] {
        var result: [AdvertisingData.Structure] = []
        for (width, type) in zip([16, 32, 128], types) {
            let matching = uuids.filter { $0.bitWidth == width }
            if !matching.isEmpty { result.append(.init(type: type, data: matching.flatMap(littleEndianBytes))) }
        }
        return result
    }

    static func number(_ value: Any?) -> NSNumber? {
        if let number = value as? NSNumber { return number }
        if let int = value as? Int { return NSNumber(value: int) }
        if let bool = value as? Bool { return NSNumber(value: bool) }
        return nil
    }

    static func bytes(_ value: Any) -> [UInt8]? {
        if let data = value as? Data { return [UInt8](data) }
        if let data = value as? NSData { return [UInt8](data as Data) }
        if let array = value as? [UInt8] { return array }
        return nil
    }
}
