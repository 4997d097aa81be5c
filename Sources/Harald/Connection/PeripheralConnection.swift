import Foundation
import HaraldCodec
import HaraldCore
import Logging

/// A connection to one peripheral, with typed reads, writes and subscriptions.
///
/// A `PeripheralConnection` is one owner's handle on the link to a peripheral. ``Central``
/// keeps one link per peripheral: connecting again (a device kit next to the app's own code,
/// two screens) returns another handle on the same link, sharing its discovered services and
/// its notifications. Notifications are counted per characteristic across handles, so one
/// owner's unsubscribe or disconnect never ends another's stream. The link goes down when its
/// last owner calls ``disconnect()`` or is released (a ``Subscription`` keeps its connection
/// alive while it is iterated).
///
/// Services and characteristics are discovered lazily, the first time the app touches them, and
/// only those the app declared (``ServiceSpec``) unless a tool asks for ``discoverAll(timeout:)``.
///
/// Every public call takes one timeout (``defaultTimeout`` when it is nil: each call waits on the
/// device's answer, and a device that never answers must not hang the app) covering all its steps —
/// discovery, the CCCD write, the operation itself — measured on ``clock`` from the call's start,
/// so time suspended waiting for other operations counts. Calls honour task cancellation; once
/// the link is gone (or this handle disconnected) every call fails with
/// ``BluetoothError/disconnected(_:)``. Which actors and tasks a call passes through, and how its
/// deadline nests with the lower layers' timers: <doc:ConcurrencyModel>.
public actor PeripheralConnection {
    /// The peripheral at the other end.
    public nonisolated let peripheral: PeripheralIdentifier
    /// Timeout of the calls on this handle that are given none (`timeout: nil`): the central's
    /// `defaultTimeout` unless changed with ``setDefaultTimeout(_:)``.
    public var defaultTimeout: Duration

    nonisolated let link: SharedLink
    package nonisolated var backend: any ConnectionBackend { link.backend }
    /// The link's serial domain (see `SerialDomain`): a handle runs on it with the link's engines
    /// (over HCI, on the transport's thread), so a call goes down the stack with no hop to
    /// another thread.
    package nonisolated var serialDomain: any Actor { link.serialDomain }
    /// The executor of the link's serial domain, where this actor runs.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { link.serialDomain.unownedExecutor }
    /// The clock the connection's timeouts run on (the simulation's virtual clock in a simulator).
    public nonisolated let clock: any Clock<Duration>
    /// Where this connection logs (operations at `trace`, failures at `debug`). Values are never
    /// logged, only their sizes, so secrets such as authentication keys stay out of logs.
    public nonisolated let logger: Logger
    /// Where code working on this connection starts its background tasks: device kits start their
    /// notification readers and clean-ups with it, so that on the simulator they run in the
    /// simulation (``ConnectionBackend/taskStarter``).
    public nonisolated var taskStarter: TaskStarter { backend.taskStarter }

    /// This handle's own state, behind a lock so ``disconnect()`` and `deinit` can end it at once.
    private struct Ownership {
        /// Set once this handle disconnected or was released: why.
        var released: DisconnectReason?
        /// The streams of this handle's subscriptions still open, to end when it disconnects.
        var streams: [UInt64: ValueUpdates.Ender] = [:]
        var nextStream: UInt64 = 0
        /// Response characteristics that ``request(write:to:response:timeout:)`` turned
        /// notifications on for; held until this handle goes away.
        var requestHolds: [AttributeID: SharedLink.NotificationHold] = [:]
        /// Characteristics the system left notifying when it restored the link, held by this
        /// (restored) handle until a subscription to each takes over or the handle goes away.
        var restoredHolds: [AttributeID: SharedLink.NotificationHold] = [:]
    }

    private nonisolated let ownership = Locked(Ownership())
    private nonisolated let releasedSignal = Latch<DisconnectReason>()

    /// A handle on `link`, which must already count it as an owner.
    init(link: SharedLink, services: [ServiceSpec], defaultTimeout: Duration, logger: Logger) {
        self.link = link
        self.peripheral = link.peripheral
        self.clock = link.clock
        self.logger = logger
        self.defaultTimeout = defaultTimeout
        link.declare(services)
    }

    deinit {
        // Released without disconnect(): give the ownership back, without waiting.
        if let lastOwner = Self.endOwnership(ownership, releasedSignal, link: link, reason: .localRequest), lastOwner {
            link.closeLater()
        }
    }

    /// Takes the holds on the characteristics the system left notifying on a restored link
    /// (``Central/restorations()``): this handle owns them until a subscription to each takes
    /// over, or until it disconnects or is released, which turns the rest off.
    func adoptRestoredNotifications(_ characteristics: [DiscoveredCharacteristic]) async {
        guard !characteristics.isEmpty else { return }
        let holds = await link.adoptRestored(characteristics)
        let refused: [SharedLink.NotificationHold]? = ownership.withLock { state in
            guard state.released == nil else { return holds }
            for hold in holds { state.restoredHolds[hold.characteristic.id] = hold }
            return nil
        }
        for hold in refused ?? [] { link.releaseLater(hold) }
    }

    /// How many characteristics this handle holds on behalf of a restoration.
    package nonisolated var restoredNotificationCount: Int { ownership.withLock { $0.restoredHolds.count } }

    /// Changes the timeout used by operations that are not given one.
    public func setDefaultTimeout(_ timeout: Duration) { defaultTimeout = timeout }

    /// How many handles share this connection's link (this one included, while it is open).
    public nonisolated var ownerCount: Int { link.ownerCount }

    /// CCCD writes that turned notifications off after a last subscriber and failed (other than
    /// because the link went away). They are logged at `warning`, never thrown at a later call.
    public nonisolated var cleanUpFailures: Int { link.cleanUpFailures }

    /// Waits until notifications whose last subscriber ended have been turned off (or failed to).
    /// Clean-ups start as soon as a subscription ends; this is for code that needs them done,
    /// such as tests.
    package func settle() async { await link.settle() }

    // MARK: Discovery

    /// Declares more services the app will use (their characteristics are discovered on first use).
    public func declare(_ services: [ServiceSpec]) {
        link.declare(services)
    }

    /// Discovers the given services and their characteristics now, instead of on first use.
    /// Throws ``BluetoothError/notFound(_:)`` when a service is missing.
    public func prepare(_ services: [ServiceSpec], timeout: Duration? = nil) async throws(BluetoothError) {
        let deadline = try start(timeout)
        try await link.prepare(services, deadline: deadline)
    }

    /// Discovers every primary service and characteristic (for tools such as `harald dump`).
    ///
    /// On ATT backends the characteristics of all services come from one Read By Type sweep over
    /// the handles the services span, rather than one search per service.
    public func discoverAll(timeout: Duration? = nil) async throws(BluetoothError) -> [(
        service: DiscoveredService, characteristics: [DiscoveredCharacteristic]
    )] {
        let deadline = try start(timeout)
        return try await link.discoverAll(deadline: deadline)
    }

    /// The descriptors of a discovered characteristic (for tools).
    public func discoverDescriptors(of characteristic: DiscoveredCharacteristic, timeout: Duration? = nil) async throws(BluetoothError)
        -> [DiscoveredDescriptor]
    {
        let deadline = try start(timeout)
        return try await deadline.run {
            try await backend.discoverDescriptors(of: characteristic, timeout: try deadline.remaining("descriptor discovery"))
        }
    }

    /// The descriptors of many discovered characteristics, one list per characteristic in the
    /// given order (for tools). On ATT backends one Find Information sweep covers them all.
    public func discoverDescriptors(ofAll characteristics: [DiscoveredCharacteristic], timeout: Duration? = nil) async throws(BluetoothError)
        -> [[DiscoveredDescriptor]]
    {
        let deadline = try start(timeout)
        return try await deadline.run {
            try await backend.discoverDescriptors(ofAll: characteristics, timeout: try deadline.remaining("descriptor discovery"))
        }
    }

    /// The discovered characteristic `uuid` of service `serviceUUID`, discovering what is needed.
    public func characteristic(_ uuid: BluetoothUUID, service serviceUUID: BluetoothUUID, timeout: Duration? = nil) async throws(BluetoothError)
        -> DiscoveredCharacteristic
    {
        let deadline = try start(timeout)
        return try await link.characteristic(uuid, service: serviceUUID, deadline: deadline)
    }

    private func resolve<V, A>(_ characteristic: Characteristic<V, A>, deadline: CallDeadline) async throws(BluetoothError) -> DiscoveredCharacteristic {
        try checkOpen()
        return try await link.characteristic(characteristic.uuid, service: characteristic.service, deadline: deadline)
    }

    // MARK: Descriptors

    /// Reads a descriptor's value (a User Description, a Presentation Format, a vendor descriptor).
    public func readDescriptor(_ descriptor: DiscoveredDescriptor, timeout: Duration? = nil) async throws(BluetoothError) -> [UInt8] {
        let deadline = try start(timeout)
        logger.trace("read descriptor", metadata: ["uuid": "\(descriptor.uuid)"])
        return try await deadline.run {
            try await backend.readDescriptor(descriptor, timeout: try deadline.remaining("read of descriptor \(descriptor.uuid)"))
        }
    }

    /// Writes a descriptor's value. Notifications are turned on and off through
    /// ``subscribe(_:buffering:onDecodingFailure:timeout:)``, which shares the CCCD between
    /// subscribers; writing a CCCD here bypasses that count.
    public func writeDescriptor(_ value: [UInt8], to descriptor: DiscoveredDescriptor, timeout: Duration? = nil) async throws(BluetoothError) {
        let deadline = try start(timeout)
        logger.trace("write descriptor", metadata: ["uuid": "\(descriptor.uuid)", "bytes": "\(value.count)"])
        try await deadline.run {
            try await backend.writeDescriptor(value, to: descriptor, timeout: try deadline.remaining("write to descriptor \(descriptor.uuid)"))
        }
    }

    // MARK: Typed operations

    /// Reads and decodes a characteristic's value.
    public func read<Value: ByteDecodable & Sendable, Access: ReadAccess>(
        _ characteristic: Characteristic<Value, Access>, timeout: Duration? = nil
    ) async throws(BluetoothError) -> Value {
        let deadline = try start(timeout)
        let found = try await resolve(characteristic, deadline: deadline)
        let bytes = try await read(found, deadline: deadline)
        do { return try Value(decoding: bytes) } catch { throw .decoding(error) }
    }

    /// Encodes and writes a value, waiting for the peripheral's acknowledgement.
    public func write<Value: ByteEncodable & Sendable, Access: WriteAccess>(
        _ value: Value, to characteristic: Characteristic<Value, Access>, timeout: Duration? = nil
    ) async throws(BluetoothError) {
        let deadline = try start(timeout)
        let bytes = try encode(value)
        let found = try await resolve(characteristic, deadline: deadline)
        try await write(bytes, to: found, kind: .withResponse, deadline: deadline)
    }

    /// Encodes and writes a value without acknowledgement. Waits while the backend is not ready
    /// to send instead of dropping the value.
    public func writeWithoutResponse<Value: ByteEncodable & Sendable, Access: WriteWithoutResponseAccess>(
        _ value: Value, to characteristic: Characteristic<Value, Access>, timeout: Duration? = nil
    ) async throws(BluetoothError) {
        let deadline = try start(timeout)
        let bytes = try encode(value)
        let found = try await resolve(characteristic, deadline: deadline)
        try await write(bytes, to: found, kind: .withoutResponse, deadline: deadline)
    }

    /// Turns on notifications (or indications) and returns the decoded values as they arrive.
    ///
    /// `buffering` says what happens while the loop is busy; with ``UpdateBuffering/default`` an
    /// indicating characteristic gets ``UpdateBuffering/lossless`` instead, since the stack has
    /// confirmed each indication before the loop takes it.
    ///
    /// When the subscription ends — unsubscribed, its loop's task cancelled, or released (a loop
    /// over `try await connection.subscribe(...)` releases it as the loop ends, by `break`, an
    /// error or `return`) — notifications are turned off at once, if no other subscriber of this
    /// link wants them, by a CCCD write with its own deadline; its failure is logged and counted
    /// in ``cleanUpFailures``, never thrown at a later call.
    public func subscribe<Value: ByteDecodable & Sendable, Access: SubscribeAccess>(
        _ characteristic: Characteristic<Value, Access>, buffering: UpdateBuffering = .default,
        onDecodingFailure: DecodingFailurePolicy = .skip, timeout: Duration? = nil
    ) async throws(BluetoothError) -> Subscription<Value> {
        let deadline = try start(timeout)
        let found = try await resolve(characteristic, deadline: deadline)
        return try await subscribe(found, as: Value.self, buffering: buffering, onDecodingFailure: onDecodingFailure, deadline: deadline)
    }

    /// Subscribes for the duration of `body`: notifications are on while it runs and turned off
    /// (when no one else wants them) before this returns, however `body` ends.
    ///
    /// `body` runs where the caller runs: a `@MainActor` model (or any actor) can call this and
    /// touch its own state in the loop. A loop that must not wake a thread per value (a gateway)
    /// can run on the transport's thread over HCI with `withTaskExecutorPreference` (see the
    /// concurrency model article).
    nonisolated(nonsending) public func withSubscription<Value: ByteDecodable & Sendable, Access: SubscribeAccess, Result>(
        to characteristic: Characteristic<Value, Access>, buffering: UpdateBuffering = .default,
        onDecodingFailure: DecodingFailurePolicy = .skip, timeout: Duration? = nil,
        _ body: (Subscription<Value>) async throws -> Result
    ) async throws -> Result {
        let subscription = try await subscribe(characteristic, buffering: buffering, onDecodingFailure: onDecodingFailure, timeout: timeout)
        do {
            let result = try await body(subscription)
            await unsubscribe(subscription)
            return result
        } catch {
            await unsubscribe(subscription)
            throw error
        }
    }

    /// Writes a command and returns the first value the peripheral then notifies on the response
    /// characteristic. Listens before writing, so a fast answer is not missed.
    ///
    /// Requests answered on one response characteristic take turns, first come first served,
    /// across every handle of the link (two buttons, or a kit and the app): each writes its
    /// command only once the request before it has its answer (or has failed), so each gets the
    /// answer to its own command. The wait for the turn counts against `timeout`, and a cancelled
    /// caller leaves the line.
    ///
    /// The first request turns notifications on for the response characteristic and leaves them
    /// on while this handle is open (a request/response protocol would otherwise write the CCCD
    /// twice per request); an existing subscription to it is shared, never toggled. Values
    /// notified while no request waits go only to subscribers.
    public func request<Command: ByteEncodable & Sendable, W: WriteAccess, Response: ByteDecodable & Sendable, S: SubscribeAccess>(
        write command: Command, to commandCharacteristic: Characteristic<Command, W>,
        response responseCharacteristic: Characteristic<Response, S>, timeout: Duration? = nil
    ) async throws(BluetoothError) -> Response {
        let deadline = try start(timeout)
        let bytes = try encode(command)
        let responder = try await resolve(responseCharacteristic, deadline: deadline)
        let target = try await resolve(commandCharacteristic, deadline: deadline)
        guard responder.properties.contains(.notify) || responder.properties.contains(.indicate) else {
            throw .notPermitted("\(responder.uuid) neither notifies nor indicates")
        }
        let turns = await link.requestTurns(for: responder)
        try await takeTurn(turns, deadline: deadline, operation: "response on \(responseCharacteristic.uuid)")
        defer { turns.end() }
        // Open the stream before enabling and writing, so nothing sent right after is lost.
        let updates = await backend.valueUpdates(for: responder, buffering: .oldest(16))
        defer { updates.finish() }
        if ownership.withLock({ $0.requestHolds[responder.id] }) == nil {
            let hold = try await link.acquire(responder, deadline: deadline)
            let kept = ownership.withLock { state -> Bool in
                guard state.released == nil, state.requestHolds[responder.id] == nil else { return false }
                state.requestHolds[responder.id] = hold
                return true
            }
            if !kept { link.releaseLater(hold) }
        }
        try await write(bytes, to: target, kind: .withResponse, deadline: deadline)
        let remaining = try deadline.remaining("response on \(responseCharacteristic.uuid)")
        let answer: [UInt8]?
        do {
            answer =
                try await withDeadline(remaining, clock: clock) {
                    var iterator = updates.makeAsyncIterator()
                    return await iterator.next()
                } ?? nil
        } catch { throw BluetoothError(error) }
        guard let answer else {
            if let error = updates.endError { throw error }
            if Task.isCancelled { throw .cancelled }
            throw .timeout(operation: "response on \(responseCharacteristic.uuid)", after: deadline.timeout)
        }
        do { return try Response(decoding: answer) } catch { throw .decoding(error) }
    }

    /// How many requests (from every handle of the link) wait for their turn on `response`'s
    /// characteristic now, not counting the one under way; for tests.
    package func requestsWaitingForTheirTurn<Response, S: SubscribeAccess>(
        on response: Characteristic<Response, S>
    ) async throws(BluetoothError) -> Int {
        let responder = try await resolve(response, deadline: try start(nil))
        return await link.requestTurns(for: responder).waitingCount
    }

    /// Waits for a turn in `turns` within what is left of `deadline`; throws (holding no turn)
    /// when the deadline passes or the task is cancelled first.
    private func takeTurn(_ turns: Turns, deadline: CallDeadline, operation: String) async throws(BluetoothError) {
        _ = try deadline.remaining(operation)
        // Whether the waiting child got the turn, known once the race is over (the group waits
        // for its children): a turn that came as the deadline passed is handed on, not kept.
        let took = Locked(false)
        let got: Bool
        do {
            got = try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    let taken = await turns.take()
                    took.withLock { $0 = taken }
                    return taken
                }
                group.addTask {
                    try await deadline.sleepUntilPassed()
                    return false
                }
                defer { group.cancelAll() }
                return try await group.next() ?? false
            }
        } catch {
            if took.value { turns.end() }
            throw Task.isCancelled ? .cancelled : BluetoothError(error)
        }
        guard got else {
            if took.value { turns.end() }
            if Task.isCancelled { throw .cancelled }
            throw .timeout(operation: operation, after: deadline.timeout)
        }
    }

    /// Ends a subscription: its loop finishes normally, and notifications are turned off when it
    /// was the characteristic's last subscription. Returns once that clean-up is done; its
    /// failure is logged and counted in ``cleanUpFailures``.
    public func unsubscribe<Value>(_ subscription: Subscription<Value>) async {
        subscription.ended.withLock { $0 = true }
        subscription.updates.finish()
        await link.settle()
    }

    // MARK: Raw operations (for tools)

    /// Reads a characteristic's raw bytes.
    public func readRaw<V, Access: ReadAccess>(_ characteristic: Characteristic<V, Access>, timeout: Duration? = nil) async throws(BluetoothError) -> [UInt8] {
        let deadline = try start(timeout)
        let found = try await resolve(characteristic, deadline: deadline)
        return try await read(found, deadline: deadline)
    }

    /// Reads a discovered characteristic's raw bytes.
    public func readRaw(_ characteristic: DiscoveredCharacteristic, timeout: Duration? = nil) async throws(BluetoothError) -> [UInt8] {
        try await read(characteristic, deadline: try start(timeout))
    }

    /// Reads the raw values of many discovered characteristics in as few round trips as the
    /// backend allows (on ATT backends: Read Multiple Variable batches filling the ATT_MTU,
    /// Read Blob for values they truncate, single reads when the peripheral does not support
    /// batches; other backends read one at a time).
    ///
    /// Returns one result per characteristic, in the given order: the whole value, or the error
    /// for that characteristic alone — ``BluetoothError/attribute(_:on:)`` when the
    /// peripheral refused it, ``BluetoothError/notPermitted(_:)`` when its properties lack read.
    /// Failures of the connection (disconnection, timeout, cancellation) are thrown.
    public func readRawValues(of characteristics: [DiscoveredCharacteristic], timeout: Duration? = nil) async throws(BluetoothError)
        -> [Result<[UInt8], BluetoothError>]
    {
        let deadline = try start(timeout)
        var results = characteristics.map { characteristic -> Result<[UInt8], BluetoothError> in
            characteristic.properties.contains(.read) ? .success([]) : .failure(.notPermitted("\(characteristic.uuid) is not readable"))
        }
        let readable = characteristics.indices.filter { characteristics[$0].properties.contains(.read) }
        guard !readable.isEmpty else { return results }
        logger.trace("read values", metadata: ["count": "\(readable.count)"])
        let values: [Result<[UInt8], BluetoothError>]
        do {
            values = try await deadline.run {
                try await backend.read(readable.map { characteristics[$0] }, timeout: try deadline.remaining("read of \(readable.count) characteristics"))
            }
        } catch {
            logger.debug("read values failed", metadata: ["count": "\(readable.count)", "error": "\(error)"])
            throw error
        }
        guard values.count == readable.count else {
            throw .backend("\(values.count) results for \(readable.count) reads")
        }
        for (index, value) in zip(readable, values) { results[index] = value }
        return results
    }

    /// Writes raw bytes to a characteristic.
    public func writeRaw<V, Access>(
        _ bytes: [UInt8], to characteristic: Characteristic<V, Access>, kind: WriteKind, timeout: Duration? = nil
    ) async throws(BluetoothError) {
        let deadline = try start(timeout)
        let found = try await resolve(characteristic, deadline: deadline)
        try await write(bytes, to: found, kind: kind, deadline: deadline)
    }

    /// Writes raw bytes to a discovered characteristic.
    public func writeRaw(_ bytes: [UInt8], to characteristic: DiscoveredCharacteristic, kind: WriteKind, timeout: Duration? = nil) async throws(BluetoothError)
    {
        try await write(bytes, to: characteristic, kind: kind, deadline: try start(timeout))
    }

    /// Subscribes to a discovered characteristic, decoding values as `Value` (`[UInt8]` for raw).
    public func subscribe<Value: ByteDecodable & Sendable>(
        _ characteristic: DiscoveredCharacteristic, as: Value.Type, buffering: UpdateBuffering = .default,
        onDecodingFailure: DecodingFailurePolicy = .skip, timeout: Duration? = nil
    ) async throws(BluetoothError) -> Subscription<Value> {
        try await subscribe(characteristic, as: Value.self, buffering: buffering, onDecodingFailure: onDecodingFailure, deadline: try start(timeout))
    }

    // MARK: Connection

    /// The ATT_MTU in effect.
    public func mtu() async -> Int { await backend.mtu() }

    /// Reads the link's received signal strength now (``BluetoothError/unsupported(_:)`` where
    /// the backend cannot).
    public func readRSSI(timeout: Duration? = nil) async throws(BluetoothError) -> RSSI {
        let deadline = try start(timeout)
        return try await deadline.run { try await backend.readRSSI(timeout: try deadline.remaining("RSSI read")) }
    }

    /// How the link is secured now; nil when the backend cannot tell (CoreBluetooth).
    public func security() async -> LinkSecurity? { await backend.security() }

    /// Secures the link now — encrypts with the bond's key when the peer is bonded, else pairs —
    /// instead of waiting for the peripheral to refuse a request for lack of security (which
    /// backends that pair do on their own, retrying the request once).
    public func secure(timeout: Duration? = nil) async throws(BluetoothError) -> LinkSecurity {
        let deadline = try start(timeout)
        return try await deadline.run { try await backend.secure(timeout: try deadline.remaining("securing the link")) }
    }

    /// Pairs now, even when the peer is bonded or the link is encrypted: the Security Manager runs
    /// the association model both sides' IO capabilities choose (asking the backend's pairing
    /// agent to confirm, compare or enter a passkey), encrypts the link with the new key and, when
    /// both sides bond, replaces the stored bond. Each pairing step has the SMP timeout (30 s);
    /// `timeout` (``defaultTimeout`` when nil) is handed to the backend, and Harald's own Security
    /// Manager does not apply it on top, since a person may be typing. Throws
    /// ``BluetoothError/pairingFailed(_:)`` with the reason when pairing fails, and
    /// ``BluetoothError/unsupported(_:)`` on CoreBluetooth, where only the system starts pairing
    /// (when the peripheral refuses a request for lack of security).
    public func pair(timeout: Duration? = nil) async throws(BluetoothError) -> LinkSecurity {
        try checkOpen()
        return try await backend.pair(timeout: timeout ?? defaultTimeout)
    }

    /// Changes to the peripheral's services from now on (Service Changed), until the link ends.
    /// The connection has already forgotten what changed when a change arrives here.
    public nonisolated func serviceChanges() -> AsyncStream<ServiceChange> { link.changes() }

    /// Waits until this connection ends — the link went down, or this handle disconnected — and
    /// returns why.
    public func disconnection() async -> DisconnectReason {
        if let released = ownership.withLock({ $0.released }) { return released }
        let (link, releasedSignal) = (self.link, self.releasedSignal)
        return await withTaskGroup(of: DisconnectReason?.self) { group in
            group.addTask { await link.ended.wait(ifCancelled: .other("cancelled")) }
            group.addTask { await releasedSignal.wait(ifCancelled: .other("cancelled")) }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .other("cancelled")
        }
    }

    /// Gives up this handle: its subscriptions end with ``BluetoothError/disconnected(_:)``
    /// (`.localRequest`) and its calls fail from now on. The link is disconnected when this was
    /// its last owner; other handles on it carry on.
    public func disconnect() async {
        guard let lastOwner = Self.endOwnership(ownership, releasedSignal, link: link, reason: .localRequest) else { return }
        if lastOwner { await link.close() }
    }

    // MARK: Internals

    /// Starts a public call: its deadline, once the handle is known to be open.
    func start(_ timeout: Duration?) throws(BluetoothError) -> CallDeadline {
        try checkOpen()
        return CallDeadline(timeout: timeout ?? defaultTimeout, clock: clock)
    }

    /// True once this handle disconnected (or was released).
    nonisolated var isReleased: Bool { ownership.withLock { $0.released != nil } }

    package nonisolated func checkOpen() throws(BluetoothError) {
        if let released = ownership.withLock({ $0.released }) { throw .disconnected(released) }
    }

    private func encode<Value: ByteEncodable>(_ value: Value) throws(BluetoothError) -> [UInt8] {
        do { return try value.encodedBytes() } catch { throw .encoding(error) }
    }

    private func read(_ characteristic: DiscoveredCharacteristic, deadline: CallDeadline) async throws(BluetoothError) -> [UInt8] {
        guard characteristic.properties.contains(.read) else { throw .notPermitted("\(characteristic.uuid) is not readable") }
        logger.trace("read", metadata: ["uuid": "\(characteristic.uuid)"])
        do {
            let value = try await deadline.run {
                try await backend.read(characteristic, timeout: try deadline.remaining("read of \(characteristic.uuid)"))
            }
            logger.trace("read done", metadata: ["uuid": "\(characteristic.uuid)", "bytes": "\(value.count)"])
            return value
        } catch {
            logger.debug("read failed", metadata: ["uuid": "\(characteristic.uuid)", "error": "\(error)"])
            throw error
        }
    }

    private func write(_ bytes: [UInt8], to characteristic: DiscoveredCharacteristic, kind: WriteKind, deadline: CallDeadline) async throws(BluetoothError) {
        let permitted =
            kind == .withResponse
            ? characteristic.properties.contains(.write) : characteristic.properties.contains(.writeWithoutResponse)
        guard permitted else { throw .notPermitted("\(characteristic.uuid) does not accept \(kind)") }
        logger.trace("write", metadata: ["uuid": "\(characteristic.uuid)", "bytes": "\(bytes.count)", "kind": "\(kind)"])
        do {
            try await deadline.run {
                try await backend.write(bytes, to: characteristic, kind: kind, timeout: try deadline.remaining("write to \(characteristic.uuid)"))
            }
        } catch {
            logger.debug("write failed", metadata: ["uuid": "\(characteristic.uuid)", "error": "\(error)"])
            throw error
        }
    }

    private func subscribe<Value: ByteDecodable & Sendable>(
        _ characteristic: DiscoveredCharacteristic, as: Value.Type, buffering: UpdateBuffering,
        onDecodingFailure: DecodingFailurePolicy, deadline: CallDeadline
    ) async throws(BluetoothError) -> Subscription<Value> {
        guard characteristic.properties.contains(.notify) || characteristic.properties.contains(.indicate) else {
            throw .notPermitted("\(characteristic.uuid) neither notifies nor indicates")
        }
        // Indications are confirmed by the stack before the loop takes them: by default none is
        // dropped (``UpdateBuffering/lossless``).
        let indicates = !characteristic.properties.contains(.notify) && characteristic.properties.contains(.indicate)
        let policy = buffering == .default && indicates ? .lossless : buffering
        // Open the stream before enabling, so nothing sent right after the CCCD write is lost.
        let updates = await backend.valueUpdates(for: characteristic, buffering: policy)
        let hold: SharedLink.NotificationHold
        do { hold = try await link.acquire(characteristic, deadline: deadline) } catch {
            updates.finish()
            throw error
        }
        // Register the stream with this handle, so disconnect() ends it; a handle that went away
        // meanwhile gives the hold straight back.
        let ender = updates.ender
        let streamID: UInt64? = ownership.withLock { state in
            guard state.released == nil else { return nil }
            state.nextStream += 1
            state.streams[state.nextStream] = ender
            return state.nextStream
        }
        guard let streamID else {
            link.releaseLater(hold)
            updates.finish()
            throw .disconnected(ownership.withLock { $0.released } ?? .localRequest)
        }
        // A subscription to a characteristic the restoration left on takes over its hold: when
        // its loop ends, notifications are turned off like any other subscription's.
        if let restored = ownership.withLock({ $0.restoredHolds.removeValue(forKey: characteristic.id) }) {
            link.releaseLater(restored)
        }
        let (link, ownership) = (self.link, self.ownership)
        updates.onEnd {
            ownership.withLock { _ = $0.streams.removeValue(forKey: streamID) }
            // A stream the peripheral's Service Changed ended names attributes that are gone:
            // its CCCD must not be written (its handle may belong to something else now).
            if case .serviceChanged = ender.endError {
                link.releaseLater(hold, attributeIsStale: true)
            } else {
                link.releaseLater(hold)
            }
        }
        return Subscription<Value>(
            updates: updates, failures: FailureCounter(DecodingFailures()), policy: onDecodingFailure, ended: EndFlag(false), owner: self,
            settleServiceChange: { await link.settleChange(forgetting: hold) })
    }

    /// Marks this handle released: ends its streams, gives back its request holds and its owner
    /// count. Returns nil when it was released already, else whether it was the link's last owner.
    private static func endOwnership(
        _ ownership: Locked<Ownership>, _ releasedSignal: Latch<DisconnectReason>, link: SharedLink, reason: DisconnectReason
    ) -> Bool? {
        let taken: (streams: [ValueUpdates.Ender], holds: [SharedLink.NotificationHold])? = ownership.withLock { state in
            guard state.released == nil else { return nil }
            state.released = reason
            defer {
                state.streams.removeAll()
                state.requestHolds.removeAll()
                state.restoredHolds.removeAll()
            }
            return (Array(state.streams.values), Array(state.requestHolds.values) + Array(state.restoredHolds.values))
        }
        guard let taken else { return nil }
        releasedSignal.set(reason)
        let lastOwner = link.removeOwner()
        // With other owners left, the link stays and the holds go back one by one; the last
        // owner closes the link, which makes the clean-ups skip their CCCD writes.
        for ender in taken.streams { ender.finish(throwing: .disconnected(reason)) }
        for hold in taken.holds { link.releaseLater(hold) }
        return lastOwner
    }
}
