import Harald
import HaraldCodec
import HaraldCore

extension CoreBluetoothBackend {
    /// The CoreBluetooth objects discovered on a peripheral, by the ``AttributeID`` each was
    /// given, and the way back from an object to its identity.
    ///
    /// CoreBluetooth hides ATT handles, so identities are numbered from a counter in discovery
    /// order (``AttributeID/init(serial:)``), with no limit on how many services, characteristics
    /// or descriptors a peripheral has. The table outlives connections (it belongs to the
    /// peripheral's record): ``removeAll()`` forgets every object when a connection ends, as
    /// CoreBluetooth invalidates its objects then, but keeps the counter, so an identity handed
    /// out on one connection never names anything on a later one. An object discovered again on
    /// the same connection keeps its identity.
    ///
    /// The table holds its objects strongly, so an object identifier it stores always belongs to
    /// the object it was taken from.
    struct AttributeTable {
        struct ServiceEntry {
            let object: Service
            var characteristics: Set<AttributeID> = []
        }

        struct CharacteristicEntry {
            let object: Characteristic
            let service: AttributeID
            let serviceUUID: BluetoothUUID
            var descriptors: Set<AttributeID> = []
        }

        struct DescriptorEntry {
            let object: Descriptor
            let characteristic: AttributeID
        }

        /// The last number given out (0: none yet).
        private var lastSerial: UInt64 = 0
        private var identities: [ObjectIdentifier: AttributeID] = [:]
        private(set) var services: [AttributeID: ServiceEntry] = [:]
        private(set) var characteristics: [AttributeID: CharacteristicEntry] = [:]
        private(set) var descriptors: [AttributeID: DescriptorEntry] = [:]

        /// The identity of a registered object (service, characteristic or descriptor).
        func id(of object: AnyObject) -> AttributeID? { identities[ObjectIdentifier(object)] }

        private mutating func identity(of object: AnyObject) -> (id: AttributeID, isNew: Bool) {
            if let known = identities[ObjectIdentifier(object)] { return (known, false) }
            lastSerial += 1
            let id = AttributeID(serial: lastSerial)
            identities[ObjectIdentifier(object)] = id
            return (id, true)
        }

        mutating func register(_ service: Service) -> DiscoveredService {
            let (id, isNew) = identity(of: service)
            if isNew { services[id] = ServiceEntry(object: service) }
            return DiscoveredService(id: id, uuid: service.uuid.bluetoothUUID, isPrimary: service.isPrimary)
        }

        /// Registers `characteristic` of the registered service `serviceID`.
        mutating func register(_ characteristic: Characteristic, in serviceID: AttributeID) -> DiscoveredCharacteristic? {
            guard let service = services[serviceID] else { return nil }
            let (id, isNew) = identity(of: characteristic)
            if isNew {
                characteristics[id] = CharacteristicEntry(object: characteristic, service: serviceID, serviceUUID: service.object.uuid.bluetoothUUID)
                services[serviceID]?.characteristics.insert(id)
            }
            return discovered(id)
        }

        /// Registers `descriptor` of the registered characteristic `characteristicID`.
        mutating func register(_ descriptor: Descriptor, of characteristicID: AttributeID) -> DiscoveredDescriptor? {
            guard characteristics[characteristicID] != nil else { return nil }
            let (id, isNew) = identity(of: descriptor)
            if isNew {
                descriptors[id] = DescriptorEntry(object: descriptor, characteristic: characteristicID)
                characteristics[characteristicID]?.descriptors.insert(id)
            }
            return DiscoveredDescriptor(id: id, uuid: descriptor.uuid.bluetoothUUID, characteristicID: characteristicID)
        }

        /// The public value of a registered characteristic.
        func discovered(_ id: AttributeID) -> DiscoveredCharacteristic? {
            guard let entry = characteristics[id] else { return nil }
            return DiscoveredCharacteristic(
                id: id, uuid: entry.object.uuid.bluetoothUUID, service: entry.serviceUUID,
                properties: CharacteristicProperties(rawValue: UInt8(truncatingIfNeeded: entry.object.properties.rawValue)))
        }

        /// Forgets `service` and everything in it (the peripheral changed its database); returns
        /// the identities of the characteristics it held, or nil if it was not registered.
        mutating func invalidate(_ service: Service) -> Set<AttributeID>? {
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
            return entry.characteristics
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
