import Foundation
import Harald
import HaraldCodec
import HaraldCore

/// Harald's peripheral backend on CoreBluetooth: serves a `PeripheralDefinition` through a
/// `CBPeripheralManager`.
///
/// Like the central backend, the logic runs against shaped protocols
/// (``CoreBluetoothPeripheralManager`` and friends), so the same code drives Apple's manager and a
/// fake on Linux, and it is built the same way (CoreBluetooth's queue, one lock around its state:
/// the Harald documentation's article "Concurrency model"). The manager is made on the first
/// ``serve(_:)`` (making it asks the user for permission).
///
/// What CoreBluetooth imposes, and what the backend does about it:
/// - **Power.** `serve` waits for `.poweredOn` (until its task is cancelled); an unsupported or
///   unauthorized radio fails it at once with `BluetoothError/radioUnavailable(_:)`. When the
///   radio leaves `.poweredOn` while serving, CoreBluetooth stops advertising and clears the
///   published database: every subscription ends (reported as unsubscriptions), waiting
///   notifications fail with `BluetoothError/radioUnavailable(_:)`, and the backend publishes
///   the definition and advertises again once the radio is back on.
/// - **Database.** Each service is added in declaration order, one `didAdd` at a time. Properties
///   are the definition's, without broadcast and extended properties (CoreBluetooth refuses them
///   on local characteristics). Security: every encrypted level (`AttributeSecurity/encrypted`,
///   `AttributeSecurity/authenticated`, `AttributeSecurity/authenticatedSecureConnections`)
///   becomes `readEncryptionRequired` / `writeEncryptionRequired`, and the read security of a
///   characteristic that notifies or indicates also becomes notify/indicate-encryption-required
///   (a notify-only characteristic gets the read permission for it): CoreBluetooth then refuses
///   an unencrypted central's subscription itself (it answers the CCCD write with Insufficient
///   Authentication or Encryption and has the phone pair), and it sends updates only to
///   subscribed centrals, whose links stay encrypted for as long as they are connected, so
///   `ServingBackend/withheldNotifications(characteristic:service:)` is always 0 here.
///   CoreBluetooth has no separate MITM, Secure Connections or key size permission, so an
///   authenticated attribute (or a minimum key size) is only as safe as the pairing the phone
///   chose. Handlers see `isEncrypted` true on such
///   attributes (CoreBluetooth pairs before it lets the request through) and `isAuthenticated`
///   false (CoreBluetooth does not say). A value is cached in CoreBluetooth (answered without
///   waking the app) only for a read-only characteristic with no read handler, no authorization
///   rule, no read security and a non-empty value, since CoreBluetooth requires a cached characteristic to be read-only
///   and never lets it change: `ServingBackend/setValue(_:characteristic:service:)` on one throws
///   `BluetoothError/unsupported(_:)`. Every other value is served dynamically.
/// - **Authorization rules** (`CharacteristicDefinition/authorized(by:)`) are asked before
///   reads and writes; a refusal is Insufficient Authorization. Subscriptions cannot be refused:
///   CoreBluetooth reports them after it has accepted them.
/// - **Reads** are answered with the read handler's bytes (or the stored value) from
///   `request.offset` on (an offset past the end: Invalid Offset); a handler's `ATTErrorCode`
///   goes back as the request's result. A long read runs the handler once, at offset 0, when its
///   value does not fit the central's Read Response (`maximumUpdateValueLength` + 2 bytes): the
///   central's Read Blobs are answered from that value until one carries its last part, the
///   central reads at offset 0 again, or the characteristic is written or set. At most
///   64 such values (of at most 512 bytes) are kept, the oldest going first: CoreBluetooth
///   reports no disconnections, so a central that left mid-read is never seen leaving.
/// - **Writes** arrive as a batch CoreBluetooth answers once, through its first request. The batch
///   is checked as a whole first (characteristic known and writable, offsets within the value,
///   at most ``maximumValueLength`` bytes): the first failure answers the batch and no handler
///   runs. Then each written characteristic's handler runs with its whole value, in order; the
///   first refusal answers the batch (handlers before it have already run) and nothing is stored.
///   Otherwise every value is stored, `PeripheralEvent/wrote(_:characteristic:)` is reported for
///   each, and the batch is answered with success.
/// - **Handlers** run one at a time, in the order the requests arrived, off CoreBluetooth's queue.
///   At most ``handlerQueueLimit`` requests wait for a handler; beyond it requests are refused
///   with Insufficient Resources (writes without response are then lost, as the central expects
///   no answer).
/// - **Advertising** carries only what CoreBluetooth lets an app advertise: the local name and the
///   service UUIDs. The rest of `PeripheralAdvertisement` (manufacturer data, appearance, TX
///   power, non-connectable mode) is ignored; iOS also moves service UUIDs to the overflow area,
///   and drops the name, in the background.
/// - **Notifications** (`updateValue`): when CoreBluetooth's transmit queue is full it returns
///   false; the notification then waits, with every later one behind it in order, until
///   `peripheralManagerIsReady(toUpdateSubscribers:)`, and is retried. Nothing is queued beyond
///   the callers waiting: a fast producer slows to the links' pace. A value is never cut: a
///   notification or indication to one central whose `maximumUpdateValueLength` (its
///   ATT_MTU − 3) is shorter than the value is refused with `BluetoothError/misuse(_:)`; one to
///   every subscriber goes whole to each central whose link carries it (named to CoreBluetooth,
///   which would otherwise cut it) and the others are left out and counted in
///   `ServingBackend/withheldNotifications(characteristic:service:)`.
/// - **Indications** go through the same call: CoreBluetooth sends an indication when the central
///   subscribed for indications, and never tells the app when it is confirmed. `indicate` returns
///   once CoreBluetooth has taken the value (its `timeout` bounds the wait for room), not at the
///   confirmation.
/// - **Centrals.** CoreBluetooth reports no connections or disconnections to a peripheral
///   manager: no `PeripheralEvent/connected(_:)` or `PeripheralEvent/disconnected(_:)` is
///   reported, `ServingBackend/centrals()` lists the centrals subscribed to something, and a
///   central's `CentralIdentifier` is its `CBCentral.identifier`. A central that disconnects is
///   seen unsubscribing.
/// - **L2CAP channels** (`ServingBackend/serveL2CAPChannels(psm:security:options:)`):
///   published with `publishL2CAPChannel(withEncryption:)`, encryption required from
///   `SecurityLevel/encrypted` up. CoreBluetooth picks the PSM (a fixed one is refused with
///   `BluetoothError/unsupported(_:)`); the server's `psm` is its choice. Channels centrals open
///   arrive with their central; stopping the server, or serving, unpublishes the PSM. The radio
///   leaving `.poweredOn` drops published PSMs, and ends their servers.
/// - **Changing services** (`ServingBackend/changeServices(removing:adding:)`): removed services
///   leave CoreBluetooth at once, added ones are published one by one; CoreBluetooth indicates
///   Service Changed to the centrals itself. What stays keeps its values, subscribers and waiting
///   notifications; subscriptions to removed characteristics are reported ended and their waiting
///   notifications reach no one. Not while the definition is still being published (misuse).
public final class CoreBluetoothPeripheralBackend<Manager: CoreBluetoothPeripheralManager>: PeripheralBackend, Sendable {
    /// A handler call waiting its turn.
    typealias Job = @Sendable () async -> Void

    /// CoreBluetooth's queue: the manager's delegate queue, where every call into it is made.
    let queue: DispatchQueue
    let queueKey = DispatchSpecificKey<Bool>()
    let clock: any Clock<Duration>
    let state = Locked(State())

    /// The longest attribute value (Core spec Vol 3 Part F §3.2.9).
    public static var maximumValueLength: Int { 512 }
    /// How many requests may wait for their handler.
    public static var handlerQueueLimit: Int { 1024 }

    /// A backend over the manager `makeManager` creates on the first ``serve(_:)``, on `queue`.
    /// `makeManager` receives the backend to use as the manager's delegate and must create the
    /// manager with `queue` as its delegate queue.
    public init(queue: DispatchQueue, clock: any Clock<Duration> = ContinuousClock(), makeManager: @escaping (CoreBluetoothPeripheralBackend) -> Manager) {
        self.queue = queue
        self.clock = clock
        queue.setSpecific(key: queueKey, value: true)
        state.withLock {
            $0.makeManager = makeManager
            $0.deadlines = DeadlineSchedule(anyClock: clock)
        }
    }

    deinit {
        state.withLock { state in
            state.deadlines.cancelSleeper()
            // Dropped while serving (stop() never called): the session's job worker waits on its
            // stream until the stream ends, and nothing else would end it (the worker and the
            // stream would keep each other forever); loops over the session's events end too.
            guard let session = state.session else { return }
            session.jobs.finish()
            for watcher in session.allWatchers { watcher.finish() }
        }
    }

    // MARK: State

    struct ServedCharacteristic {
        let definition: CharacteristicDefinition
        let service: BluetoothUUID
        let isCached: Bool
        var value: [UInt8]
        var subscribers: Set<CentralIdentifier> = []
        /// Notifications not sent to a subscribed central whose link could not carry the value.
        var withheld = 0
    }

    /// A notification or indication waiting for CoreBluetooth to take it.
    struct UpdateWaiter {
        let id: UInt64
        let data: Data
        let index: Int
        let central: CentralIdentifier?
        let indication: Bool
        let continuation: CheckedContinuation<Int, any Error>
        /// Its timeout on `State.deadlines`; nil for an update that waits until cancelled.
        let deadline: DeadlineSchedule<UpdateTimeout>.ID?
    }

    /// What an update's deadline ends when it passes: the update still waiting for
    /// CoreBluetooth to take it.
    struct UpdateTimeout: Sendable {
        let id: UInt64
        let operation: String
        let timeout: Duration
    }

    /// What a step of publishing waits for.
    enum Step: Equatable {
        case power
        case add(BluetoothUUID)
        case advertise
    }

    /// What `sendWaiting` does with the oldest waiting notification.
    enum NextUpdate {
        /// To send, how many centrals it reaches and how many subscribed centrals' links are too
        /// short for it (left out, counted as withheld once it is sent).
        case send(Manager, UpdateWaiter, Manager.MutableCharacteristic, [Manager.RemoteCentral], count: Int, withheld: Int)
        /// Every central it was for unsubscribed meanwhile, or (sent to all) no subscribed
        /// central's link carries it: it reaches no one.
        case drop(UpdateWaiter)
        /// Sent to one central whose link (`maximumUpdateValueLength`, this limit) is too short for
        /// it: refused, never cut.
        case refuse(UpdateWaiter, limit: Int)
    }

    struct StepWaiter {
        let step: Step
        let continuation: CheckedContinuation<Void, any Error>
    }

    struct Session {
        let generation: UInt64
        /// What is served now (services change with `changeServices`).
        var definition: PeripheralDefinition
        var characteristics: [ServedCharacteristic]
        /// The published objects (`CBMutableCharacteristic`, parallel to `characteristics`;
        /// `CBMutableService`, parallel to the definition's services), remade at each publication.
        var objects: [Manager.MutableCharacteristic] = []
        var services: [Manager.MutableService] = []
        var isPublished = false
        var isPublishing = true
        var watchers: [UInt64: AsyncStream<PeripheralEvent>.Continuation] = [:]
        /// The centrals subscribed to something.
        var centrals: [CentralIdentifier: Manager.RemoteCentral] = [:]
        var waiters: [UpdateWaiter] = []
        /// Requests waiting for their handler, to be answered on the queue.
        var requests: [UInt64: Manager.Request] = [:]
        /// Values read handlers produced for long reads in progress, for their Read Blobs.
        var longReads = LongReads()
        let jobs: AsyncStream<Job>.Continuation
        var queuedJobs = 0
        let worker: Task<Void, Never>

        /// The served characteristic CoreBluetooth names: the published object itself, else the
        /// one with its UUID in its service.
        func index(of characteristic: Manager.Characteristic) -> Int? {
            if let index = objects.firstIndex(where: { $0 === characteristic }) { return index }
            let uuid = characteristic.uuid.bluetoothUUID
            let service = characteristic.service?.uuid.bluetoothUUID
            return characteristics.firstIndex { $0.definition.uuid == uuid && (service == nil || $0.service == service) }
        }

        func index(of uuid: BluetoothUUID, in service: BluetoothUUID) -> Int? {
            characteristics.firstIndex { $0.definition.uuid == uuid && $0.service == service }
        }

        var allWatchers: [AsyncStream<PeripheralEvent>.Continuation] { Array(watchers.values) }
    }

    struct Teardown {
        let services: [Manager.MutableService]
        let requests: [Manager.Request]
    }

    struct State {
        var manager: Manager?
        var makeManager: ((CoreBluetoothPeripheralBackend) -> Manager)?
        var radio: RadioState = .unknown
        var nextID: UInt64 = 0
        var steps: [UInt64: StepWaiter] = [:]
        var session: Session?
        /// What ended sessions leave for the queue to take down.
        var teardowns: [Teardown] = []
        /// Services a change of services took out, for the queue to remove from CoreBluetooth.
        var removedServices: [Manager.MutableService] = []
        /// Objects the platform glue needs kept alive as long as the backend (the delegate proxy).
        var retainedObjects: [AnyObject] = []
        /// The timeouts of updates waiting for CoreBluetooth, served by at most one sleeping task.
        var deadlines = DeadlineSchedule<UpdateTimeout>(clock: ContinuousClock())
        /// `publishL2CAPChannel` calls waiting for `didPublishL2CAPChannel`, oldest first.
        var publishes: [PublishWaiter] = []
        /// The L2CAP PSMs served, by PSM.
        var channelServers: [UInt16: ChannelServerRecord] = [:]

        /// Forgets the timeouts of updates taken out of the session (lock held).
        mutating func endTimeouts(of waiters: [UpdateWaiter]) {
            for waiter in waiters { deadlines.cancel(waiter.deadline) }
        }

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }
    }

    // MARK: Diagnostics

    /// Continuations waiting (publishing steps, notifications waiting for room) plus requests
    /// waiting for their handler: 0 when nothing is in flight.
    package var pendingOperationCount: Int {
        state.withLock { state in
            state.steps.count + state.publishes.count + (state.session.map { $0.waiters.count + $0.requests.count } ?? 0)
        }
    }

    // MARK: Serving

    public func serve(_ definition: PeripheralDefinition) async throws(BluetoothError) -> any ServingBackend {
        let generation: UInt64? = state.withLock { state in
            guard state.session == nil else { return nil }
            let generation = state.makeID()
            let (stream, jobs) = AsyncStream.makeStream(of: Job.self)
            let worker = Task { for await job in stream { await job() } }
            state.session = Session(
                generation: generation, definition: definition, characteristics: Self.served(definition), jobs: jobs, worker: worker)
            return generation
        }
        guard let generation else { throw .misuse("the CoreBluetooth peripheral backend already serves a definition: stop it first") }
        do {
            try await withTaskCancellationHandler {
                try await publish(generation)
            } onCancel: {
                self.failSteps(where: { _ in true }, with: .cancelled)
            }
        } catch {
            await end(generation)
            throw error as? BluetoothError ?? .backend("\(error)")
        }
        return CoreBluetoothServing(backend: self, generation: generation)
    }

    /// The characteristics of `definition`, in declaration order.
    static func served(_ definition: PeripheralDefinition) -> [ServedCharacteristic] {
        definition.services.flatMap { service in
            service.characteristics.map {
                ServedCharacteristic(definition: $0, service: service.uuid, isCached: isCached($0), value: $0.value)
            }
        }
    }

    /// Whether CoreBluetooth caches the value (see the type's documentation).
    static func isCached(_ definition: CharacteristicDefinition) -> Bool {
        definition.properties == [.read] && definition.onRead == nil && definition.authorize == nil && !definition.readSecurity.needsEncryption
            && !definition.value.isEmpty
    }

    /// What CoreBluetooth is asked to publish for `definition`.
    public static func spec(_ definition: CharacteristicDefinition) -> CoreBluetoothCharacteristicSpec {
        let properties = definition.properties
        var raw = UInt(properties.intersection([.read, .writeWithoutResponse, .write, .notify, .indicate]).rawValue)
        if definition.readSecurity.needsEncryption {
            if properties.contains(.notify) { raw |= CoreBluetoothCharacteristicSpec.notifyEncryptionRequired }
            if properties.contains(.indicate) { raw |= CoreBluetoothCharacteristicSpec.indicateEncryptionRequired }
        }
        var permissions: UInt = 0
        // A characteristic that only notifies gets the read permission too, as in Apple's own
        // samples (the subscription is a way of reading it); reads of it are still refused with
        // Read Not Permitted, since it lacks the read property.
        if !properties.isDisjoint(with: [.read, .notify, .indicate]) {
            permissions |=
                definition.readSecurity.needsEncryption ? CoreBluetoothCharacteristicSpec.readEncryptionRequired : CoreBluetoothCharacteristicSpec.readable
        }
        if !properties.isDisjoint(with: [.write, .writeWithoutResponse]) {
            permissions |=
                definition.writeSecurity.needsEncryption ? CoreBluetoothCharacteristicSpec.writeEncryptionRequired : CoreBluetoothCharacteristicSpec.writeable
        }
        return CoreBluetoothCharacteristicSpec(
            uuid: definition.uuid, properties: raw, permissions: permissions, value: isCached(definition) ? Data(definition.value) : nil,
            userDescription: definition.userDescription,
            presentationFormat: definition.presentationFormat.flatMap { try? $0.encodedBytes() }.map { Data($0) })
    }

    /// The advertisement data CoreBluetooth takes: local name and service UUIDs only.
    static func advertisementData(_ advertisement: PeripheralAdvertisement) -> [String: Any] {
        var data: [String: Any] = [:]
        if let name = advertisement.name { data[Manager.keys.localName] = name }
        if !advertisement.services.isEmpty { data[Manager.keys.serviceUUIDs] = advertisement.services.map(Manager.makeUUID) }
        return data
    }

    /// Waits for power, adds the services one by one, starts advertising.
    func publish(_ generation: UInt64) async throws(BluetoothError) {
        defer { state.withLock { if $0.session?.generation == generation { $0.session?.isPublishing = false } } }
        try await wait(for: .power) { self.makeManagerAndCheckPower() }
        let services: [BluetoothUUID]? = buildObjects(generation)
        guard let services else { throw .cancelled }
        for (position, uuid) in services.enumerated() {
            try await wait(for: .add(uuid)) {
                let (manager, service, radio) = self.state.withLock { state in
                    let session = state.session?.generation == generation ? state.session : nil
                    return (state.manager, session.flatMap { $0.services.indices.contains(position) ? $0.services[position] : nil }, state.radio)
                }
                guard let manager, let service else { return self.failSteps(where: { $0 == .add(uuid) }, with: .cancelled) }
                guard radio == .poweredOn else { return self.failSteps(where: { $0 == .add(uuid) }, with: .radioUnavailable(radio)) }
                manager.add(service)
            }
        }
        let advertisement = state.withLock { $0.session?.definition.advertisement }
        guard let advertisement else { throw .cancelled }
        try await wait(for: .advertise) {
            let (manager, radio) = self.state.withLock { ($0.manager, $0.radio) }
            guard let manager else { return self.failSteps(where: { $0 == .advertise }, with: .cancelled) }
            guard radio == .poweredOn else { return self.failSteps(where: { $0 == .advertise }, with: .radioUnavailable(radio)) }
            manager.startAdvertising(Self.advertisementData(advertisement))
        }
        state.withLock { if $0.session?.generation == generation { $0.session?.isPublished = true } }
    }

    /// Makes the published objects for the session (fresh ones: CoreBluetooth cleared the old
    /// ones if the radio went off); returns the services' UUIDs, or nil when the session ended.
    private func buildObjects(_ generation: UInt64) -> [BluetoothUUID]? {
        state.withLock { state in
            guard var session = state.session, session.generation == generation else { return nil }
            var objects: [Manager.MutableCharacteristic] = []
            var services: [Manager.MutableService] = []
            var index = 0
            for service in session.definition.services {
                var characteristics: [Manager.MutableCharacteristic] = []
                for _ in service.characteristics {
                    let served = session.characteristics[index]
                    var spec = Self.spec(served.definition)
                    if served.isCached { spec.value = Data(served.value) }
                    characteristics.append(Manager.makeCharacteristic(spec))
                    index += 1
                }
                objects += characteristics
                services.append(Manager.makeService(service.uuid, isPrimary: service.isPrimary, characteristics: characteristics))
            }
            session.objects = objects
            session.services = services
            state.session = session
            return session.definition.services.map(\.uuid)
        }
    }

    /// Registers a waiter for `step`, then runs `start` on the queue; returns when the delegate
    /// call that ends the step arrives.
    func wait(for step: Step, _ start: @escaping @Sendable () -> Void) async throws(BluetoothError) {
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let registered = state.withLock { state -> Bool in
                    guard !Task.isCancelled else { return false }
                    state.steps[state.makeID()] = StepWaiter(step: step, continuation: continuation)
                    return true
                }
                guard registered else { return continuation.resume(throwing: BluetoothError.cancelled) }
                queue.async { start() }
            }
        } catch {
            throw error as? BluetoothError ?? .backend("\(error)")
        }
    }

    /// Ends the steps `matching` says with `result` (nil: success).
    func endSteps(where matching: (Step) -> Bool, with error: BluetoothError?) {
        let ended = state.withLock { state -> [StepWaiter] in
            let ids = state.steps.filter { matching($0.value.step) }.keys.sorted()
            return ids.compactMap { state.steps.removeValue(forKey: $0) }
        }
        for waiter in ended {
            if let error { waiter.continuation.resume(throwing: error) } else { waiter.continuation.resume() }
        }
    }

    func failSteps(where matching: (Step) -> Bool, with error: BluetoothError) {
        endSteps(where: matching, with: error)
    }

    /// On the queue: makes the manager if it is not made yet, and settles the power step if the
    /// radio state already decides it.
    private func makeManagerAndCheckPower() {
        let make = state.withLock { state -> ((CoreBluetoothPeripheralBackend) -> Manager)? in
            defer { state.makeManager = nil }
            return state.manager == nil ? state.makeManager : nil
        }
        if let make {
            let manager = make(self)
            state.withLock { $0.manager = manager }
        }
        settlePower(state.withLock { $0.radio })
    }

    func settlePower(_ radio: RadioState) {
        if radio == .poweredOn {
            endSteps(where: { $0 == .power }, with: nil)
        } else if radio == .unsupported || radio == .unauthorized {
            failSteps(where: { $0 == .power }, with: .radioUnavailable(radio))
        }
    }

    /// Ends the session `generation`: stops advertising, removes its services, answers the
    /// requests still waiting, fails the waiting notifications, finishes the event streams.
    func end(_ generation: UInt64) async {
        let ended = state.withLock { state -> Session? in
            guard let session = state.session, session.generation == generation else { return nil }
            state.session = nil
            state.teardowns.append(Teardown(services: session.services, requests: Array(session.requests.values)))
            state.endTimeouts(of: session.waiters)
            return session
        }
        guard let session = ended else { return }
        await unpublishChannels(of: generation)
        failSteps(where: { $0 != .power }, with: .cancelled)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.tearDown()
                continuation.resume()
            }
        }
        for waiter in session.waiters { waiter.continuation.resume(throwing: BluetoothError.cancelled) }
        for watcher in session.allWatchers { watcher.finish() }
        session.jobs.finish()
        session.worker.cancel()
    }

    /// On the queue: takes down what ended sessions published.
    private func tearDown() {
        let (manager, teardowns, poweredOn) = state.withLock { state in
            defer { state.teardowns = [] }
            return (state.manager, state.teardowns, state.radio == .poweredOn)
        }
        // Off, CoreBluetooth has already cleared its database (and calls would be misuse).
        guard let manager, poweredOn else { return }
        for teardown in teardowns {
            manager.stopAdvertising()
            for service in teardown.services { manager.remove(service) }
            for request in teardown.requests { manager.respond(to: request, withResult: Manager.result(.unlikelyError)) }
        }
    }

    // MARK: Mapping

    static func radioState(_ rawValue: Int) -> RadioState {
        switch rawValue {
        case 1: .resetting
        case 2: .unsupported
        case 3: .unauthorized
        case 4: .poweredOff
        case 5: .poweredOn
        default: .unknown
        }
    }

    static func central(_ central: Manager.RemoteCentral) -> CentralIdentifier {
        CentralIdentifier(rawValue: central.identifier.uuidString)
    }

    /// Who asks, as handlers see it: CoreBluetooth let the request through only on an encrypted
    /// link when the attribute needs one, and never says whether the key is authenticated.
    public static func attributeRequest(_ central: CentralIdentifier, security: AttributeSecurity) -> AttributeRequest {
        AttributeRequest(central: central, isEncrypted: security.needsEncryption, isAuthenticated: false)
    }

    static var success: ATTErrorCode { ATTErrorCode(rawValue: 0) }
}
