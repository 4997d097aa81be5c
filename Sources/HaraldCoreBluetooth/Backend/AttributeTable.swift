import Harald
import HaraldCodec
import HaraldCore

extension CoreBluetoothBackend {
    /// Stand-in attribute handles for the objects CoreBluetooth hands out.
    ///
    /// CoreBluetooth hides ATT handles, but Harald's discovered attributes carry them and use them
    /// as keys. Handles are assigned in discovery order, nested as on a real server: service *k*
    /// (0-based) spans `1 + k·0x400 … k·0x400 + 0x400`; its characteristic *j* has its
    /// declaration at `start + 1 + 8j`, its value right after, and up to six descriptors after
    /// that. So a service holds up to 127 characteristics and a connection up to 64 services
    /// (counting services the peripheral invalidated and that were discovered again); discovery
    /// beyond that fails with ``BluetoothError/backend(_:)``. The same discovery order gives the
    /// same handles on every connection. The table is emptied when a connection ends, as
    /// CoreBluetooth invalidates its objects then.
    struct AttributeTable {
        static var serviceStride: Int { 0x400 }
        static var maximumServices: Int { 64 }
        static var characteristicStride: Int { 8 }
        static var maximumCharacteristics: Int { 127 }
        static var maximumDescriptors: Int { 6 }

        private var nextServiceIndex = 0
        private var serviceStarts: [ObjectIdentifier: UInt16] = [:]
        private(set) var services: [UInt16: Service] = [:]
        private var characteristicHandles: [ObjectIdentifier: UInt16] = [:]
        private(set) var characteristics: [UInt16: Characteristic] = [:]
        private var characteristicCounts: [UInt16: Int] = [:]
        private var descriptorHandles: [ObjectIdentifier: UInt16] = [:]
        private(set) var descriptors: [UInt16: Descriptor] = [:]
        private var descriptorCounts: [UInt16: Int] = [:]

        func serviceStart(of service: Service) -> UInt16? { serviceStarts[ObjectIdentifier(service)] }
        func valueHandle(of characteristic: Characteristic) -> UInt16? { characteristicHandles[ObjectIdentifier(characteristic)] }
        func handle(of descriptor: Descriptor) -> UInt16? { descriptorHandles[ObjectIdentifier(descriptor)] }

        mutating func register(_ service: Service) throws(BluetoothError) -> DiscoveredService {
            let start: UInt16
            if let known = serviceStarts[ObjectIdentifier(service)] {
                start = known
            } else {
                guard nextServiceIndex < Self.maximumServices else {
                    throw .backend("CoreBluetooth backend: more than \(Self.maximumServices) services")
                }
                start = UInt16(1 + nextServiceIndex * Self.serviceStride)
                nextServiceIndex += 1
                serviceStarts[ObjectIdentifier(service)] = start
                services[start] = service
            }
            return DiscoveredService(
                uuid: service.uuid.bluetoothUUID, isPrimary: service.isPrimary,
                handles: start...(start + UInt16(Self.serviceStride - 1)))
        }

        mutating func register(_ characteristic: Characteristic, in service: DiscoveredService) throws(BluetoothError)
            -> DiscoveredCharacteristic
        {
            let start = service.handles.lowerBound
            let value: UInt16
            if let known = characteristicHandles[ObjectIdentifier(characteristic)] {
                value = known
            } else {
                let index = characteristicCounts[start, default: 0]
                guard index < Self.maximumCharacteristics else {
                    throw .backend("CoreBluetooth backend: more than \(Self.maximumCharacteristics) characteristics in \(service.uuid)")
                }
                characteristicCounts[start] = index + 1
                value = start + 2 + UInt16(index * Self.characteristicStride)
                characteristicHandles[ObjectIdentifier(characteristic)] = value
                characteristics[value] = characteristic
            }
            return DiscoveredCharacteristic(
                uuid: characteristic.uuid.bluetoothUUID, service: service.uuid,
                properties: CharacteristicProperties(rawValue: UInt8(truncatingIfNeeded: characteristic.properties.rawValue)),
                valueHandle: value, endHandle: value + UInt16(Self.maximumDescriptors))
        }

        mutating func register(_ descriptor: Descriptor, of valueHandle: UInt16) throws(BluetoothError) -> DiscoveredDescriptor {
            let handle: UInt16
            if let known = descriptorHandles[ObjectIdentifier(descriptor)] {
                handle = known
            } else {
                let index = descriptorCounts[valueHandle, default: 0]
                guard index < Self.maximumDescriptors else {
                    throw .backend("CoreBluetooth backend: more than \(Self.maximumDescriptors) descriptors on one characteristic")
                }
                descriptorCounts[valueHandle] = index + 1
                handle = valueHandle + 1 + UInt16(index)
                descriptorHandles[ObjectIdentifier(descriptor)] = handle
                descriptors[handle] = descriptor
            }
            return DiscoveredDescriptor(uuid: descriptor.uuid.bluetoothUUID, handle: handle, characteristicValueHandle: valueHandle)
        }

        /// Forgets `service` and everything in it (the peripheral changed its database); returns
        /// its handle range, or nil if it was not registered.
        mutating func invalidate(_ service: Service) -> ClosedRange<UInt16>? {
            guard let start = serviceStarts.removeValue(forKey: ObjectIdentifier(service)) else { return nil }
            let range = start...(start + UInt16(Self.serviceStride - 1))
            services[start] = nil
            characteristicCounts[start] = nil
            for (handle, characteristic) in characteristics where range.contains(handle) {
                characteristics[handle] = nil
                characteristicHandles[ObjectIdentifier(characteristic)] = nil
                descriptorCounts[handle] = nil
            }
            for (handle, descriptor) in descriptors where range.contains(handle) {
                descriptors[handle] = nil
                descriptorHandles[ObjectIdentifier(descriptor)] = nil
            }
            return range
        }

        /// The service a registered service's start handle names.
        func serviceUUID(containing handle: UInt16) -> BluetoothUUID? {
            let start = UInt16((Int(handle) - 1) / Self.serviceStride * Self.serviceStride + 1)
            return services[start]?.uuid.bluetoothUUID
        }
    }
}
