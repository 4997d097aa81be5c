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

/// The attributes of a GATT server, built from service definitions: handles from 0x0001 in
/// declaration order, and services can be added and removed later.
///
/// A service added later goes after the last attribute; a removed service leaves its handles
/// unused, so no other attribute moves (the handles a client cached for the other services stay
/// right, and the Service Changed range covers only what changed).
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
        /// The owning characteristic's hook, on its value and its CCCD.
        var authorize: GATTAttributeAuthorizationHandler? = nil
        /// The shortest key reads accept when they need encryption.
        var minimumReadKeySize = 16
        /// The shortest key writes accept when they need encryption.
        var minimumWriteKeySize = 16

        /// What reading (or, with `isWrite`, writing) this attribute needs from the link.
        func securityRequirement(isWrite: Bool) -> GATTSecurityRequirement {
            GATTSecurityRequirement(permissions, isWrite: isWrite, minimumKeySize: isWrite ? minimumWriteKeySize : minimumReadKeySize)
        }
    }

    /// The write permissions a characteristic's CCCD gets so that subscribing needs what
    /// reading the value needs (a subscription is a way of reading it): each read security bit
    /// of the value as the matching write bit.
    static func subscriptionPermissions(of value: GATTPermissions) -> GATTPermissions {
        var permissions: GATTPermissions = []
        if value.contains(.readEncrypted) { permissions.insert(.writeEncrypted) }
        if value.contains(.readAuthenticated) { permissions.insert(.writeAuthenticated) }
        if value.contains(.readSecureConnections) { permissions.insert(.writeSecureConnections) }
        return permissions
    }

    /// In increasing handle order; a removed service leaves a gap.
    var attributes: [Attribute] = []
    /// Services in handle order.
    public private(set) var services: [GATTService] = []
    /// Characteristics in handle order, with the service each belongs to.
    public private(set) var characteristics: [(service: GATTService, characteristic: GATTCharacteristic)] = []

    /// An include declaration still waiting for the handles of the service it names.
    private struct IncludeSlot {
        let handle: UInt16
        let uuid: BluetoothUUID
    }

    /// Lays out `services` in order: declaration, includes, then each characteristic's
    /// declaration, value and descriptors. A service may include one declared after it.
    package init(services definitions: [GATTServiceDefinition]) throws(GATTDatabaseError) {
        var slots: [IncludeSlot] = []
        for definition in definitions { slots += try append(definition) }
        try resolve(slots)
    }

    /// Adds a service after the last attribute and returns where it went. It may include only
    /// services already in the database. On error the database is unchanged.
    @discardableResult
    package mutating func add(_ definition: GATTServiceDefinition) throws(GATTDatabaseError) -> GATTService {
        var changed = self
        let slots = try changed.append(definition)
        try changed.resolve(slots)
        self = changed
        return changed.services[changed.services.count - 1]
    }

    /// Removes the service whose declaration is at `start`, with everything in it, and returns
    /// it; nil when no service starts there. Its handles stay unused. An include declaration
    /// elsewhere that names it is left as it is: remove the including service too.
    @discardableResult
    public mutating func removeService(at start: UInt16) -> GATTService? {
        guard let position = services.firstIndex(where: { $0.handles.start == start }) else { return nil }
        let removed = services.remove(at: position)
        let removedIndices = indices(in: removed.handles)
        attributes.removeSubrange(removedIndices)
        characteristics.removeAll { $0.service == removed }
        return removed
    }

    /// Appends one service's attributes after the last one; returns its includes to resolve.
    private mutating func append(_ definition: GATTServiceDefinition) throws(GATTDatabaseError) -> [IncludeSlot] {
        var next = Int(lastHandle) + 1
        var slots: [IncludeSlot] = []
        var added: [Attribute] = []

        func add(
            _ type: BluetoothUUID, _ role: Role, _ permissions: GATTPermissions, _ value: [UInt8],
            onRead: GATTReadHandler? = nil, onWrite: GATTWriteHandler? = nil
        ) throws(GATTDatabaseError) -> UInt16 {
            guard next <= 0xFFFF else { throw .tooManyAttributes }
            guard value.count <= ATT.maximumValueLength else { throw .valueTooLong(type) }
            let handle = UInt16(next)
            added.append(Attribute(handle: handle, type: type, role: role, permissions: permissions, value: value, onRead: onRead, onWrite: onWrite))
            next += 1
            return handle
        }

        let start = try add(
            definition.isPrimary ? GATTAttributeType.primaryService : GATTAttributeType.secondaryService,
            .serviceDeclaration(end: 0), .read, Self.uuidBytes(definition.uuid))
        for included in definition.includes {
            slots.append(IncludeSlot(handle: try add(GATTAttributeType.include, .include, .read, []), uuid: included))
        }
        var declared: [(declaration: UInt16, value: UInt16, definition: GATTCharacteristicDefinition)] = []
        for characteristic in definition.characteristics {
            let declarationIndex = added.count
            let declaration = try add(GATTAttributeType.characteristic, .characteristicDeclaration, .read, [])
            let valueHandle = try add(
                characteristic.uuid, .characteristicValue(properties: characteristic.properties), characteristic.permissions,
                characteristic.value, onRead: characteristic.onRead, onWrite: characteristic.onWrite)
            added[added.count - 1].authorize = characteristic.authorize
            added[added.count - 1].minimumReadKeySize = characteristic.minimumReadKeySize
            added[added.count - 1].minimumWriteKeySize = characteristic.minimumWriteKeySize
            let subscribing = Self.subscriptionPermissions(of: characteristic.permissions)
            added[declarationIndex].value =
                [characteristic.properties.rawValue, UInt8(valueHandle & 0xFF), UInt8(valueHandle >> 8)]
                + Self.uuidBytes(characteristic.uuid)
            let hasCCCD = characteristic.descriptors.contains { $0.uuid == GATTAttributeType.clientCharacteristicConfiguration }
            if !characteristic.properties.isDisjoint(with: [.notify, .indicate]), !hasCCCD {
                _ = try add(
                    GATTAttributeType.clientCharacteristicConfiguration, .clientConfiguration(valueHandle: valueHandle, properties: characteristic.properties),
                    GATTPermissions.readWrite.union(subscribing), [0, 0])
                added[added.count - 1].authorize = characteristic.authorize
                added[added.count - 1].minimumWriteKeySize = characteristic.minimumReadKeySize
            }
            for descriptor in characteristic.descriptors {
                let role: Role =
                    descriptor.uuid == GATTAttributeType.clientCharacteristicConfiguration
                    ? .clientConfiguration(valueHandle: valueHandle, properties: characteristic.properties) : .descriptor
                var permissions = descriptor.permissions
                if case .clientConfiguration = role { permissions.formUnion(subscribing) }
                _ = try add(descriptor.uuid, role, permissions, descriptor.value, onRead: descriptor.onRead, onWrite: descriptor.onWrite)
                if case .clientConfiguration = role {
                    added[added.count - 1].authorize = characteristic.authorize
                    added[added.count - 1].minimumWriteKeySize = characteristic.minimumReadKeySize
                }
            }
            declared.append((declaration, valueHandle, characteristic))
        }
        let end = UInt16(next - 1)
        added[0] = Attribute(
            handle: start, type: added[0].type, role: .serviceDeclaration(end: end), permissions: .read,
            value: added[0].value, onRead: nil, onWrite: nil)
        let service = GATTService(uuid: definition.uuid, handles: ATTHandleRange(start: start, end: end), isPrimary: definition.isPrimary)
        attributes += added
        services.append(service)
        for (index, entry) in declared.enumerated() {
            let characteristicEnd = index + 1 < declared.count ? declared[index + 1].declaration - 1 : end
            characteristics.append(
                (
                    service,
                    GATTCharacteristic(
                        uuid: entry.definition.uuid, properties: entry.definition.properties, declarationHandle: entry.declaration,
                        valueHandle: entry.value, endHandle: characteristicEnd)
                ))
        }
        return slots
    }

    /// Writes each include declaration's value: the included service's handles, and its UUID
    /// when that is a 16-bit one.
    private mutating func resolve(_ slots: [IncludeSlot]) throws(GATTDatabaseError) {
        for slot in slots {
            guard let target = services.first(where: { $0.uuid == slot.uuid }) else { throw .unknownIncludedService(slot.uuid) }
            var value = [
                UInt8(target.handles.start & 0xFF), UInt8(target.handles.start >> 8), UInt8(target.handles.end & 0xFF), UInt8(target.handles.end >> 8),
            ]
            if let short = target.uuid.uuid16 { value += [UInt8(short & 0xFF), UInt8(short >> 8)] }
            if let index = index(of: slot.handle) { attributes[index].value = value }
        }
    }

    /// The handle of the last attribute (0 for an empty database).
    public var lastHandle: UInt16 { attributes.last?.handle ?? 0 }

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

    /// The Service Changed characteristic of the Generic Attribute service, when the database
    /// has one with a Client Characteristic Configuration descriptor.
    public var serviceChanged: GATTServiceChangedHandles? {
        guard let value = characteristic(GATTGenericAttributeService.serviceChanged, in: GATTGenericAttributeService.uuid)?.valueHandle,
            let cccd = clientConfigurationHandle(forValueHandle: value)
        else { return nil }
        return GATTServiceChangedHandles(valueHandle: value, cccdHandle: cccd)
    }

    func attribute(_ handle: UInt16) -> Attribute? {
        index(of: handle).map { attributes[$0] }
    }

    /// Where the attribute at `handle` is in ``attributes``.
    func index(of handle: UInt16) -> Int? {
        // Without gaps before it, an attribute sits at its handle − 1.
        let direct = Int(handle) - 1
        if direct >= 0, direct < attributes.count, attributes[direct].handle == handle { return direct }
        let found = firstIndex(atOrAfter: Int(handle))
        return found < attributes.count && attributes[found].handle == handle ? found : nil
    }

    /// Indices of attributes whose handles lie in `range`.
    func indices(in range: ATTHandleRange) -> Range<Int> {
        let lower = firstIndex(atOrAfter: Int(range.start))
        let upper = firstIndex(atOrAfter: Int(range.end) + 1)
        return lower < upper ? lower..<upper : lower..<lower
    }

    /// The index of the first attribute whose handle is `handle` or above (the count when none is).
    private func firstIndex(atOrAfter handle: Int) -> Int {
        var low = 0
        var high = attributes.count
        while low < high {
            let middle = (low + high) / 2
            if Int(attributes[middle].handle) < handle { low = middle + 1 } else { high = middle }
        }
        return low
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
