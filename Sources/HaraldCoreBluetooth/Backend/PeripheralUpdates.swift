import Foundation
import Harald
import HaraldCodec
import HaraldCore

/// What a served device does once it is published: notifications and indications waiting for
/// CoreBluetooth to take them (each with its timeout on the backend's one deadline schedule),
/// cached values, events and the subscribed centrals.
extension CoreBluetoothPeripheralBackend {
    /// Runs `body` on the session `generation` (nil when it ended).
    func withSession<T>(_ generation: UInt64, _ body: (inout Session, RadioState) throws(BluetoothError) -> T) throws(BluetoothError) -> T {
        try state.withLock { state throws(BluetoothError) -> T in
            guard var session = state.session, session.generation == generation else {
                throw .misuse("the served device was stopped")
            }
            defer { state.session = session }
            return try body(&session, state.radio)
        }
    }

    func update(
        _ value: [UInt8], characteristic uuid: BluetoothUUID, service: BluetoothUUID, to central: CentralIdentifier?, indication: Bool,
        timeout: Duration?, generation: UInt64
    ) async throws(BluetoothError) -> Int {
        let count = try withSession(generation) { session, radio throws(BluetoothError) -> Int in
            guard let index = session.index(of: uuid, in: service) else {
                throw .notFound("characteristic \(uuid) in service \(service) is not in the served definition")
            }
            let served = session.characteristics[index]
            let allowed: CharacteristicProperties = indication ? .indicate : [.notify, .indicate]
            guard !served.definition.properties.isDisjoint(with: allowed) else {
                throw .misuse("characteristic \(uuid) does not \(indication ? "indicate" : "notify")")
            }
            guard session.isPublished else { throw .radioUnavailable(radio) }
            if let central {
                guard served.subscribers.contains(central) else {
                    if indication { throw .notFound("\(central) is not subscribed to \(uuid)") }
                    return 0
                }
                return 1
            }
            return served.subscribers.count
        }
        guard count > 0 else { return 0 }
        let id = state.withLock { $0.makeID() }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
                    let failure = state.withLock { state -> BluetoothError? in
                        guard !Task.isCancelled else { return .cancelled }
                        guard var session = state.session, session.generation == generation else { return .misuse("the served device was stopped") }
                        guard let index = session.index(of: uuid, in: service) else { return .notFound("\(uuid)") }
                        let deadline = timeout.map { timeout in
                            state.deadlines.add(
                                at: state.deadlines.now() + timeout,
                                UpdateTimeout(id: id, operation: "\(indication ? "indication" : "notification") of \(uuid)", timeout: timeout))
                        }
                        session.waiters.append(
                            UpdateWaiter(
                                id: id, data: Data(value), index: index, central: central, indication: indication, continuation: continuation,
                                deadline: deadline))
                        state.session = session
                        if deadline != nil { armTimeouts(in: &state) }
                        return nil
                    }
                    if let failure { return continuation.resume(throwing: failure) }
                    queue.async { self.sendWaiting() }
                }
            } onCancel: {
                self.failWaiter(id, with: .cancelled)
            }
        } catch {
            throw error as? BluetoothError ?? .backend("\(error)")
        }
    }

    private func failWaiter(_ id: UInt64, with error: BluetoothError) {
        let waiter = state.withLock { state -> UpdateWaiter? in
            guard let index = state.session?.waiters.firstIndex(where: { $0.id == id }),
                let waiter = state.session?.waiters.remove(at: index)
            else { return nil }
            state.deadlines.cancel(waiter.deadline)
            return waiter
        }
        waiter?.continuation.resume(throwing: error)
    }

    /// Starts the task that sleeps until the earliest update timeout, if the schedule needs one
    /// (lock held).
    private func armTimeouts(in state: inout State) {
        state.deadlines.arm(startedBy: { Task(operation: $0) }) { [weak self] generation in self?.timeoutsPassed(generation) }
    }

    /// Fails every update whose timeout has passed.
    private func timeoutsPassed(_ generation: UInt64) {
        let due = state.withLock { state -> [UpdateTimeout] in
            let due = state.deadlines.takeDue(afterSleeperWoke: generation)
            armTimeouts(in: &state)
            return due
        }
        for timeout in due { failWaiter(timeout.id, with: .timeout(operation: timeout.operation, after: timeout.timeout)) }
    }

    /// On the queue: hands CoreBluetooth the waiting notifications, oldest first, until it has no
    /// room (it then calls `peripheralManagerIsReady(toUpdateSubscribers:)`, which calls this).
    func sendWaiting() {
        while true {
            let next = state.withLock { state -> NextUpdate? in
                guard let manager = state.manager, var session = state.session, session.isPublished, let waiter = session.waiters.first,
                    session.objects.indices.contains(waiter.index)
                else { return nil }
                let subscribers = session.characteristics[waiter.index].subscribers
                // Always a list of centrals, never nil ("every subscriber"): CoreBluetooth would cut
                // the value for a central whose link cannot carry it. A value is never cut.
                var centrals: [Manager.RemoteCentral] = []
                var tooShort: [Manager.RemoteCentral] = []
                for id in waiter.central.map({ [$0] }) ?? subscribers.sorted(by: { $0.rawValue < $1.rawValue }) {
                    guard subscribers.contains(id), let object = session.centrals[id] else { continue }
                    let limit = object.maximumUpdateValueLength
                    if limit >= 0, waiter.data.count > limit { tooShort.append(object) } else { centrals.append(object) }
                }
                guard centrals.isEmpty else {
                    return .send(manager, waiter, session.objects[waiter.index], centrals, count: centrals.count, withheld: tooShort.count)
                }
                session.waiters.removeFirst()
                state.deadlines.cancel(waiter.deadline)
                if let refused = tooShort.first, waiter.central != nil {
                    state.session = session
                    return .refuse(waiter, limit: refused.maximumUpdateValueLength)
                }
                session.characteristics[waiter.index].withheld += tooShort.count
                state.session = session
                return .drop(waiter)
            }
            switch next {
            case nil:
                return
            case .drop(let waiter):
                waiter.continuation.resume(returning: 0)
            case let .refuse(waiter, limit):
                let update = waiter.indication ? "an indication" : "a notification"
                waiter.continuation.resume(
                    throwing: BluetoothError.misuse(
                        "\(update) carries at most ATT_MTU − 3 = \(limit) bytes on this central's link (maximumUpdateValueLength), "
                            + "this value has \(waiter.data.count): shorten it, or let the central read the whole value"))
            case let .send(manager, waiter, characteristic, centrals, count, withheld):
                guard manager.updateValue(waiter.data, for: characteristic, onSubscribedCentrals: centrals) else { return }
                let sent = state.withLock { state -> UpdateWaiter? in
                    guard let index = state.session?.waiters.firstIndex(where: { $0.id == waiter.id }),
                        let sent = state.session?.waiters.remove(at: index)
                    else { return nil }
                    if state.session?.characteristics.indices.contains(sent.index) == true {
                        state.session?.characteristics[sent.index].withheld += withheld
                    }
                    state.deadlines.cancel(sent.deadline)
                    return sent
                }
                sent?.continuation.resume(returning: count)
            }
        }
    }

    /// Notifications of the characteristic not sent to a subscribed central whose link could not
    /// carry the whole value.
    func withheldNotifications(characteristic uuid: BluetoothUUID, service: BluetoothUUID, generation: UInt64) -> Int {
        state.withLock { state in
            guard let session = state.session, session.generation == generation, let index = session.index(of: uuid, in: service) else { return 0 }
            return session.characteristics[index].withheld
        }
    }

    func setValue(_ value: [UInt8], characteristic uuid: BluetoothUUID, service: BluetoothUUID, generation: UInt64) throws(BluetoothError) {
        try withSession(generation) { session, _ throws(BluetoothError) in
            guard let index = session.index(of: uuid, in: service) else {
                throw .notFound("characteristic \(uuid) in service \(service) is not in the served definition")
            }
            guard !session.characteristics[index].isCached else {
                throw .unsupported(
                    "CoreBluetooth caches the value of \(uuid), a read-only characteristic without a read handler, and never lets it change: "
                        + "give it a read handler to serve a changing value")
            }
            session.characteristics[index].value = value
            session.longReads.forget(characteristic: uuid, service: service)
        }
    }

    func events(generation: UInt64) -> AsyncStream<PeripheralEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: PeripheralEvent.self, bufferingPolicy: .bufferingNewest(256))
        let id = state.withLock { state -> UInt64? in
            guard state.session?.generation == generation else { return nil }
            let id = state.makeID()
            state.session?.watchers[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { state in
                if state.session?.generation == generation { _ = state.session?.watchers.removeValue(forKey: id) }
            }
        }
        return stream
    }

    func centrals(generation: UInt64) -> [CentralIdentifier] {
        state.withLock { state in
            guard let session = state.session, session.generation == generation else { return [] }
            return session.centrals.keys.sorted { $0.rawValue < $1.rawValue }
        }
    }
}

/// A definition served by ``CoreBluetoothPeripheralBackend``.
struct CoreBluetoothServing<Manager: CoreBluetoothPeripheralManager>: ServingBackend {
    let backend: CoreBluetoothPeripheralBackend<Manager>
    let generation: UInt64

    func notify(_ value: [UInt8], characteristic uuid: BluetoothUUID, service: BluetoothUUID, to central: CentralIdentifier?) async throws(BluetoothError)
        -> Int
    {
        try await backend.update(value, characteristic: uuid, service: service, to: central, indication: false, timeout: nil, generation: generation)
    }

    func indicate(
        _ value: [UInt8], characteristic uuid: BluetoothUUID, service: BluetoothUUID, to central: CentralIdentifier, timeout: Duration
    ) async throws(BluetoothError) {
        let sent = try await backend.update(
            value, characteristic: uuid, service: service, to: central, indication: true, timeout: timeout, generation: generation)
        if sent == 0 { throw .notFound("\(central) unsubscribed from \(uuid) before the indication went out") }
    }

    func withheldNotifications(characteristic uuid: BluetoothUUID, service: BluetoothUUID) async -> Int {
        backend.withheldNotifications(characteristic: uuid, service: service, generation: generation)
    }

    func setValue(_ value: [UInt8], characteristic uuid: BluetoothUUID, service: BluetoothUUID) async throws(BluetoothError) {
        try backend.setValue(value, characteristic: uuid, service: service, generation: generation)
    }

    func changeServices(removing: [BluetoothUUID], adding: [ServiceDefinition]) async throws(BluetoothError) {
        try await backend.changeServices(removing: removing, adding: adding, generation: generation)
    }

    func events() -> AsyncStream<PeripheralEvent> { backend.events(generation: generation) }
    func centrals() async -> [CentralIdentifier] { backend.centrals(generation: generation) }
    func stop() async { await backend.end(generation) }
}
