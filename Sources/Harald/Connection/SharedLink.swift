import HaraldCodec
import HaraldCore
import Logging

/// The one link to a peripheral that every ``PeripheralConnection`` handle to it shares: what
/// was discovered on it, which characteristics have notifications on and for how many
/// subscribers, and how many handles own it.
///
/// Notifications are reference-counted per characteristic across handles: the CCCD is written
/// on for the first subscriber and off when the last one ends, so one owner's unsubscribe never
/// ends another's stream. The link is disconnected when its last owner disconnects or is
/// released.
actor SharedLink {
    /// Service changes a ``changes()`` stream holds for a reader that falls behind; the oldest go first.
    static let changeBufferLimit = 16

    /// The link's serial domain (the backend's, or one of its own), which every handle shares.
    nonisolated let serialDomain: any Actor
    nonisolated var unownedExecutor: UnownedSerialExecutor { serialDomain.unownedExecutor }

    nonisolated let backend: any ConnectionBackend
    nonisolated let clock: any Clock<Duration>
    nonisolated let logger: Logger
    /// Deadline of the CCCD write that turns notifications off after the last subscriber.
    nonisolated let cleanUpTimeout: Duration
    nonisolated var peripheral: PeripheralIdentifier { backend.peripheral }
    /// Why the link ended, once it has (set by the registry's watcher, or by ``close()``).
    nonisolated let ended = Latch<DisconnectReason>()

    private struct Owners {
        var count = 0
        /// Set once the last owner left (or the app forced a disconnection): no owner can be
        /// added any more, and clean-ups skip their CCCD writes.
        var closing = false
    }

    private nonisolated let owners = Locked(Owners())

    private struct CleanUps {
        var inFlight = 0
        var failures = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private nonisolated let cleanUps = Locked(CleanUps())

    // Discovery cache.
    /// The services the owners declared; a lock, so a new handle declares before its first call.
    private nonisolated let declaredSpecs = Locked<[BluetoothUUID: ServiceSpec]>([:])
    private var declared: [BluetoothUUID: ServiceSpec] { declaredSpecs.value }
    private var services: [BluetoothUUID: DiscoveredService] = [:]
    private var discoveredAllServices = false
    private var characteristicsByService: [BluetoothUUID: [DiscoveredCharacteristic]] = [:]
    /// Per service, which characteristics were asked of the backend so far.
    private var askedCharacteristics: [BluetoothUUID: CharacteristicsAsked] = [:]

    // Notifications.
    private var holds: [AttributeID: Int] = [:]
    /// Counts the database changes seen; a hold taken before its characteristic was
    /// invalidated is stale (its CCCD is gone with the old database).
    private var epoch = 0
    private var invalidatedAt: [AttributeID: Int] = [:]
    /// CCCD writes of this link, one at a time, so that two subscribers racing for the first
    /// hold do not both write (or one return before notifications are on).
    private let cccdTurns = Turns()
    /// Requests (`PeripheralConnection.request`) waiting on each response characteristic, from
    /// every handle of the link, one at a time: a notification answers the request under way.
    private var requestTurns: [AttributeID: Turns] = [:]
    /// The streams of ``changes()``.
    private nonisolated let changeStreams = StreamBroadcast<ServiceChange>(bufferingNewest: changeBufferLimit)

    init(backend: any ConnectionBackend, clock: any Clock<Duration>, logger: Logger, cleanUpTimeout: Duration) {
        self.backend = backend
        self.serialDomain = backend.serialDomain ?? SerialDomain()
        self.clock = clock
        self.logger = logger
        self.cleanUpTimeout = cleanUpTimeout
    }

    // MARK: Ownership

    /// Adds an owner; false once the link is closing (the caller then connects anew).
    nonisolated func addOwner() -> Bool {
        if ended.current != nil { return false }
        return owners.withLock { owners in
            guard !owners.closing else { return false }
            owners.count += 1
            return true
        }
    }

    /// Removes an owner; returns true when it was the last one, and the link is now closing.
    nonisolated func removeOwner() -> Bool {
        owners.withLock { owners in
            owners.count -= 1
            guard owners.count <= 0, !owners.closing else { return false }
            owners.closing = true
            return true
        }
    }

    /// How many handles own the link.
    nonisolated var ownerCount: Int { owners.value.count }

    /// True once the last owner left or the app forced a disconnection.
    nonisolated var isClosing: Bool { owners.value.closing }

    /// Disconnects for every owner. A link that has already ended has nothing to close: a
    /// reconnection the system is making of it carries on.
    func close() async {
        owners.withLock { $0.closing = true }
        if ended.current == nil { await backend.disconnect() }
        ended.set(.localRequest)
    }

    /// Disconnects from a context that cannot wait (a handle's `deinit`).
    nonisolated func closeLater() {
        let link = self
        backend.taskStarter.start { await link.close() }
    }

    // MARK: Discovery

    nonisolated func declare(_ specs: [ServiceSpec]) {
        declaredSpecs.withLock { declared in
            for spec in specs where declared[spec.uuid] == nil { declared[spec.uuid] = spec }
        }
    }

    /// The discovered characteristic `uuid` of service `serviceUUID`, discovering what is needed.
    func characteristic(_ uuid: BluetoothUUID, service serviceUUID: BluetoothUUID, deadline: CallDeadline) async throws(BluetoothError)
        -> DiscoveredCharacteristic
    {
        if let known = characteristicsByService[serviceUUID]?.first(where: { $0.uuid == uuid }) { return known }
        try await discoverCharacteristics(including: uuid, of: serviceUUID, deadline: deadline)
        guard let found = characteristicsByService[serviceUUID]?.first(where: { $0.uuid == uuid }) else {
            throw .notFound("characteristic \(uuid) in service \(serviceUUID)")
        }
        return found
    }

    /// Discovers the declared services' characteristics now.
    func prepare(_ specs: [ServiceSpec], deadline: CallDeadline) async throws(BluetoothError) {
        declare(specs)
        for spec in specs {
            try await discoverCharacteristics(including: nil, of: spec.uuid, deadline: deadline)
        }
    }

    /// Every primary service and characteristic.
    func discoverAll(deadline: CallDeadline) async throws(BluetoothError) -> [(service: DiscoveredService, characteristics: [DiscoveredCharacteristic])] {
        let found = try await deadline.run {
            try await backend.discoverServices(nil, timeout: try deadline.remaining("service discovery"))
        }
        discoveredAllServices = true
        let characteristics = try await deadline.run {
            try await backend.discoverCharacteristics(ofAll: found, timeout: try deadline.remaining("characteristic discovery"))
        }
        var tree: [(DiscoveredService, [DiscoveredCharacteristic])] = []
        for (service, serviceCharacteristics) in zip(found, characteristics) {
            if services[service.uuid] == nil { services[service.uuid] = service }
            if service == services[service.uuid] {
                characteristicsByService[service.uuid] = serviceCharacteristics
                askedCharacteristics[service.uuid] = .all
            }
            tree.append((service, serviceCharacteristics))
        }
        return tree
    }

    /// Discovers the characteristics of `serviceUUID` that have not been asked for yet: the ones
    /// its ``ServiceSpec`` declares (all of them when it declares none), plus `uuid`.
    ///
    /// CoreBluetooth discovers only what it is asked for, which saves radio time on large
    /// services; ATT backends find the declared ones with one procedure either way. A later use
    /// of an undeclared characteristic asks for just that one.
    private func discoverCharacteristics(including uuid: BluetoothUUID?, of serviceUUID: BluetoothUUID, deadline: CallDeadline)
        async throws(BluetoothError)
    {
        guard case let .some(askedSoFar) = askedCharacteristics[serviceUUID, default: .some([])] else { return }
        let declaredUUIDs = declared[serviceUUID]?.characteristics ?? []
        var wanted: [BluetoothUUID]?
        if characteristicsByService[serviceUUID] == nil {
            wanted = declaredUUIDs.isEmpty ? nil : declaredUUIDs + (uuid.map { declaredUUIDs.contains($0) ? [] : [$0] } ?? [])
        } else if let uuid, !askedSoFar.contains(uuid) {
            wanted = [uuid]
        } else {
            return
        }
        let service = try await discoveredService(serviceUUID, deadline: deadline)
        let epochBefore = epoch
        let found = try await deadline.run {
            try await backend.discoverCharacteristics(wanted, of: service, timeout: try deadline.remaining("characteristic discovery"))
        }
        // A change that arrived meanwhile may have made this discovery stale: the next use asks again.
        guard epoch == epochBefore else { throw .serviceChanged(service.id) }
        var known = characteristicsByService[serviceUUID] ?? []
        for characteristic in found where !known.contains(characteristic) { known.append(characteristic) }
        characteristicsByService[serviceUUID] = known
        askedCharacteristics[serviceUUID] = wanted.map { .some(askedSoFar.union($0)) } ?? .all
    }

    private func discoveredService(_ uuid: BluetoothUUID, deadline: CallDeadline) async throws(BluetoothError) -> DiscoveredService {
        if let known = services[uuid] { return known }
        let hidden = backend.hiddenServices
        if let reason = hidden[uuid] { throw .unsupported(reason) }
        if !discoveredAllServices {
            // Discover every declared service not yet known in one go, plus this one.
            var wanted = Set(declared.keys).subtracting(services.keys).subtracting(hidden.keys)
            wanted.insert(uuid)
            let epochBefore = epoch
            let found = try await deadline.run {
                try await backend.discoverServices(wanted.sorted(), timeout: try deadline.remaining("service discovery"))
            }
            guard epoch == epochBefore else { throw .serviceChanged(nil) }
            for service in found where services[service.uuid] == nil { services[service.uuid] = service }
        }
        guard let service = services[uuid] else { throw .notFound("service \(uuid)") }
        return service
    }

    // MARK: Service Changed

    /// Forgets everything `change` covers; later uses discover again.
    func apply(_ change: ServiceChange) {
        epoch += 1
        var forgotten: [BluetoothUUID] = []
        for (uuid, service) in services where change.affects(service) { forgotten.append(uuid) }
        var invalidated: Set<AttributeID> = []
        for uuid in forgotten {
            services[uuid] = nil
            for characteristic in characteristicsByService[uuid] ?? [] { invalidated.insert(characteristic.id) }
            characteristicsByService[uuid] = nil
            askedCharacteristics[uuid] = nil
        }
        if let range = change.handles {
            for (uuid, characteristics) in characteristicsByService {
                let inside = characteristics.filter { $0.valueHandle.map { range.start <= $0 && $0 <= range.end } ?? false }
                guard !inside.isEmpty else { continue }
                for characteristic in inside { invalidated.insert(characteristic.id) }
                characteristicsByService[uuid] = characteristics.filter { !inside.contains($0) }
                askedCharacteristics[uuid] = nil
            }
        }
        // A full re-discovery may find services that are new.
        discoveredAllServices = false
        for id in invalidated {
            invalidatedAt[id] = epoch
            holds[id] = nil
        }
        logger.debug("services changed", metadata: ["services": "\(forgotten)", "characteristics": "\(invalidated.count)"])
        changeStreams.yield(change)
    }

    /// Returns once a service change has made `hold` stale (its characteristic forgotten by the
    /// discovery cache), so that a subscription ended by that change reports it only then: the
    /// backend ends the subscription before the change reaches this link (through the registry's
    /// task), and an app that subscribes again at once must discover the characteristic anew,
    /// not reuse the forgotten one. Also returns when the link ends, the task is cancelled, or
    /// `cleanUpTimeout` passes (a backend that never reports the change).
    func settleChange(forgetting hold: NotificationHold) async {
        guard !isForgotten(hold) else { return }
        let link = self
        _ = try? await withDeadline(cleanUpTimeout, clock: clock) { await link.waitUntilForgotten(hold) }
    }

    private func waitUntilForgotten(_ hold: NotificationHold) async {
        let changes = changes()
        guard !isForgotten(hold) else { return }
        for await _ in changes where isForgotten(hold) { return }
    }

    /// True once a change after `hold` was taken invalidated its characteristic.
    private func isForgotten(_ hold: NotificationHold) -> Bool {
        guard let invalidated = invalidatedAt[hold.characteristic.id] else { return false }
        return invalidated > hold.epoch
    }

    /// Changes from now on, until the link ends.
    nonisolated func changes() -> AsyncStream<ServiceChange> {
        let stream = changeStreams.makeStream()
        // The link may have ended before (or while) the stream was made.
        if ended.current != nil { finishChanges() }
        return stream
    }

    /// Ends the change streams, and every later one at once (the link is gone).
    nonisolated func finishChanges() { changeStreams.finish() }

    // MARK: Notifications

    /// One subscriber's share of a characteristic's notifications.
    struct NotificationHold: Sendable {
        let characteristic: DiscoveredCharacteristic
        let epoch: Int
    }

    /// The line of requests answered on `characteristic` (made on first use; one per response
    /// characteristic of the link, so their number is bounded by the database).
    func requestTurns(for characteristic: DiscoveredCharacteristic) -> Turns {
        if let turns = requestTurns[characteristic.id] { return turns }
        let turns = Turns()
        requestTurns[characteristic.id] = turns
        return turns
    }

    /// Takes a hold on `characteristic`'s notifications, turning them on for the first one.
    func acquire(_ characteristic: DiscoveredCharacteristic, deadline: CallDeadline) async throws(BluetoothError) -> NotificationHold {
        guard await cccdTurns.take() else { throw .cancelled }
        defer { cccdTurns.end() }
        let id = characteristic.id
        let hold = NotificationHold(characteristic: characteristic, epoch: epoch)
        if (holds[id] ?? 0) == 0 {
            do {
                try await deadline.run {
                    try await backend.setNotifications(
                        true, for: characteristic, timeout: try deadline.remaining("CCCD write for \(characteristic.uuid)"))
                }
            } catch {
                // Timed out or cancelled, the write may have gone out and turned notifications
                // on with no one to own them: turn them off again once this turn is over.
                switch error {
                case .timeout, .cancelled: turnOffLater(characteristic)
                default: break
                }
                throw error
            }
        }
        holds[id, default: 0] += 1
        return hold
    }

    /// Holds on characteristics whose notifications the system left on when it restored the
    /// link: counted like a subscriber's, without a CCCD write (it is written already), so the
    /// last one given back turns them off.
    func adoptRestored(_ characteristics: [DiscoveredCharacteristic]) -> [NotificationHold] {
        characteristics.map { characteristic in
            holds[characteristic.id, default: 0] += 1
            return NotificationHold(characteristic: characteristic, epoch: epoch)
        }
    }

    /// Turns `characteristic`'s notifications off in a clean-up of its own (tracked like
    /// ``releaseLater(_:attributeIsStale:)``), unless someone holds them by then.
    private nonisolated func turnOffLater(_ characteristic: DiscoveredCharacteristic) {
        cleanUpLater { link in await link.turnOffUnheld(characteristic) }
    }

    private func turnOffUnheld(_ characteristic: DiscoveredCharacteristic) async {
        await cccdTurns.takeEvenIfCancelled()
        defer { cccdTurns.end() }
        guard (holds[characteristic.id] ?? 0) == 0, !owners.value.closing, ended.current == nil else { return }
        await turnOff(characteristic)
    }

    /// Gives `hold` back from a context that cannot wait (a stream's end): the clean-up runs
    /// at once as a task of its own, tracked so ``settle()`` can wait for it.
    nonisolated func releaseLater(_ hold: NotificationHold, attributeIsStale: Bool = false) {
        cleanUpLater { link in await link.release(hold, attributeIsStale: attributeIsStale) }
    }

    /// Runs `work` at once as a clean-up task of its own, counted until it ends so ``settle()``
    /// can wait for it.
    private nonisolated func cleanUpLater(_ work: @escaping @Sendable (SharedLink) async -> Void) {
        cleanUps.withLock { $0.inFlight += 1 }
        let link = self
        backend.taskStarter.start {
            await work(link)
            link.cleanUpFinished()
        }
    }

    /// Gives a hold back; the last one turns notifications off, with its own deadline. A failure
    /// is logged and counted (``cleanUpFailures``), never thrown at an unrelated call.
    ///
    /// With `attributeIsStale` (the peripheral changed the service, and the change may not have
    /// been applied here yet) the hold is dropped without any CCCD write.
    func release(_ hold: NotificationHold, attributeIsStale: Bool = false) async {
        await cccdTurns.takeEvenIfCancelled()
        defer { cccdTurns.end() }
        let id = hold.characteristic.id
        if let invalidated = invalidatedAt[id], invalidated > hold.epoch { return }
        let remaining = (holds[id] ?? 1) - 1
        guard remaining <= 0 else {
            holds[id] = remaining
            return
        }
        holds[id] = nil
        if attributeIsStale || owners.value.closing || ended.current != nil { return }
        await turnOff(hold.characteristic)
    }

    /// Writes the CCCD off with the clean-up deadline; a failure is logged and counted.
    private func turnOff(_ characteristic: DiscoveredCharacteristic) async {
        do {
            try await backend.setNotifications(false, for: characteristic, timeout: cleanUpTimeout)
            logger.trace("notifications off", metadata: ["uuid": "\(characteristic.uuid)"])
        } catch {
            if case .disconnected = error { return }
            cleanUps.withLock { $0.failures += 1 }
            logger.warning("turning notifications off failed", metadata: ["uuid": "\(characteristic.uuid)", "error": "\(error)"])
        }
    }

    private nonisolated func cleanUpFinished() {
        let waiters: [CheckedContinuation<Void, Never>] = cleanUps.withLock { state in
            state.inFlight -= 1
            guard state.inFlight == 0 else { return [] }
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until every clean-up started so far has finished.
    nonisolated func settle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = cleanUps.withLock { state in
                if state.inFlight == 0 { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Clean-up CCCD writes that failed (other than because the link went away).
    nonisolated var cleanUpFailures: Int { cleanUps.value.failures }

    /// Characteristics with notifications on, and how many holds each has.
    func notificationHolds() -> [AttributeID: Int] { holds }
}

/// Which characteristics of a service a connection has asked its backend for.
enum CharacteristicsAsked {
    /// Every characteristic (discovery without a UUID filter).
    case all
    /// Only these.
    case some(Set<BluetoothUUID>)
}
