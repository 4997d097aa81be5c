import Foundation
import Harald
import HaraldCodec
import HaraldCore

extension CoreBluetoothPeripheralBackend {
    /// What a change of services leaves to do outside the lock.
    struct ServiceChange {
        /// Published services to take out of CoreBluetooth.
        let removed: [Manager.MutableService]
        /// Services to add, in order, and where the first one is in the session's services.
        let added: [BluetoothUUID]
        let firstAdded: Int
        /// Notifications that were waiting for a characteristic that is gone: they reach no one.
        let dropped: [UpdateWaiter]
        /// Subscriptions that ended with their characteristic.
        let ended: [PeripheralEvent]
        let watchers: [AsyncStream<PeripheralEvent>.Continuation]
    }

    /// Removes the served services whose UUID is in `removing` and adds `adding` after the rest:
    /// CoreBluetooth takes the removed ones out at once and adds the new ones one by one (each
    /// confirmed by `peripheralManager(_:didAdd:error:)`); it tells the connected centrals itself
    /// (it owns the Service Changed characteristic). Kept characteristics keep their values,
    /// subscribers and waiting notifications; subscriptions to removed ones are reported ended and
    /// their waiting notifications reach no one.
    func changeServices(removing: [BluetoothUUID], adding: [ServiceDefinition], generation: UInt64) async throws(BluetoothError) {
        let change = try withSession(generation) { session, radio throws(BluetoothError) -> ServiceChange in
            guard !session.isPublishing else { throw .misuse("the definition is still being published: change its services once serving started") }
            guard session.isPublished else { throw .radioUnavailable(radio) }
            var kept: [ServiceDefinition] = []
            var characteristics: [ServedCharacteristic] = []
            var objects: [Manager.MutableCharacteristic] = []
            var services: [Manager.MutableService] = []
            var removed: [Manager.MutableService] = []
            var ended: [PeripheralEvent] = []
            var newIndex: [Int: Int] = [:]
            var old = 0
            for (position, service) in session.definition.services.enumerated() {
                let range = old..<(old + service.characteristics.count)
                old = range.upperBound
                if removing.contains(service.uuid) {
                    if session.services.indices.contains(position) { removed.append(session.services[position]) }
                    for index in range {
                        let served = session.characteristics[index]
                        for central in served.subscribers.sorted(by: { $0.rawValue < $1.rawValue }) {
                            ended.append(.subscriptionChanged(central, characteristic: served.definition.uuid, notifying: false))
                        }
                    }
                    continue
                }
                kept.append(service)
                if session.services.indices.contains(position) { services.append(session.services[position]) }
                for index in range {
                    newIndex[index] = characteristics.count
                    characteristics.append(session.characteristics[index])
                    if session.objects.indices.contains(index) { objects.append(session.objects[index]) }
                }
            }
            for service in adding {
                var made: [Manager.MutableCharacteristic] = []
                for definition in service.characteristics {
                    let served = ServedCharacteristic(
                        definition: definition, service: service.uuid, isCached: Self.isCached(definition), value: definition.value)
                    var spec = Self.spec(definition)
                    if served.isCached { spec.value = Data(served.value) }
                    made.append(Manager.makeCharacteristic(spec))
                    characteristics.append(served)
                }
                objects += made
                services.append(Manager.makeService(service.uuid, isPrimary: service.isPrimary, characteristics: made))
            }
            var dropped: [UpdateWaiter] = []
            session.waiters = session.waiters.compactMap { waiter in
                guard let index = newIndex[waiter.index] else {
                    dropped.append(waiter)
                    return nil
                }
                return UpdateWaiter(
                    id: waiter.id, data: waiter.data, index: index, central: waiter.central, indication: waiter.indication,
                    continuation: waiter.continuation,
                    deadline: waiter.deadline)
            }
            session.definition.services = kept + adding
            session.longReads.forgetAll()
            session.characteristics = characteristics
            session.objects = objects
            session.services = services
            for central in Array(session.centrals.keys) where !characteristics.contains(where: { $0.subscribers.contains(central) }) {
                session.centrals[central] = nil
            }
            return ServiceChange(
                removed: removed, added: adding.map(\.uuid), firstAdded: services.count - adding.count, dropped: dropped, ended: ended,
                watchers: session.allWatchers)
        }
        // The queue takes the removed services from the state (the objects stay on its side).
        state.withLock { state in
            state.removedServices += change.removed
            state.endTimeouts(of: change.dropped)
        }
        for waiter in change.dropped { waiter.continuation.resume(returning: 0) }
        for event in change.ended { for watcher in change.watchers { watcher.yield(event) } }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                let (manager, removed, poweredOn) = self.state.withLock { state in
                    defer { state.removedServices = [] }
                    return (state.manager, state.removedServices, state.radio == .poweredOn)
                }
                if let manager, poweredOn { for service in removed { manager.remove(service) } }
                continuation.resume()
            }
        }
        let firstAdded = change.firstAdded
        for (offset, uuid) in change.added.enumerated() {
            try await wait(for: .add(uuid)) {
                let (manager, service, radio) = self.state.withLock { state in
                    let session = state.session?.generation == generation ? state.session : nil
                    let position = firstAdded + offset
                    return (state.manager, session.flatMap { $0.services.indices.contains(position) ? $0.services[position] : nil }, state.radio)
                }
                guard let manager, let service else { return self.failSteps(where: { $0 == .add(uuid) }, with: .cancelled) }
                guard radio == .poweredOn else { return self.failSteps(where: { $0 == .add(uuid) }, with: .radioUnavailable(radio)) }
                manager.add(service)
            }
        }
    }
}
