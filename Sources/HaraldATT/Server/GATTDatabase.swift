import HaraldCodec
import HaraldCore

/// Why a service description could not be laid out as an attribute database.
public enum GATTDatabaseError: Error, Sendable, Hashable {
    /// The description needs more than 65535 handles.
    case tooManyAttributes
    /// A service includes a UUID that no other service of the database has.
    case unknownIncludedService(BluetoothUUID)
    /// A stored value is longer than 512 bytes.
    case valueTooLong(BluetoothUUID)
}

/// The attributes of a GATT server, one per handle from 0x0001, built from service definitions.
public struct GATTDatabase: Sendable {
    /// What an attribute is, so the server can treat declarations and CCCDs specially.
    enum Role: Sendable {
        case serviceDeclaration(end: UInt16)
        case include
        case characteristicDeclaration
        case characteristicValue(properties: CharacteristicProperties)
        case descriptor
        /// A Client Characteristic Configuration descriptor; its value lives per connection.
        case clientConfiguration(valueHandle: UInt16, properties: CharacteristicProperties)
    }

    struct Attribute: Sendable {
        let handle: UInt16
        let type: BluetoothUUID
        let role: Role
        let permissions: GATTPermissions
        var value: [UInt8]
        let onRead: GATTReadHandler?
        let onWrite: GATTWriteHandler?
    }

    var attributes: [Attribute]
    /// Services in handle order.
    public let services: [GATTService]
    /// Characteristics in handle order, with the service each belongs to.
    public let characteristics: [(service: GATTService, characteristic: GATTCharacteristic)]

    /// Lays out `services` in order: declaration, includes, then each characteristic's
    /// declaration, value and descriptors.
    public init(services definitions: [GATTServiceDefinition]) throws(GATTDatabaseError) {
        var attributes: [Attribute] = []
        var services: [GATTService] = []
        var characteristics: [(GATTService, GATTCharacteristic)] = []
        var includeSlots: [(index: Int, uuid: BluetoothUUID)] = []
        var next = 1

        func add(_ type: BluetoothUUID, _ role: Role, _ permissions: GATTPermissions, _ value: [UInt8],
                 onRead: GATTReadHandler? = nil, onWrite: GATTWriteHandler? = nil) throws(GATTDatabaseError) -> UInt16 {
            guard next <= 0xFFFF else { throw .tooManyAttributes }
            guard value.count <= ATT.maximumValueLength else { throw .valueTooLong(type) }
            let handle = UInt16(next)
            attributes.append(Attribute(handle: handle, type: type, role: role, permissions: permissions, value: value, onRead: onRead, onWrite: onWrite))
            next += 1
            return handle
        }

        for definition in definitions {
            let serviceIndex = attributes.count
            let start = try add(
                definition.isPrimary ? GATTAttributeType.primaryService : GATTAttributeType.secondaryService,
                .serviceDeclaration(end: 0), .read, Self.uuidBytes(definition.uuid))
            for included in definition.includes {
                includeSlots.append((attributes.count, included))
                _ = try add(GATTAttributeType.include, .include, .read, [])
            }
            var serviceCharacteristics: [(declaration: UInt16, value: UInt16, definition: GATTCharacteristicDefinition)] = []
            for characteristic in definition.characteristics {
                let declarationIndex = attributes.count
                let declaration = try add(GATTAttributeType.characteristic, .characteristicDeclaration, .read, [])
                let valueHandle = try add(
                    characteristic.uuid, .characteristicValue(properties: characteristic.properties), characteristic.permissions,
                    characteristic.value, onRead: characteristic.onRead, onWrite: characteristic.onWrite)
                attributes[declarationIndex].value = [characteristic.properties.rawValue, UInt8(valueHandle & 0xFF), UInt8(valueHandle >> 8)]
                    + Self.uuidBytes(characteristic.uuid)
                let hasCCCD = characteristic.descriptors.contains { $0.uuid == GATTAttributeType.clientCharacteristicConfiguration }
                if !characteristic.properties.isDisjoint(with: [.notify, .indicate]), !hasCCCD {
                    _ = try add(
                        GATTAttributeType.clientCharacteristicConfiguration, .clientConfiguration(valueHandle: valueHandle, properties: characteristic.properties),
                        .readWrite, [0, 0])
                }
                for descriptor in characteristic.descriptors {
                    let role: Role = descriptor.uuid == GATTAttributeType.clientCharacteristicConfiguration
                        ? .clientConfiguration(valueHandle: valueHandle, properties: characteristic.properties) : .descriptor
                    _ = try add(descriptor.uuid, role, descriptor.permissions, descriptor.value, onRead: descriptor.onRead, onWrite: descriptor.onWrite)
                }
                serviceCharacteristics.append((declaration, valueHandle, characteristic))
            }
            let end = UInt16(next - 1)
            attributes[serviceIndex] = Attribute(
                handle: start, type: attributes[serviceIndex].type, role: .serviceDeclaration(end: end), permissions: .read,
                value: attributes[serviceIndex].value, onRead: nil, onWrite: nil)
            let service = GATTService(uuid: definition.uuid, handles: ATTHandleRange(start: start, end: end), isPrimary: definition.isPrimary)
            services.append(service)
            for (index, entry) in serviceCharacteristics.enumerated() {
                let characteristicEnd = index + 1 < serviceCharacteristics.count ? serviceCharacteristics[index + 1].declaration - 1 : end
                characteristics.append((service, GATTCharacteristic(
                    uuid: entry.definition.uuid, properties: entry.definition.properties, declarationHandle: entry.declaration,
                    valueHandle: entry.value, endHandle: characteristicEnd)))
            }
        }
        for slot in includeSlots {
            guard let target = services.first(where: { $0.uuid == slot.uuid }) else { throw .unknownIncludedService(slot.uuid) }
            var value = [UInt8(target.handles.start & 0xFF), UInt8(target.handles.start >> 8), UInt8(target.handles.end & 0xFF), UInt8(target.handles.end >> 8)]
            if let short = target.uuid.uuid16 { value += [UInt8(short & 0xFF), UInt8(short >> 8)] }
            attributes[slot.index].value = value
        }
        self.attributes = attributes
        self.services = services
        self.characteristics = characteristics
    }

    /// The handle of the last attribute (0 for an empty database).
    public var lastHandle: UInt16 { UInt16(attributes.count) }

    /// The first characteristic with `uuid`, optionally only inside the service `service`.
    public func characteristic(_ uuid: BluetoothUUID, in service: BluetoothUUID? = nil) -> GATTCharacteristic? {
        characteristics.first { $0.characteristic.uuid == uuid && (service == nil || $0.service.uuid == service) }?.characteristic
    }

    /// The Client Characteristic Configuration descriptor handle of the characteristic whose
    /// value is at `valueHandle`, if it has one.
    public func clientConfigurationHandle(forValueHandle valueHandle: UInt16) -> UInt16? {
        attributes.first {
            if case .clientConfiguration(let owner, _) = $0.role { return owner == valueHandle }
            return false
        }?.handle
    }

    func attribute(_ handle: UInt16) -> Attribute? {
        handle >= 1 && Int(handle) <= attributes.count ? attributes[Int(handle) - 1] : nil
    }

    /// Indices of attributes whose handles lie in `range`.
    func indices(in range: ATTHandleRange) -> Range<Int> {
        let lower = Int(range.start) - 1
        let upper = min(Int(range.end), attributes.count)
        return lower < upper ? lower..<upper : 0..<0
    }

    /// UUID bytes as ATT carries them: 2 for 16-bit SIG UUIDs, else 16.
    static func uuidBytes(_ uuid: BluetoothUUID) -> [UInt8] {
        if let short = uuid.uuid16 { return [UInt8(short & 0xFF), UInt8(short >> 8)] }
        var writer = ByteWriter()
        writer.write(uuid.low)
        writer.write(uuid.high)
        return writer.bytes
    }
}
