import HaraldCodec
import HaraldCore

/// The Generic Attribute service (0x1801) that GATT defines for itself (Core spec Vol 3 Part G
/// §7), as far as Harald's engines use it: its Service Changed characteristic (0x2A05), the way
/// a server tells its clients which attribute handles no longer mean what they meant.
public enum GATTGenericAttributeService {
    /// The Generic Attribute service, 0x1801.
    public static let uuid = BluetoothUUID(0x1801)
    /// Service Changed, 0x2A05 (§7.1): indicate only, and its value is not readable. The value is
    /// the first and the last affected handle, each a little-endian UInt16.
    public static let serviceChanged = BluetoothUUID(0x2A05)
    /// Database Hash, 0x2B2A (§7.3): read only, 16 bytes that change whenever the layout of the
    /// database does, so a client that cached the layout can check it with one read.
    public static let databaseHash = BluetoothUUID(0x2B2A)

    /// The service as a server offers it: Service Changed alone, with no read or write
    /// permission on its value (the server adds its Client Characteristic Configuration
    /// descriptor).
    package static var definition: GATTServiceDefinition { definition(withDatabaseHash: false) }

    /// The service with Service Changed and, when asked, Database Hash (readable; its value is
    /// filled in by the server, see ``GATTServer/Configuration/databaseHash``).
    package static func definition(withDatabaseHash: Bool) -> GATTServiceDefinition {
        var characteristics = [GATTCharacteristicDefinition(uuid: serviceChanged, properties: [.indicate], permissions: [])]
        if withDatabaseHash {
            characteristics.append(GATTCharacteristicDefinition(uuid: databaseHash, properties: [.read], value: [UInt8](repeating: 0, count: 16)))
        }
        return GATTServiceDefinition(uuid: uuid, characteristics: characteristics)
    }

    /// The Service Changed value naming `range`.
    public static func serviceChangedValue(_ range: ATTHandleRange) -> [UInt8] {
        [UInt8(range.start & 0xFF), UInt8(range.start >> 8), UInt8(range.end & 0xFF), UInt8(range.end >> 8)]
    }

    /// The handles a Service Changed value names. A value that names no valid range (not four
    /// bytes, a start of 0, a start after the end) is taken as every handle: a client that cannot
    /// tell what changed has to assume everything did.
    public static func changedRange(_ value: [UInt8]) -> ATTHandleRange {
        guard value.count == 4 else { return .all }
        let range = ATTHandleRange(start: UInt16(value[0]) | UInt16(value[1]) << 8, end: UInt16(value[2]) | UInt16(value[3]) << 8)
        return range.isValid ? range : .all
    }
}

/// Where a server's Service Changed characteristic lives: its value handle (what the indications
/// carry) and its Client Characteristic Configuration descriptor (what turns them on).
public struct GATTServiceChangedHandles: Sendable, Hashable {
    /// The value handle of Service Changed (0x2A05).
    public var valueHandle: UInt16
    /// The handle of its Client Characteristic Configuration descriptor.
    public var cccdHandle: UInt16

    /// The handles from discovery.
    public init(valueHandle: UInt16, cccdHandle: UInt16) {
        self.valueHandle = valueHandle
        self.cccdHandle = cccdHandle
    }
}
