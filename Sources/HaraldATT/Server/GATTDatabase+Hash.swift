import HaraldCodec
import HaraldCore

/// AES-CMAC under the all-zero key (RFC 4493), as the Database Hash needs it: the message in,
/// the 16-byte MAC out in RFC order (most significant byte first). The ATT layer has no AES of
/// its own; Harald's Security Manager provides one (see `GATTDatabaseHashing` in
/// HaraldGATTLink).
public typealias GATTDatabaseHashFunction = @Sendable (_ message: [UInt8]) -> [UInt8]

extension GATTDatabase {
    /// The message the Database Hash is computed over (Core spec Vol 3 Part G §7.3.1), in handle
    /// order: for each service, include and characteristic declaration and each Characteristic
    /// Extended Properties descriptor, its handle, its type and its value; for each User
    /// Description, Client and Server Characteristic Configuration, Presentation Format and
    /// Aggregate Format descriptor, its handle and type. Handles and types are little-endian, a
    /// type as 2 or 16 bytes as it appears in the database. Values of characteristics and of other
    /// descriptors are left out: the hash describes the layout, not the data.
    public var databaseHashMessage: [UInt8] {
        let withValue: Set<BluetoothUUID> = [
            GATTAttributeType.primaryService, GATTAttributeType.secondaryService, GATTAttributeType.include,
            GATTAttributeType.characteristic, GATTAttributeType.characteristicExtendedProperties,
        ]
        let withoutValue: Set<BluetoothUUID> = [
            GATTAttributeType.characteristicUserDescription, GATTAttributeType.clientCharacteristicConfiguration,
            GATTAttributeType.serverCharacteristicConfiguration, GATTAttributeType.characteristicPresentationFormat,
            GATTAttributeType.characteristicAggregateFormat,
        ]
        var message: [UInt8] = []
        for attribute in attributes {
            if case .characteristicValue = attribute.role { continue }  // a value whose UUID happens to be 0x2901 is still a value
            let included = withValue.contains(attribute.type)
            guard included || withoutValue.contains(attribute.type) else { continue }
            message += [UInt8(attribute.handle & 0xFF), UInt8(attribute.handle >> 8)]
            message += Self.uuidBytes(attribute.type)
            if included { message += attribute.value }
        }
        return message
    }

    /// The Database Hash value as it goes on the wire: `cmac`'s MAC of ``databaseHashMessage``,
    /// byte-reversed to little-endian. The spec does not state the octet order; multi-octet
    /// values in ATT are little-endian (Vol 3 Part F §3.3.1) and the SIG's qualification test
    /// GATT/SR/GAS/BV-02-C expects this order (Zephyr sends it; Bumble sends the MAC unreversed).
    public func databaseHash(using cmac: GATTDatabaseHashFunction) -> [UInt8] {
        Array(cmac(databaseHashMessage).reversed())
    }

    /// Stores the current hash as the value of the Database Hash characteristic of the Generic
    /// Attribute service, when there is one.
    mutating func refreshDatabaseHash(using cmac: GATTDatabaseHashFunction) {
        guard let service = services.first(where: { $0.uuid == GATTGenericAttributeService.uuid }),
            let entry = characteristics.first(where: { $0.service == service && $0.characteristic.uuid == GATTGenericAttributeService.databaseHash }),
            let index = index(of: entry.characteristic.valueHandle)
        else { return }
        attributes[index].value = databaseHash(using: cmac)
    }
}
