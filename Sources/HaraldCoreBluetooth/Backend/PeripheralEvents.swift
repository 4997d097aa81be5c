import Foundation
import Harald
import HaraldCodec

extension CoreBluetoothBackend: CoreBluetoothPeripheralDelegate {
    private typealias Resolution = (Pending, Result<Reply, any Error>)

    private func failure(_ error: any Error, on attribute: AttributeID?) -> Result<Reply, any Error> {
        .failure(CoreBluetoothErrorMapping.bluetoothError(error, attribute: attribute, keys: keys))
    }

    /// Answers the oldest request on `key` (lock held inside) and resumes it after.
    private func answer(_ key: (inout State) -> RequestKey?, of peripheral: Peripheral, _ result: (inout State, Pending) -> Result<Reply, any Error>) {
        let answer: Resolution? = state.withLock { state in
            guard let key = key(&state), case .pending(let pending) = takeRequest(key, of: peripheral.identifier, in: &state) else { return nil }
            return (pending, result(&state, pending))
        }
        if let answer { deliver([answer]) }
    }

    /// Completes a service discovery, or fails it with the system's error.
    public func peripheral(_ peripheral: Peripheral, didDiscoverServices error: (any Error)?) {
        let uuid = peripheral.identifier
        answer({ _ in .services }, of: peripheral) { state, pending in
            if let error { return failure(error, on: nil) }
            guard state.links[uuid] != nil else { return .failure(BluetoothError.disconnected(.localRequest)) }
            var found: [DiscoveredService] = []
            for service in peripheral.services ?? [] where pending.filter?.contains(service.uuid.bluetoothUUID) ?? true {
                if let discovered = state.links[uuid]?.attributes.register(service, numbering: &state.nextID) { found.append(discovered) }
            }
            return .success(.services(found))
        }
    }

    /// Completes the characteristic discovery of `service`.
    public func peripheral(_ peripheral: Peripheral, didDiscoverCharacteristicsFor service: Service, error: (any Error)?) {
        let uuid = peripheral.identifier
        var serviceID: AttributeID?
        answer(
            { state in
                serviceID = state.links[uuid]?.attributes.id(of: service)
                return serviceID.map { .characteristics(service: $0) }
            }, of: peripheral
        ) { state, pending in
            guard let serviceID else { return .failure(BluetoothError.disconnected(.localRequest)) }
            if let error { return failure(error, on: serviceID) }
            var found: [DiscoveredCharacteristic] = []
            for characteristic in service.characteristics ?? [] where pending.filter?.contains(characteristic.uuid.bluetoothUUID) ?? true {
                if let discovered = state.links[uuid]?.attributes.register(characteristic, in: serviceID, numbering: &state.nextID) { found.append(discovered) }
            }
            return .success(.characteristics(found))
        }
    }

    /// Completes the descriptor discovery of `characteristic`.
    public func peripheral(_ peripheral: Peripheral, didDiscoverDescriptorsFor characteristic: Characteristic, error: (any Error)?) {
        let uuid = peripheral.identifier
        var characteristicID: AttributeID?
        answer(
            { state in
                characteristicID = state.links[uuid]?.attributes.id(of: characteristic)
                return characteristicID.map { .descriptors(characteristic: $0) }
            }, of: peripheral
        ) { state, _ in
            guard let characteristicID else { return .failure(BluetoothError.disconnected(.localRequest)) }
            if let error { return failure(error, on: characteristicID) }
            let found = (characteristic.descriptors ?? []).compactMap { descriptor in
                state.links[uuid]?.attributes.register(descriptor, of: characteristicID, numbering: &state.nextID)
            }
            return .success(.descriptors(found))
        }
    }

    /// A value for `characteristic`: the answer to the oldest outstanding read of it if there is
    /// one, otherwise a notification or indication for the subscribers, or held for the first
    /// one on a restored connection. See the type's documentation for the one case the two
    /// cannot be told apart. Subscribers get values in CoreBluetooth's order, since its delegate
    /// calls come one at a time on its queue; they are handed over after the lock is released,
    /// because a stream that ends when its buffer is full (lossless buffering) runs its end
    /// handlers, which take the lock, at once.
    public func peripheral(_ peripheral: Peripheral, didUpdateValueFor characteristic: Characteristic, error: (any Error)?) {
        let uuid = peripheral.identifier
        var notified: (value: [UInt8], subscribers: [ValueUpdates.Continuation])?
        let answer: Resolution? = state.withLock { state in
            guard let id = state.links[uuid]?.attributes.id(of: characteristic) else { return nil }
            switch takeRequest(.read(characteristic: id), of: uuid, in: &state) {
            case .pending(let pending):
                if let error { return (pending, failure(error, on: id)) }
                return (pending, .success(.value(characteristic.value.map { [UInt8]($0) } ?? [])))
            case .tombstone:
                return nil
            case .unsolicited:
                guard error == nil, let value = characteristic.value else { return nil }
                let bytes = [UInt8](value)
                if let subscribers = state.links[uuid]?.subscribers[id], !subscribers.isEmpty {
                    notified = (bytes, Array(subscribers.values))
                } else {
                    _ = hold(bytes, for: id, of: uuid, in: &state)
                }
                return nil
            }
        }
        if let answer { deliver([answer]) }
        if let notified {
            for subscriber in notified.subscribers { subscriber.yield(notified.value) }
        }
    }

    /// Completes a write with response to `characteristic` (an ATT Write Response or error).
    public func peripheral(_ peripheral: Peripheral, didWriteValueFor characteristic: Characteristic, error: (any Error)?) {
        let uuid = peripheral.identifier
        var id: AttributeID?
        answer(
            { state in
                id = state.links[uuid]?.attributes.id(of: characteristic)
                return id.map { .write(characteristic: $0) }
            }, of: peripheral
        ) { _, _ in
            error.map { failure($0, on: id) } ?? .success(.none)
        }
    }

    /// Completes turning notifications or indications of `characteristic` on or off (the CCCD write).
    public func peripheral(_ peripheral: Peripheral, didUpdateNotificationStateFor characteristic: Characteristic, error: (any Error)?) {
        let uuid = peripheral.identifier
        var id: AttributeID?
        answer(
            { state in
                id = state.links[uuid]?.attributes.id(of: characteristic)
                return id.map { .notificationState(characteristic: $0) }
            }, of: peripheral
        ) { _, _ in
            error.map { failure($0, on: id) } ?? .success(.none)
        }
    }

    /// Completes a read of `descriptor`.
    public func peripheral(_ peripheral: Peripheral, didUpdateValueFor descriptor: Descriptor, error: (any Error)?) {
        let uuid = peripheral.identifier
        var id: AttributeID?
        answer(
            { state in
                id = state.links[uuid]?.attributes.id(of: descriptor)
                return id.map { .readDescriptor($0) }
            }, of: peripheral
        ) { _, _ in
            error.map { failure($0, on: id) } ?? .success(.value(DescriptorValue.bytes(descriptor.value)))
        }
    }

    /// Completes a write to `descriptor`.
    public func peripheral(_ peripheral: Peripheral, didWriteValueFor descriptor: Descriptor, error: (any Error)?) {
        let uuid = peripheral.identifier
        var id: AttributeID?
        answer(
            { state in
                id = state.links[uuid]?.attributes.id(of: descriptor)
                return id.map { .writeDescriptor($0) }
            }, of: peripheral
        ) { _, _ in
            error.map { failure($0, on: id) } ?? .success(.none)
        }
    }

    /// Resumes writes without response that waited for room in the system's transmit queue.
    public func peripheralIsReady(toSendWriteWithoutResponse peripheral: Peripheral) {
        pumpWrites(peripheral.identifier)
    }

    /// The peripheral changed its GATT database (Service Changed). The invalidated services and
    /// their characteristics and descriptors are forgotten: operations on them fail with
    /// `BluetoothError/notFound(_:)`, value streams on their characteristics end with
    /// `BluetoothError/serviceChanged(_:)` naming the characteristic, and then every
    /// ``CoreBluetoothConnection/serviceChanges()`` stream of the connection gets a
    /// `ServiceChange` listing the services. Discover them again to use them; they get new
    /// identities.
    public func peripheral(_ peripheral: Peripheral, didModifyServices invalidatedServices: [Service]) {
        let uuid = peripheral.identifier
        var ended: [(ValueUpdates.Continuation, AttributeID)] = []
        var changed: [AttributeID] = []
        let observers: [AsyncStream<ServiceChange>.Continuation] = state.withLock { state in
            guard var link = state.links[uuid], link.phase == .connected else { return [] }
            for service in invalidatedServices {
                guard let (serviceID, characteristicIDs) = link.attributes.invalidate(service) else { continue }
                changed.append(serviceID)
                for characteristicID in characteristicIDs {
                    for stream in link.subscribers.removeValue(forKey: characteristicID)?.values ?? [:].values {
                        ended.append((stream, characteristicID))
                    }
                    link.heldValues[characteristicID] = nil
                }
            }
            state.links[uuid] = link
            return Array(link.serviceChangeObservers.values)
        }
        for (stream, characteristicID) in ended { stream.finish(throwing: .serviceChanged(characteristicID)) }
        let change = ServiceChange(handles: nil, services: changed)
        for observer in observers { observer.yield(change) }
    }

    /// Completes an RSSI read of the link; `strength` is in dBm.
    public func peripheral(_ peripheral: Peripheral, didReadRSSI strength: NSNumber, error: (any Error)?) {
        answer({ _ in .rssi }, of: peripheral) { _, _ in
            error.map { failure($0, on: nil) } ?? .success(.rssi(strength.intValue))
        }
    }

    /// The peripheral's name changed: every ``CoreBluetoothConnection/nameUpdates()`` stream of
    /// its connection gets the new one.
    public func peripheralDidUpdateName(_ peripheral: Peripheral) {
        guard let name = peripheral.name else { return }
        let observers = state.withLock { state in
            Array(state.links[peripheral.identifier]?.nameObservers.values ?? [:].values)
        }
        for observer in observers { observer.yield(name) }
    }
}
