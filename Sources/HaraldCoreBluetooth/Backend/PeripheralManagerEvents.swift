import Foundation
import Harald
import HaraldCodec
import HaraldCore

// The peripheral manager's delegate calls, on CoreBluetooth's queue.

extension CoreBluetoothPeripheralBackend: CoreBluetoothPeripheralManagerDelegate {
    enum StateAction { case none, republish(UInt64), suspend }

    enum ReadPlan {
        case answer(Result<[UInt8], ATTErrorCode>)
        case run(AttributeReadHandler, AttributeRequest, id: UInt64, generation: UInt64, jobs: AsyncStream<Job>.Continuation, longRead: LongReadKey?)
    }

    enum WritePlan {
        case answer(ATTErrorCode)
        case commit([AssembledWrite], generation: UInt64)
        case run([AssembledWrite], id: UInt64, generation: UInt64, jobs: AsyncStream<Job>.Continuation)
    }

    /// Records the peripheral manager's new radio state; serving starts once it is powered on.
    public func peripheralManagerDidUpdateState(_ peripheral: Manager) {
        let radio = Self.radioState(peripheral.state.rawValue)
        if radio != .poweredOn { radioLeftForChannels(radio) }
        let (action, lost) = state.withLock {
            state -> (StateAction, (events: [PeripheralEvent], watchers: [AsyncStream<PeripheralEvent>.Continuation], waiters: [UpdateWaiter])) in
            state.radio = radio
            guard var session = state.session else { return (.none, ([], [], [])) }
            if radio == .poweredOn {
                guard !session.isPublished, !session.isPublishing else { return (.none, ([], [], [])) }
                session.isPublishing = true
                state.session = session
                return (.republish(session.generation), ([], [], []))
            }
            guard session.isPublished || !session.centrals.isEmpty || !session.waiters.isEmpty else { return (.none, ([], [], [])) }
            // CoreBluetooth stopped advertising and cleared the database: every subscription ended.
            var events: [PeripheralEvent] = []
            for index in session.characteristics.indices {
                for central in session.characteristics[index].subscribers.sorted(by: { $0.rawValue < $1.rawValue }) {
                    events.append(.subscriptionChanged(central, characteristic: session.characteristics[index].definition.uuid, notifying: false))
                }
                session.characteristics[index].subscribers = []
            }
            let waiters = session.waiters
            session.waiters = []
            state.endTimeouts(of: waiters)
            session.centrals = [:]
            session.requests = [:]
            session.longReads.forgetAll()
            session.isPublished = false
            state.session = session
            return (.suspend, (events, session.allWatchers, waiters))
        }
        for event in lost.events { for watcher in lost.watchers { watcher.yield(event) } }
        for waiter in lost.waiters { waiter.continuation.resume(throwing: BluetoothError.radioUnavailable(radio)) }
        if radio != .poweredOn {
            // Publishing steps in flight cannot complete now; the power step keeps waiting.
            endSteps(where: { $0 != .power }, with: .radioUnavailable(radio))
        }
        settlePower(radio)
        if case .republish(let generation) = action {
            Task {
                try? await self.publish(generation)
                self.sendWaitingOnQueue()
            }
        }
    }

    /// Completes publishing one service of the served definition.
    public func peripheralManager(_ peripheral: Manager, didAdd service: Manager.Service, error: (any Error)?) {
        let uuid = service.uuid.bluetoothUUID
        endSteps(where: { $0 == .add(uuid) }, with: error.map { CoreBluetoothErrorMapping.bluetoothError($0, attribute: nil, keys: Manager.keys) })
    }

    /// Completes starting to advertise, or fails serving with the system's error.
    public func peripheralManagerDidStartAdvertising(_ peripheral: Manager, error: (any Error)?) {
        var failure: BluetoothError?
        if let error {
            let nsError = error as NSError
            // Already advertising (CBError 9): what was asked for is what happens.
            if !(nsError.domain == Manager.keys.errorDomain && nsError.code == 9) {
                failure = CoreBluetoothErrorMapping.bluetoothError(error, attribute: nil, keys: Manager.keys)
            }
        }
        endSteps(where: { $0 == .advertise }, with: failure)
    }

    /// Records that `central` turned notifications or indications of `characteristic` on (wrote its CCCD).
    public func peripheralManager(_ peripheral: Manager, central: Manager.RemoteCentral, didSubscribeTo characteristic: Manager.Characteristic) {
        subscription(central, characteristic, on: true)
    }

    /// Records that `central` turned notifications or indications of `characteristic` off.
    public func peripheralManager(_ peripheral: Manager, central: Manager.RemoteCentral, didUnsubscribeFrom characteristic: Manager.Characteristic) {
        subscription(central, characteristic, on: false)
    }

    private func subscription(_ central: Manager.RemoteCentral, _ characteristic: Manager.Characteristic, on: Bool) {
        let id = Self.central(central)
        let report = state.withLock { state -> (PeripheralEvent, [AsyncStream<PeripheralEvent>.Continuation])? in
            guard var session = state.session, let index = session.index(of: characteristic) else { return nil }
            let changed: Bool
            if on {
                changed = session.characteristics[index].subscribers.insert(id).inserted
                session.centrals[id] = central
            } else {
                changed = session.characteristics[index].subscribers.remove(id) != nil
                if !session.characteristics.contains(where: { $0.subscribers.contains(id) }) { session.centrals[id] = nil }
            }
            state.session = session
            guard changed else { return nil }
            return (.subscriptionChanged(id, characteristic: session.characteristics[index].definition.uuid, notifying: on), session.allWatchers)
        }
        guard let (event, watchers) = report else { return }
        for watcher in watchers { watcher.yield(event) }
    }

    /// Sends the notifications that waited for room in the system's transmit queue.
    public func peripheralManagerIsReady(toUpdateSubscribers peripheral: Manager) {
        sendWaiting()
    }

    func sendWaitingOnQueue() {
        queue.async { self.sendWaiting() }
    }

    // MARK: Reads

    /// Answers an ATT read from the definition's handler for the characteristic, with the value's
    /// slice from the request's offset (Read Blob). A long read runs the handler once, at offset
    /// 0: the central's Read Blobs that follow are answered from the value it returned.
    public func peripheralManager(_ peripheral: Manager, didReceiveRead request: Manager.Request) {
        let central = Self.central(request.central)
        let offset = request.offset
        let limit = request.central.maximumUpdateValueLength
        var report: (PeripheralEvent, [AsyncStream<PeripheralEvent>.Continuation])?
        let plan = state.withLock { state -> ReadPlan in
            guard var session = state.session, let index = session.index(of: request.characteristic) else {
                return .answer(.failure(.attributeNotFound))
            }
            let served = session.characteristics[index]
            guard served.definition.properties.contains(.read) else { return .answer(.failure(.readNotPermitted)) }
            // One event per read: a long read's later parts come with offsets.
            if offset == 0 { report = (.read(central, characteristic: served.definition.uuid), session.allWatchers) }
            guard var handler = Self.readHandler(served.definition, stored: served.value) else { return .answer(.success(served.value)) }
            let key = LongReadKey(central: central, characteristic: served.definition.uuid, service: served.service)
            if offset > 0, let kept = session.longReads.value(key) {
                handler = Self.keptValueHandler(kept, served.definition)
            } else if offset == 0 {
                session.longReads.forget(key)
            }
            guard session.queuedJobs < Self.handlerQueueLimit else {
                state.session = session
                return .answer(.failure(.insufficientResources))
            }
            let id = state.makeID()
            session.requests[id] = request
            session.queuedJobs += 1
            state.session = session
            return .run(
                handler, Self.attributeRequest(central, security: served.definition.readSecurity), id: id, generation: session.generation, jobs: session.jobs,
                longRead: served.definition.onRead == nil ? nil : key)
        }
        if let (event, watchers) = report { for watcher in watchers { watcher.yield(event) } }
        switch plan {
        case .answer(let result):
            answerRead(request, offset: offset, result, manager: peripheral)
        case let .run(handler, attributeRequest, id, generation, jobs, longRead):
            jobs.yield {
                let result: Result<[UInt8], ATTErrorCode>
                do throws(ATTErrorCode) { result = .success(try await handler(attributeRequest)) } catch { result = .failure(error) }
                self.queue.async {
                    if let longRead { self.noteLongRead(longRead, offset: offset, limit: limit, result, generation: generation) }
                    self.finishRead(id, generation: generation, offset: offset, result)
                }
            }
        }
    }

    /// What answers a read of `definition`: its handler, behind its authorization rule when it
    /// has one (then the stored value, as it was when the request came, is the answer).
    static func readHandler(_ definition: CharacteristicDefinition, stored: [UInt8]) -> AttributeReadHandler? {
        guard let rule = definition.authorize else { return definition.onRead }
        let inner = definition.onRead
        return { request throws(ATTErrorCode) in
            guard await rule(request, .read) else { throw .insufficientAuthorization }
            guard let inner else { return stored }
            return try await inner(request)
        }
    }

    /// What takes a write of `definition`: its handler, behind its authorization rule.
    /// (CoreBluetooth tells subscriptions after the fact, so `.subscribe` cannot be refused here.)
    static func writeHandler(_ definition: CharacteristicDefinition) -> AttributeWriteHandler? {
        guard let rule = definition.authorize else { return definition.onWrite }
        let inner = definition.onWrite
        return { request, value throws(ATTErrorCode) in
            guard await rule(request, .write) else { throw .insufficientAuthorization }
            try await inner?(request, value)
        }
    }

    /// On the queue: answers a read whose handler has finished.
    private func finishRead(_ id: UInt64, generation: UInt64, offset: Int, _ result: Result<[UInt8], ATTErrorCode>) {
        let taken = state.withLock { state -> (Manager, Manager.Request)? in
            guard let manager = state.manager, var session = state.session, session.generation == generation else { return nil }
            session.queuedJobs -= 1
            let request = session.requests.removeValue(forKey: id)
            state.session = session
            return request.map { (manager, $0) }
        }
        guard let (manager, request) = taken else { return }
        answerRead(request, offset: offset, result, manager: manager)
    }

    private func answerRead(_ request: Manager.Request, offset: Int, _ result: Result<[UInt8], ATTErrorCode>, manager: Manager) {
        switch result {
        case .success(let bytes):
            guard offset >= 0, offset <= bytes.count else { return manager.respond(to: request, withResult: Manager.result(.invalidOffset)) }
            request.value = Data(bytes[offset...])
            manager.respond(to: request, withResult: Manager.result(Self.success))
        case .failure(let code):
            manager.respond(to: request, withResult: Manager.result(code))
        }
    }

    // MARK: Writes

    /// One characteristic's value a write batch assembles.
    struct AssembledWrite: Sendable {
        let index: Int
        let uuid: BluetoothUUID
        let service: BluetoothUUID
        var value: [UInt8]
        let handler: AttributeWriteHandler?
        let request: AttributeRequest
    }

    /// Answers the ATT writes of one request (several for a prepared write, all or none applied)
    /// through the definition's handlers.
    public func peripheralManager(_ peripheral: Manager, didReceiveWrite requests: [Manager.Request]) {
        guard let first = requests.first else { return }
        let central = Self.central(first.central)
        let parts = requests.map { (characteristic: $0.characteristic, offset: $0.offset, value: $0.value.map { [UInt8]($0) } ?? []) }
        let plan = state.withLock { state -> WritePlan in
            guard var session = state.session else { return .answer(.attributeNotFound) }
            var writes: [AssembledWrite] = []
            for part in parts {
                guard let index = session.index(of: part.characteristic) else { return .answer(.attributeNotFound) }
                let served = session.characteristics[index]
                guard !served.definition.properties.isDisjoint(with: [.write, .writeWithoutResponse]) else { return .answer(.writeNotPermitted) }
                let position = writes.firstIndex { $0.index == index }
                let base = position.map { writes[$0].value } ?? served.value
                guard part.offset >= 0, part.offset <= base.count else { return .answer(.invalidOffset) }
                let value = Array(base.prefix(part.offset)) + part.value
                guard value.count <= Self.maximumValueLength else { return .answer(.invalidAttributeValueLength) }
                if let position {
                    writes[position].value = value
                } else {
                    writes.append(
                        AssembledWrite(
                            index: index, uuid: served.definition.uuid, service: served.service, value: value, handler: Self.writeHandler(served.definition),
                            request: Self.attributeRequest(central, security: served.definition.writeSecurity)))
                }
            }
            guard writes.contains(where: { $0.handler != nil }) else { return .commit(writes, generation: session.generation) }
            guard session.queuedJobs < Self.handlerQueueLimit else { return .answer(.insufficientResources) }
            let id = state.makeID()
            session.requests[id] = first
            session.queuedJobs += 1
            state.session = session
            return .run(writes, id: id, generation: session.generation, jobs: session.jobs)
        }
        switch plan {
        case .answer(let code):
            peripheral.respond(to: first, withResult: Manager.result(code))
        case let .commit(writes, generation):
            commit(writes, generation: generation, central: central)
            peripheral.respond(to: first, withResult: Manager.result(Self.success))
        case let .run(writes, id, generation, jobs):
            jobs.yield {
                var refusal: ATTErrorCode?
                for write in writes {
                    guard let handler = write.handler else { continue }
                    do throws(ATTErrorCode) { try await handler(write.request, write.value) } catch {
                        refusal = error
                        break
                    }
                }
                let result = refusal
                self.queue.async { self.finishWrite(id, generation: generation, writes: writes, central: central, refusal: result) }
            }
        }
    }

    /// On the queue: answers a write batch whose handlers have run.
    private func finishWrite(_ id: UInt64, generation: UInt64, writes: [AssembledWrite], central: CentralIdentifier, refusal: ATTErrorCode?) {
        let taken = state.withLock { state -> (Manager, Manager.Request)? in
            guard let manager = state.manager, var session = state.session, session.generation == generation else { return nil }
            session.queuedJobs -= 1
            let request = session.requests.removeValue(forKey: id)
            state.session = session
            return request.map { (manager, $0) }
        }
        guard let (manager, request) = taken else { return }
        if let refusal { return manager.respond(to: request, withResult: Manager.result(refusal)) }
        commit(writes, generation: generation, central: central)
        manager.respond(to: request, withResult: Manager.result(Self.success))
    }

    /// Stores the values a batch wrote and reports the writes.
    private func commit(_ writes: [AssembledWrite], generation: UInt64, central: CentralIdentifier) {
        let watchers = state.withLock { state -> [AsyncStream<PeripheralEvent>.Continuation] in
            guard var session = state.session, session.generation == generation else { return [] }
            // By UUID, not by the index the batch was planned with: services may have changed
            // while a handler ran (a write to a removed characteristic is dropped).
            for write in writes {
                guard let index = session.index(of: write.uuid, in: write.service) else { continue }
                session.characteristics[index].value = write.value
                session.longReads.forget(characteristic: write.uuid, service: write.service)
            }
            state.session = session
            return session.allWatchers
        }
        for write in writes {
            for watcher in watchers { watcher.yield(.wrote(central, characteristic: write.uuid)) }
        }
    }
}
