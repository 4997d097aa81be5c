import Foundation
import Harald
import HaraldCodec

extension CoreBluetoothBackend: CoreBluetoothPeripheralDelegate {
    private typealias Resolution = (Pending, Result<Reply, any Error>)

    private func failure(_ error: any Error, handle: UInt16) -> Result<Reply, any Error> {
        .failure(CoreBluetoothErrorMapping.bluetoothError(error, handle: handle, keys: keys))
    }

    /// Answers the oldest request on `key` (lock held inside) and resumes it after.
    private func answer(_ key: (inout State) -> RequestKey?, of peripheral: Peripheral, _ result: (inout State, Pending) -> Result<Reply, any Error>) {
        let answer: Resolution? = withLock {
            guard let key = key(&state), case .pending(let pending) = takeRequest(key, of: peripheral.identifier, in: &state) else { return nil }
            return (pending, result(&state, pending))
        }
        if let answer { deliver([answer]) }
    }

    public func peripheral(_ peripheral: Peripheral, didDiscoverServices error: (any Error)?) {
        let uuid = peripheral.identifier
        answer({ _ in .services }, of: peripheral) { state, pending in
            if let error { return failure(error, handle: 0) }
            guard var link = state.links[uuid] else { return .failure(BluetoothError.disconnected(.localRequest)) }
            do {
                var found: [DiscoveredService] = []
                for service in peripheral.services ?? [] where pending.filter?.contains(service.uuid.bluetoothUUID) ?? true {
                    found.append(try link.attributes.register(service))
                }
                state.links[uuid] = link
                return .success(.services(found))
            } catch {
                return .failure(error)
            }
        }
    }

    public func peripheral(_ peripheral: Peripheral, didDiscoverCharacteristicsFor service: Service, error: (any Error)?) {
        let uuid = peripheral.identifier
        answer({ state in state.links[uuid]?.attributes.serviceStart(of: service).map { .characteristics(service: $0) } }, of: peripheral) {
            state, pending in
            guard var link = state.links[uuid] else { return .failure(BluetoothError.disconnected(.localRequest)) }
            do {
                let discovered = try link.attributes.register(service)
                if let error { return failure(error, handle: discovered.handles.lowerBound) }
                var found: [DiscoveredCharacteristic] = []
                for characteristic in service.characteristics ?? [] where pending.filter?.contains(characteristic.uuid.bluetoothUUID) ?? true {
                    found.append(try link.attributes.register(characteristic, in: discovered))
                }
                state.links[uuid] = link
                return .success(.characteristics(found))
            } catch {
                return .failure(error)
            }
        }
    }

    public func peripheral(_ peripheral: Peripheral, didDiscoverDescriptorsFor characteristic: Characteristic, error: (any Error)?) {
        let uuid = peripheral.identifier
        var handle: UInt16 = 0
        answer({ state in
            handle = state.links[uuid]?.attributes.valueHandle(of: characteristic) ?? 0
            return handle == 0 ? nil : .descriptors(characteristic: handle)
        }, of: peripheral) { state, _ in
            if let error { return failure(error, handle: handle) }
            guard var link = state.links[uuid] else { return .failure(BluetoothError.disconnected(.localRequest)) }
            do {
                let found = try (characteristic.descriptors ?? []).map { (descriptor) throws(BluetoothError) in
                    try link.attributes.register(descriptor, of: handle)
                }
                state.links[uuid] = link
                return .success(.descriptors(found))
            } catch {
                return .failure(error)
            }
        }
    }

    /// A value for `characteristic`: the answer to the oldest outstanding read of it if there is
    /// one, otherwise a notification or indication for the subscribers (yielded with the lock
    /// held, so they see values in CoreBluetooth's order). See the type's documentation for the
    /// one case the two cannot be told apart.
    public func peripheral(_ peripheral: Peripheral, didUpdateValueFor characteristic: Characteristic, error: (any Error)?) {
        let uuid = peripheral.identifier
        let answer: Resolution? = withLock {
            guard let handle = state.links[uuid]?.attributes.valueHandle(of: characteristic) else { return nil }
            switch takeRequest(.read(characteristic: handle), of: uuid, in: &state) {
            case .pending(let pending):
                if let error { return (pending, failure(error, handle: handle)) }
                return (pending, .success(.value(characteristic.value.map { [UInt8]($0) } ?? [])))
            case .tombstone:
                return nil
            case .unsolicited:
                guard error == nil, let value = characteristic.value else { return nil }
                let bytes = [UInt8](value)
                for subscriber in state.links[uuid]?.subscribers[handle]?.values ?? [:].values { subscriber.yield(bytes) }
                return nil
            }
        }
        if let answer { deliver([answer]) }
    }

    public func peripheral(_ peripheral: Peripheral, didWriteValueFor characteristic: Characteristic, error: (any Error)?) {
        let uuid = peripheral.identifier
        var handle: UInt16 = 0
        answer({ state in
            handle = state.links[uuid]?.attributes.valueHandle(of: characteristic) ?? 0
            return handle == 0 ? nil : .write(characteristic: handle)
        }, of: peripheral) { _, _ in
            error.map { failure($0, handle: handle) } ?? .success(.none)
        }
    }

    public func peripheral(_ peripheral: Peripheral, didUpdateNotificationStateFor characteristic: Characteristic, error: (any Error)?) {
        let uuid = peripheral.identifier
        var handle: UInt16 = 0
        answer({ state in
            handle = state.links[uuid]?.attributes.valueHandle(of: characteristic) ?? 0
            return handle == 0 ? nil : .notificationState(characteristic: handle)
        }, of: peripheral) { _, _ in
            error.map { failure($0, handle: handle) } ?? .success(.none)
        }
    }

    public func peripheral(_ peripheral: Peripheral, didUpdateValueFor descriptor: Descriptor, error: (any Error)?) {
        let uuid = peripheral.identifier
        var handle: UInt16 = 0
        answer({ state in
            handle = state.links[uuid]?.attributes.handle(of: descriptor) ?? 0
            return handle == 0 ? nil : .readDescriptor(handle)
        }, of: peripheral) { _, _ in
            error.map { failure($0, handle: handle) } ?? .success(.value(DescriptorValue.bytes(descriptor.value)))
        }
    }

    public func peripheral(_ peripheral: Peripheral, didWriteValueFor descriptor: Descriptor, error: (any Error)?) {
        let uuid = peripheral.identifier
        var handle: UInt16 = 0
        answer({ state in
            handle = state.links[uuid]?.attributes.handle(of: descriptor) ?? 0
            return handle == 0 ? nil : .writeDescriptor(handle)
        }, of: peripheral) { _, _ in
            error.map { failure($0, handle: handle) } ?? .success(.none)
        }
    }

    public func peripheralIsReady(toSendWriteWithoutResponse peripheral: Peripheral) {
        pumpWrites(peripheral.identifier)
    }

    /// The peripheral changed its GATT database (Service Changed). The invalidated services and
    /// their characteristics and descriptors are forgotten: operations on them fail with
    /// ``BluetoothError/notFound(_:)`` and their notification streams finish. Discover them again
    /// to use them; they get new handles.
    public func peripheral(_ peripheral: Peripheral, didModifyServices invalidatedServices: [Service]) {
        let uuid = peripheral.identifier
        let ended: [ValueUpdates.Continuation] = withLock {
            guard var link = state.links[uuid] else { return [] }
            var ended: [ValueUpdates.Continuation] = []
            for service in invalidatedServices {
                guard let range = link.attributes.invalidate(service) else { continue }
                for handle in link.subscribers.keys where range.contains(handle) {
                    ended += link.subscribers.removeValue(forKey: handle)?.values.map { $0 } ?? []
                }
            }
            state.links[uuid] = link
            return ended
        }
        for stream in ended { stream.finish() }
    }
}
