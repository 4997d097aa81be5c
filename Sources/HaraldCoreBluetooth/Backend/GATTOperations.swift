import Foundation
import Harald
import HaraldCodec
import HaraldCore

// The GATT operations behind `CoreBluetoothConnection`, each keyed to the connection generation
// it was made on.
extension CoreBluetoothBackend {
    private static var unexpectedReply: BluetoothError { .backend("CoreBluetooth backend: unexpected reply") }

    private static func writeType(_ kind: WriteKind) throws(BluetoothError) -> Peripheral.WriteType {
        // CBCharacteristicWriteType: 0 with response, 1 without.
        guard let type = Peripheral.WriteType(rawValue: kind == .withResponse ? 0 : 1) else {
            throw .backend("CoreBluetooth backend: no write type for \(kind)")
        }
        return type
    }

    private static func characteristic(_ characteristic: DiscoveredCharacteristic, in link: Link) throws(BluetoothError) -> Characteristic {
        guard let entry = link.attributes.characteristics[characteristic.id] else {
            throw .notFound("characteristic \(characteristic.uuid) as \(characteristic.id) (discover it on this connection first)")
        }
        return entry.object
    }

    private static func descriptor(_ descriptor: DiscoveredDescriptor, in link: Link) throws(BluetoothError) -> Descriptor {
        guard let entry = link.attributes.descriptors[descriptor.id] else {
            throw .notFound("descriptor \(descriptor.uuid) as \(descriptor.id) (discover it on this connection first)")
        }
        return entry.object
    }

    func discoverServices(_ uuids: [BluetoothUUID]?, timeout: Duration, on uuid: UUID, generation: UInt64) async throws -> [DiscoveredService] {
        let reply = try await request(
            "discover services", timeout: timeout, on: uuid, generation: generation, key: .services, filter: uuids,
            resolve: { _ in () },
            issue: { peripheral, _ in peripheral.discoverServices(uuids?.map(Central.makeUUID)) })
        guard case .services(let services) = reply else { throw Self.unexpectedReply }
        return services
    }

    func discoverCharacteristics(
        _ uuids: [BluetoothUUID]?, of service: DiscoveredService, timeout: Duration, on uuid: UUID, generation: UInt64
    ) async throws -> [DiscoveredCharacteristic] {
        let reply = try await request(
            "discover characteristics", timeout: timeout, on: uuid, generation: generation, key: .characteristics(service: service.id),
            filter: uuids,
            resolve: { (link) throws(BluetoothError) in
                guard let entry = link.attributes.services[service.id] else {
                    throw .notFound("service \(service.uuid) as \(service.id) (discover it on this connection first)")
                }
                return entry.object
            },
            issue: { peripheral, object in peripheral.discoverCharacteristics(uuids?.map(Central.makeUUID), for: object) })
        guard case .characteristics(let characteristics) = reply else { throw Self.unexpectedReply }
        return characteristics
    }

    func discoverDescriptors(of characteristic: DiscoveredCharacteristic, timeout: Duration, on uuid: UUID, generation: UInt64) async throws
        -> [DiscoveredDescriptor]
    {
        let reply = try await request(
            "discover descriptors", timeout: timeout, on: uuid, generation: generation,
            key: .descriptors(characteristic: characteristic.id),
            resolve: { (link) throws(BluetoothError) in try Self.characteristic(characteristic, in: link) },
            issue: { peripheral, object in peripheral.discoverDescriptors(for: object) })
        guard case .descriptors(let descriptors) = reply else { throw Self.unexpectedReply }
        return descriptors
    }

    func read(_ characteristic: DiscoveredCharacteristic, timeout: Duration, on uuid: UUID, generation: UInt64) async throws -> [UInt8] {
        let reply = try await request(
            "read \(characteristic.uuid)", timeout: timeout, on: uuid, generation: generation,
            key: .read(characteristic: characteristic.id),
            resolve: { (link) throws(BluetoothError) in try Self.characteristic(characteristic, in: link) },
            issue: { peripheral, object in peripheral.readValue(for: object) })
        guard case .value(let value) = reply else { throw Self.unexpectedReply }
        return value
    }

    func write(
        _ value: [UInt8], to characteristic: DiscoveredCharacteristic, kind: WriteKind, timeout: Duration, on uuid: UUID, generation: UInt64
    ) async throws {
        let type = try Self.writeType(kind)
        if kind == .withoutResponse {
            try await writeWithoutResponse(value, to: characteristic, timeout: timeout, on: uuid, generation: generation)
            return
        }
        _ = try await request(
            "write \(characteristic.uuid)", timeout: timeout, on: uuid, generation: generation,
            key: .write(characteristic: characteristic.id),
            resolve: { (link) throws(BluetoothError) in try Self.characteristic(characteristic, in: link) },
            issue: { peripheral, object in peripheral.writeValue(Data(value), for: object, type: type) })
    }

    /// Queues the write; it goes out when CoreBluetooth has room (see `pumpWrites`).
    private func writeWithoutResponse(
        _ value: [UInt8], to characteristic: DiscoveredCharacteristic, timeout: Duration, on uuid: UUID, generation: UInt64
    ) async throws {
        _ = try await perform("write without response to \(characteristic.uuid)", timeout: timeout, cleanup: .queuedWrite(uuid)) { state, id in
            guard let link = state.links[uuid] else { return .fail(.disconnected(.localRequest)) }
            guard link.phase == .connected, link.generation == generation else { return .fail(.disconnected(link.endReason(of: generation))) }
            guard link.attributes.characteristics[characteristic.id] != nil else {
                return .fail(.notFound("characteristic \(characteristic.uuid) as \(characteristic.id) (discover it on this connection first)"))
            }
            state.links[uuid]?.writeQueue.append(QueuedWrite(id: id, data: Data(value), characteristic: characteristic.id))
            // In the outbox too, so the write goes out after the requests made before it.
            return .proceed(OutgoingCall { _ in self.pumpWrites(uuid) })
        }
    }

    /// The error for a write without response longer than one packet: CoreBluetooth would cut
    /// the value short silently.
    private static func oversized(_ count: Int, limit: Int) -> BluetoothError {
        .misuse(
            "a write without response carries at most \(limit) bytes on this connection (maximumWriteLength), this value has \(count): "
                + "split it, or write with response")
    }

    /// Sends queued writes without response while CoreBluetooth says it can take them (on the
    /// queue), each checked against `maximumWriteValueLength(for:)` first. Only one
    /// thread pumps a peripheral at a time; a call that finds another pumping asks it to look
    /// again, so a readiness report between its check and its stop is never lost.
    func pumpWrites(_ uuid: UUID) {
        let start: Bool = state.withLock { state in
            guard let link = state.links[uuid] else { return false }
            if link.pumping {
                state.links[uuid]?.pumpRequested = true
                return false
            }
            state.links[uuid]?.pumping = true
            return true
        }
        guard start, let type = try? Self.writeType(.withoutResponse) else { return }
        while true {
            let peripheral: Peripheral? = state.withLock { state in
                state.links[uuid]?.pumpRequested = false
                guard let link = state.links[uuid], link.phase == .connected, !link.writeQueue.isEmpty else { return nil }
                return link.peripheral
            }
            if let peripheral, peripheral.canSendWriteWithoutResponse {
                let next: (QueuedWrite, Characteristic?, Pending)? = state.withLock { state in
                    guard let link = state.links[uuid], link.phase == .connected, let write = link.writeQueue.first else { return nil }
                    state.links[uuid]?.writeQueue.removeFirst()
                    guard let pending = state.pending.removeValue(forKey: write.id) else { return nil }
                    return (write, link.attributes.characteristics[write.characteristic]?.object, pending)
                }
                if let (write, object, pending) = next {
                    let limit = peripheral.maximumWriteValueLength(for: type)
                    switch object {
                    case nil:
                        deliver([(pending, .failure(BluetoothError.notFound("characteristic \(write.characteristic) (its service was invalidated)")))])
                    case let object? where write.data.count <= limit:
                        peripheral.writeValue(write.data, for: object, type: type)
                        deliver([(pending, .success(.none))])
                    case _?:
                        deliver([(pending, .failure(Self.oversized(write.data.count, limit: limit)))])
                    }
                }
                continue
            }
            let done: Bool = state.withLock { state in
                if state.links[uuid]?.pumpRequested == true { return false }
                state.links[uuid]?.pumping = false
                return true
            }
            if done { return }
        }
    }

    func readDescriptor(_ descriptor: DiscoveredDescriptor, timeout: Duration, on uuid: UUID, generation: UInt64) async throws -> [UInt8] {
        let reply = try await request(
            "read descriptor \(descriptor.uuid)", timeout: timeout, on: uuid, generation: generation, key: .readDescriptor(descriptor.id),
            resolve: { (link) throws(BluetoothError) in try Self.descriptor(descriptor, in: link) },
            issue: { peripheral, object in peripheral.readValue(for: object) })
        guard case .value(let value) = reply else { throw Self.unexpectedReply }
        return value
    }

    /// Writes a descriptor. CoreBluetooth refuses (with an exception) writes to the Client
    /// Characteristic Configuration descriptor, so a CCCD write becomes `setNotifyValue`: any
    /// notify or indicate bit set turns updates on, zero turns them off.
    func writeDescriptor(_ value: [UInt8], to descriptor: DiscoveredDescriptor, timeout: Duration, on uuid: UUID, generation: UInt64) async throws {
        if descriptor.uuid == BluetoothUUID(0x2902) {
            // The characteristic the table recorded for the descriptor, not the one the caller says.
            let characteristic: DiscoveredCharacteristic? = state.withLock { state in
                guard let attributes = state.links[uuid]?.attributes, let entry = attributes.descriptors[descriptor.id] else { return nil }
                return attributes.discovered(entry.characteristic)
            }
            guard let characteristic else {
                throw BluetoothError.notFound("characteristic of descriptor \(descriptor.uuid) as \(descriptor.id) (discover it on this connection first)")
            }
            let enable = (value.first ?? 0) & 0x03 != 0
            try await setNotifications(enable, for: characteristic, timeout: timeout, on: uuid, generation: generation)
            return
        }
        _ = try await request(
            "write descriptor \(descriptor.uuid)", timeout: timeout, on: uuid, generation: generation, key: .writeDescriptor(descriptor.id),
            resolve: { (link) throws(BluetoothError) in try Self.descriptor(descriptor, in: link) },
            issue: { peripheral, object in peripheral.writeValue(Data(value), for: object) })
    }

    func setNotifications(_ enabled: Bool, for characteristic: DiscoveredCharacteristic, timeout: Duration, on uuid: UUID, generation: UInt64)
        async throws
    {
        _ = try await request(
            enabled ? "subscribe to \(characteristic.uuid)" : "unsubscribe from \(characteristic.uuid)", timeout: timeout, on: uuid,
            generation: generation, key: .notificationState(characteristic: characteristic.id),
            resolve: { (link) throws(BluetoothError) in try Self.characteristic(characteristic, in: link) },
            issue: { peripheral, object in peripheral.setNotifyValue(enabled, for: object) })
    }

    /// A new stream of the values notified for `characteristic`. The first stream opened for a
    /// characteristic of a restored connection starts with the values held for it.
    func valueUpdates(
        for characteristic: DiscoveredCharacteristic, buffering: UpdateBuffering, on uuid: UUID, generation: UInt64
    ) -> ValueUpdates {
        let (stream, continuation) = ValueUpdates.makeStream(buffering: buffering)
        let characteristicID = characteristic.id
        let id: UInt64? = state.withLock { state in
            guard let link = state.links[uuid], link.phase == .connected, link.generation == generation,
                link.attributes.characteristics[characteristicID] != nil
            else { return nil }
            let id = state.makeID()
            // Yielded with the lock held, so no live value can come between the held ones.
            for value in state.links[uuid]?.heldValues.removeValue(forKey: characteristicID)?.values ?? [] { continuation.yield(value) }
            state.links[uuid]?.subscribers[characteristicID, default: [:]][id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination { [weak self] in
            guard let self else { return }
            state.withLock { state in
                state.links[uuid]?.subscribers[characteristicID]?[id] = nil
                if state.links[uuid]?.subscribers[characteristicID]?.isEmpty == true { state.links[uuid]?.subscribers[characteristicID] = nil }
            }
        }
        return stream
    }

    /// `maximumWriteValueLength(for:)`, asked on the queue; 20 (the default ATT_MTU's) when the
    /// peripheral is not connected.
    func maximumWriteLength(for kind: WriteKind, on uuid: UUID) async -> Int {
        await onQueue {
            let peripheral: Peripheral? = self.state.withLock { state in
                guard let link = state.links[uuid], link.phase == .connected else { return nil }
                return link.peripheral
            }
            guard let peripheral, let type = try? Self.writeType(kind) else { return 20 }
            return peripheral.maximumWriteValueLength(for: type)
        }
    }

    func readRSSI(timeout: Duration, on uuid: UUID, generation: UInt64) async throws -> RSSI {
        let reply = try await request(
            "read RSSI", timeout: timeout, on: uuid, generation: generation, key: .rssi, resolve: { _ in () },
            issue: { peripheral, _ in peripheral.readRSSI() })
        guard case .rssi(let value) = reply else { throw Self.unexpectedReply }
        guard let rssi = RSSI(dBm: value) else { throw BluetoothError.backend("CoreBluetooth gave no RSSI reading (\(value))") }
        return rssi
    }

    func disconnection(of uuid: UUID, generation: UInt64) async -> DisconnectReason {
        await withCheckedContinuation { (continuation: CheckedContinuation<DisconnectReason, Never>) in
            let now: DisconnectReason? = state.withLock { state in
                guard let link = state.links[uuid] else { return .localRequest }
                guard link.phase == .connected, link.generation == generation else { return link.endReason(of: generation) }
                let id = state.makeID()
                state.links[uuid]?.disconnectWaiters[id] = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }
}
