import Harald
import HaraldCodec
import HaraldCore

extension CoreBluetoothBackend {
    /// The CoreBluetooth objects discovered on a peripheral, by the ``AttributeID`` each was
    /// given, and the way back from an object to its identity.
    ///
    /// CoreBluetooth hides ATT handles, so identities are numbered in discovery order
    /// (``AttributeID/init(serial:)``) from the backend's one counter, which every registration
    /// takes as `numbering`, with no limit on how many services, characteristics or descriptors a
    /// peripheral has. The table outlives connections (it belongs to the peripheral's record):
    /// ``removeAll()`` forgets every object when a connection ends, as CoreBluetooth invalidates
    /// its objects then. Since the counter is the backend's, an identity handed out on one
    /// connection never names anything on a later one, even after the record was pruned and made
    /// again. An object discovered again on the same connection keeps its identity.
    ///
    /// The table holds its objects strongly, so an object identifier it stores always belongs to
    /// the object it was taken from. UUIDs and properties are copied at registration (on the
    /// queue), so building the public values never reads a CoreBluetooth object.
    struct AttributeTable {
        struct ServiceEntry {
            let object: Service
            let uuid: BluetoothUUID
            var characteristics: Set<AttributeID> = []
        }

        struct CharacteristicEntry {
            let object: Characteristic
            let uuid: BluetoothUUID
            let properties: CharacteristicProperties
            let service: AttributeID
            let serviceUUID: BluetoothUUID
            var descriptors: Set<AttributeID> = []
        }

        struct DescriptorEntry {
            let object: Descriptor
            let uuid: BluetoothUUID
            let characteristic: AttributeID
        }

        private var identities: [ObjectIdentifier: AttributeID] = [:]
        private(set) var services: [AttributeID: ServiceEntry] = [:]
        private(set) var characteristics: [AttributeID: CharacteristicEntry] = [:]
        private(set) var descriptors: [AttributeID: DescriptorEntry] = [:]

        /// The identity of a registered object (service, characteristic or descriptor).
        func id(of object: AnyObject) -> AttributeID? { identities[ObjectIdentifier(object)] }

        private mutating func identity(of object: AnyObject, numbering counter: inout UInt64) -> (id: AttributeID, isNew: Bool) {
            if let known = identities[ObjectIdentifier(object)] { return (known, false) }
            counter += 1
            let id = AttributeID(serial: counter)
            identities[ObjectIdentifier(object)] = id
            return (id, true)
        }

        mutating func register(_ service: Service, numbering counter: inout UInt64) -> DiscoveredService {
            let (id, isNew) = identity(of: service, numbering: &counter)
            if isNew { services[id] = ServiceEntry(object: service, uuid: service.uuid.bluetoothUUID) }
            return DiscoveredService(id: id, uuid: services[id]?.uuid ?? service.uuid.bluetoothUUID, isPrimary: service.isPrimary)
        }

        /// Registers `characteristic` of the registered service `serviceID`.
        mutating func register(_ characteristic: Characteristic, in serviceID: AttributeID, numbering counter: inout UInt64) -> DiscoveredCharacteristic? {
            guard let service = services[serviceID] else { return nil }
            let (id, isNew) = identity(of: characteristic, numbering: &counter)
            if isNew {
                characteristics[id] = CharacteristicEntry(
                    object: characteristic, uuid: characteristic.uuid.bluetoothUUID,
                    properties: CharacteristicProperties(rawValue: UInt8(truncatingIfNeeded: characteristic.properties.rawValue)),
                    service: serviceID, serviceUUID: service.uuid)
                services[serviceID]?.characteristics.insert(id)
            }
            return discovered(id)
        }

        /// Registers `descriptor` of the registered characteristic `characteristicID`.
        mutating func register(_ descriptor: Descriptor, of characteristicID: AttributeID, numbering counter: inout UInt64) -> DiscoveredDescriptor? {
            guard characteristics[characteristicID] != nil else { return nil }
            let (id, isNew) = identity(of: descriptor, numbering: &counter)
            if isNew {
                descriptors[id] = DescriptorEntry(object: descriptor, uuid: descriptor.uuid.bluetoothUUID, characteristic: characteristicID)
                characteristics[characteristicID]?.descriptors.insert(id)
            }
            guard let entry = descriptors[id] else { return nil }
            return DiscoveredDescriptor(id: id, uuid: entry.uuid, characteristicID: entry.characteristic)
        }

        /// The public value of a registered characteristic.
        func discovered(_ id: AttributeID) -> DiscoveredCharacteristic? {
            guard let entry = characteristics[id] else { return nil }
            return DiscoveredCharacteristic(id: id, uuid: entry.uuid, service: entry.serviceUUID, properties: entry.properties)
        }

        /// Forgets `service` and everything in it (the peripheral changed its database); returns
        /// its identity and those of the characteristics it held, or nil if it was not registered.
        mutating func invalidate(_ service: Service) -> (service: AttributeID, characteristics: Set<AttributeID>)? {
            guard let id = identities[ObjectIdentifier(service)], let entry = services.removeValue(forKey: id) else { return nil }
            identities[ObjectIdentifier(service)] = nil
            for characteristicID in entry.characteristics {
                guard let characteristic = characteristics.removeValue(forKey: characteristicID) else { continue }
                identities[ObjectIdentifier(characteristic.object)] = nil
                for descriptorID in characteristic.descriptors {
                    guard let descriptor = descriptors.removeValue(forKey: descriptorID) else { continue }
                    identities[ObjectIdentifier(descriptor.object)] = nil
                }
            }
            return (id, entry.characteristics)
        }

        /// Forgets every object (the connection ended); identities already handed out stay used.
        mutating func removeAll() {
            identities = [:]
            services = [:]
            characteristics = [:]
            descriptors = [:]
        }
    }
}
