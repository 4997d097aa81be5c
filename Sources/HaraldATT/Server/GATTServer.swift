import HaraldCodec
import HaraldCore

/// Something a GATT server reports to its owner (a virtual peripheral, the public API).
public enum GATTServerEvent: Sendable, Hashable {
    /// A client connected through ``GATTServer/attach(_:security:)``.
    case connected(GATTConnectionID)
    /// A client's bearer closed.
    case disconnected(GATTConnectionID, ATTCloseReason)
    /// A client wrote the CCCD of the characteristic whose value is at `valueHandle`.
    case clientConfigurationChanged(GATTConnectionID, valueHandle: UInt16, ClientCharacteristicConfiguration)
    /// A client wrote a value (Write Request, Write Command or Execute Write), after it was stored.
    case valueWritten(GATTConnectionID, handle: UInt16)
    /// A client read a characteristic value (Read, Read Multiple, Read By Type; the Read Blobs
    /// of a long read are not reported again), after the access checks passed.
    case valueRead(GATTConnectionID, handle: UInt16)
}

/// The GATT server: an attribute database served to any number of client connections, each
/// over its own ``ATTBearer``.
///
/// Every request is answered as Core spec Vol 3 Part F §3.4 says: malformed requests with
/// Invalid PDU, unknown requests with Request Not Supported, bad ranges with Invalid Handle,
/// empty results with Attribute Not Found, permission failures with Read/Write Not Permitted,
/// Insufficient Authentication/Encryption/Encryption Key Size for the connection's
/// ``GATTSecurity`` (by bond state and key size, ``GATTSecurityRequirement/refusal(for:)``), then
/// Insufficient Authorization. A CCCD write needs the value's read security, notifications and
/// indications go only to links that meet it, and Find By Type Value matches only values the
/// link could read. Unknown commands and Signed Write Commands (signatures are not verified)
/// are ignored. Read and write handlers may be async and may throw application errors
/// (0x80–0x9F), which go to the client unchanged. Requests of one connection are handled one at
/// a time, in order.
public actor GATTServer {
    /// The serial domain whose executor this server runs on (see `SerialDomain`).
    package nonisolated let serialDomain: any Actor
    /// The executor of the link's serial domain, where this actor runs.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { serialDomain.unownedExecutor }
    /// Engine settings.
    public struct Configuration: Sendable {
        /// Receive MTU offered in Exchange MTU responses; nil offers the bearer's `localMTU`.
        public var preferredMTU: Int?
        /// Prepare Write Requests one connection may queue before Prepare Queue Full.
        public var maximumPreparedWrites: Int = 64
        /// Timeout of ``GATTServer/indicate(handle:value:connection:timeout:)`` when none is given.
        public var defaultTimeout: Duration = .seconds(30)
        /// How long an indication may go unconfirmed before the bearer is closed.
        public var transactionTimeout: Duration = ATT.transactionTimeout
        /// Whether Read Multiple Variable (0x20, ATT of Core 5.2 and later) is served; when
        /// false the server answers it with Request Not Supported, as an older server does.
        public var supportsReadMultipleVariable = true
        /// Whether the server adds the Generic Attribute service (0x1801) with its Service
        /// Changed characteristic (`GATTGenericAttributeService.definition`) after the last
        /// attribute when the database has no Generic Attribute service: without it a server
        /// cannot tell its clients about changes of its services.
        /// Adding it last leaves every other handle where the definitions put it.
        public var addsGenericAttributeService = true
        /// AES-CMAC for the Database Hash characteristic (0x2B2A). When set, the Generic
        /// Attribute service the server adds carries Database Hash next to Service Changed, and
        /// the server keeps its value current as services change (a database that brings its own
        /// Generic Attribute service with a Database Hash gets it filled in too). Nil: no hash.
        public var databaseHash: GATTDatabaseHashFunction?

        /// Settings; each default is described on its property.
        public init(
            preferredMTU: Int? = nil, maximumPreparedWrites: Int = 64, defaultTimeout: Duration = .seconds(30),
            transactionTimeout: Duration = ATT.transactionTimeout, supportsReadMultipleVariable: Bool = true,
            addsGenericAttributeService: Bool = true, databaseHash: GATTDatabaseHashFunction? = nil
        ) {
            self.databaseHash = databaseHash
            self.preferredMTU = preferredMTU
            self.maximumPreparedWrites = maximumPreparedWrites
            self.defaultTimeout = defaultTimeout
            self.transactionTimeout = transactionTimeout
            self.supportsReadMultipleVariable = supportsReadMultipleVariable
            self.addsGenericAttributeService = addsGenericAttributeService
        }
    }

    /// The attributes served; stored values change as clients write, and services come and go
    /// with `changeServices(removing:adding:indicationTimeout:)`.
    public internal(set) var database: GATTDatabase
    let configuration: Configuration
    /// The clock indication timeouts are measured on; each connection keeps its deadlines on it.
    let clock: any Clock<Duration>
    let authorize: GATTAuthorizationHandler?
    /// Starts the engine's tasks for every connection, or nil to use each connection's bearer's
    /// (``ATTBearer/taskStarter``).
    public nonisolated let taskStarter: TaskStarter?
    /// Protocol cost over all connections.
    public var counters: ATTCounters { notificationTable.adding(to: baseCounters) }
    /// The counters kept on the actor (everything but the notifications ``notify(handle:value:to:)`` sent).
    var baseCounters = ATTCounters()
    /// Bearers, MTUs and enabled CCCDs for ``notify(handle:value:to:)``, outside the actor.
    let notificationTable = GATTNotificationTable()
    /// Server events, newest 1024 kept when nobody reads them.
    public nonisolated let events: AsyncStream<GATTServerEvent>
    private let eventSink: AsyncStream<GATTServerEvent>.Continuation
    /// Value handle → CCCD handle, for the database as it is now.
    var cccdHandles: [UInt16: UInt16] = [:]

    struct PendingIndication {
        let id: UInt64
        let bytes: [UInt8]
        /// The caller, while it waits for its turn (queued) or for the confirmation (sent).
        var caller: CheckedContinuation<IndicationStep, Never>?
        var deadline: DeadlineSchedule<IndicationDeadline>.ID?
        /// Whether the caller has handed the indication to the bearer.
        var sent = false
        /// Whether the caller's outcome was given.
        var resolved = false
    }

    /// What a waiting ``indicate(handle:value:connection:timeout:)`` caller is woken for.
    enum IndicationStep {
        /// Its indication is in flight now: send it.
        case send
        /// Its outcome.
        case finished(Result<Void, GATTError>)
    }

    /// What a deadline of a connection ends.
    enum IndicationDeadline: Sendable {
        /// Indication `id`'s own timeout (queued or in flight).
        case indication(UInt64)
        /// The 30 s ATT transaction timer of indication `id`, in flight.
        case transaction(UInt64)
    }

    struct Connection {
        let bearer: any ATTBearer
        /// Starts this connection's tasks (its reader, indication timers and sends).
        let taskStarter: TaskStarter
        var mtu = ATT.defaultMTU
        var security: GATTSecurity
        /// CCCD handle → configuration bits.
        var clientConfigurations: [UInt16: UInt16] = [:]
        var prepareQueue: [ATTPrepareWriteRequest] = []
        /// Value handle → the value a read handler produced for the long read this connection is
        /// in the middle of (a Read Request, or a Read Blob at offset 0, whose answer was cut):
        /// its Read Blobs are answered from it, so the central gets one version, not parts of
        /// several. At most one per attribute, at most 512 bytes each; dropped when the read
        /// ends, starts again, or the value is written or set.
        var longReads: [UInt16: [UInt8]] = [:]
        var counters = ATTCounters()
        var indicationQueue: [PendingIndication] = []
        var indicationInFlight: PendingIndication?
        var indicationTimer: DeadlineSchedule<IndicationDeadline>.ID?
        /// This connection's timers; its sleeper runs on ``taskStarter``.
        var deadlines: DeadlineSchedule<IndicationDeadline>
    }

    var connections: [GATTConnectionID: Connection] = [:]
    /// Outcomes of indications that came while their caller was not waiting (it was sending);
    /// it takes them as soon as it is back on the actor.
    private var unclaimedIndicationOutcomes: [UInt64: Result<Void, GATTError>] = [:]
    private var nextID: UInt64 = 1
    /// Indications without their outcome yet (queued, being sent or awaiting confirmation).
    /// Zero when idle.
    package private(set) var liveContinuations = 0

    /// A server for `database`.
    ///
    /// - Parameters:
    ///   - database: the attributes it serves, with their handles.
    ///   - clock: the clock indication timeouts are measured on.
    ///   - configuration: the engine's timeouts and limits.
    ///   - authorize: decides access to attributes with `readAuthorized`/`writeAuthorized`;
    ///     without it such access is refused (Insufficient Authorization).
    ///   - taskStarter: starts the engine's tasks; nil takes each connection's bearer's, so a
    ///     server attached to simulated bearers stays in their simulation.
    ///   - serialDomain: the actor whose executor the server runs on, shared with the engines of
    ///     the links it serves (the HCI host for a peripheral over HCI). Nil gives the server a
    ///     domain of its own.
    ///
    /// Unless the configuration says otherwise, a database without a Generic Attribute service
    /// gets one after its last attribute (``Configuration/addsGenericAttributeService``).
    public init(
        database: GATTDatabase, clock: any Clock<Duration> = ContinuousClock(), configuration: Configuration = Configuration(),
        authorize: GATTAuthorizationHandler? = nil, taskStarter: TaskStarter? = nil, serialDomain: (any Actor)? = nil
    ) {
        self.serialDomain = serialDomain ?? SerialDomain()
        var database = database
        if configuration.addsGenericAttributeService, !database.services.contains(where: { $0.uuid == GATTGenericAttributeService.uuid }) {
            // Only a database already holding 65535 handles has no room for it; it is served as given.
            _ = try? database.add(GATTGenericAttributeService.definition(withDatabaseHash: configuration.databaseHash != nil))
        }
        if let cmac = configuration.databaseHash { database.refreshDatabaseHash(using: cmac) }
        self.database = database
        self.configuration = configuration
        self.clock = clock
        self.authorize = authorize
        self.taskStarter = taskStarter
        (events, eventSink) = AsyncStream<GATTServerEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let layout = Self.cccdLayout(of: database)
        self.cccdHandles = layout
        notificationTable.setLayout(layout, valueHandles: Self.valueHandles(of: database), requirements: Self.readRequirements(of: database))
    }

    /// Value handle → what reading it needs, for every characteristic that needs some security.
    static func readRequirements(of database: GATTDatabase) -> [UInt16: GATTSecurityRequirement] {
        var requirements: [UInt16: GATTSecurityRequirement] = [:]
        for (_, characteristic) in database.characteristics {
            guard let requirement = database.attribute(characteristic.valueHandle)?.securityRequirement(isWrite: false), requirement.level > .none else {
                continue
            }
            requirements[characteristic.valueHandle] = requirement
        }
        return requirements
    }

    /// Characteristic UUID → value handle of the first characteristic with it, in handle order.
    static func valueHandles(of database: GATTDatabase) -> [BluetoothUUID: UInt16] {
        var handles: [BluetoothUUID: UInt16] = [:]
        for (_, characteristic) in database.characteristics where handles[characteristic.uuid] == nil {
            handles[characteristic.uuid] = characteristic.valueHandle
        }
        return handles
    }

    /// The value handle of the first characteristic with `uuid` (in handle order) in the
    /// database as it is now; readable without entering the actor, for code that notifies by
    /// UUID (a virtual peripheral's script).
    public nonisolated func valueHandle(of uuid: BluetoothUUID) -> UInt16? {
        notificationTable.valueHandle(of: uuid)
    }

    /// Value handle → CCCD handle for every characteristic of `database` that has a CCCD.
    static func cccdLayout(of database: GATTDatabase) -> [UInt16: UInt16] {
        var layout: [UInt16: UInt16] = [:]
        for attribute in database.attributes {
            if case .clientConfiguration(let valueHandle, _) = attribute.role { layout[valueHandle] = attribute.handle }
        }
        return layout
    }

    /// A server for the services described, laid out with ``GATTDatabase/init(services:)``.
    package init(
        services: [GATTServiceDefinition], clock: any Clock<Duration> = ContinuousClock(), configuration: Configuration = Configuration(),
        authorize: GATTAuthorizationHandler? = nil, taskStarter: TaskStarter? = nil, serialDomain: (any Actor)? = nil
    ) throws(GATTDatabaseError) {
        self.init(
            database: try GATTDatabase(services: services), clock: clock, configuration: configuration, authorize: authorize,
            taskStarter: taskStarter, serialDomain: serialDomain)
    }

    // A released server leaves no deadline sleeper behind on any connection's clock.
    deinit {
        for connection in connections.values { connection.deadlines.cancelSleeper() }
    }

    // MARK: Connections

    /// Serves a client over `bearer` until it closes.
    @discardableResult
    public func attach(_ bearer: any ATTBearer, security: GATTSecurity = .none) -> GATTConnectionID {
        let id = GATTConnectionID(rawValue: nextID)
        nextID += 1
        let starter = taskStarter ?? bearer.taskStarter
        connections[id] = Connection(bearer: bearer, taskStarter: starter, security: security, deadlines: DeadlineSchedule(anyClock: clock))
        notificationTable.add(id, bearer: bearer, security: security)
        eventSink.yield(.connected(id))
        let events = bearer.events
        starter.start { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.handle(event, from: id)
            }
        }
        return id
    }

    /// Connections currently served.
    public var connectionIDs: [GATTConnectionID] { connections.keys.sorted { $0.rawValue < $1.rawValue } }

    /// Sets a connection's security (after pairing, when encryption changed, or when the peer
    /// turned out to have a bond).
    public func setSecurity(_ security: GATTSecurity, for connection: GATTConnectionID) {
        guard connections[connection] != nil else { return }
        connections[connection]?.security = security
        notificationTable.setSecurity(security, for: connection)
    }

    /// A connection's security as the server sees it.
    public func security(for connection: GATTConnectionID) -> GATTSecurity? { connections[connection]?.security }

    /// How many notifications and indications of the characteristic whose value is at
    /// `valueHandle` were not sent because the link of a subscribed client did not meet the
    /// value's read security (its encryption was lost, or the subscription was left from an
    /// earlier, better secured link), and notifications of it not sent to a subscribed client
    /// because the value was longer than its link's ATT_MTU − 3 (values are never cut).
    /// Readable without entering the actor.
    public nonisolated func withheldNotifications(valueHandle: UInt16) -> Int {
        notificationTable.withheldCount(valueHandle: valueHandle)
    }

    /// The connection's ATT_MTU, in bytes.
    public func mtu(for connection: GATTConnectionID) -> Int? { connections[connection]?.mtu }

    /// Counters of one connection.
    public func counters(for connection: GATTConnectionID) -> ATTCounters? {
        guard let counters = connections[connection]?.counters else { return nil }
        return notificationTable.adding(to: counters, connection: connection)
    }

    /// Prepare Write Requests queued on a connection.
    public func preparedWriteCount(for connection: GATTConnectionID) -> Int { connections[connection]?.prepareQueue.count ?? 0 }

    /// What a connection enabled in the CCCD of the characteristic whose value is at `valueHandle`.
    public func clientConfiguration(valueHandle: UInt16, connection: GATTConnectionID) -> ClientCharacteristicConfiguration {
        guard let cccd = cccdHandles[valueHandle], let bits = connections[connection]?.clientConfigurations[cccd] else { return [] }
        return ClientCharacteristicConfiguration(rawValue: bits)
    }

    /// The stored value at `handle`.
    public func value(handle: UInt16) -> [UInt8]? { database.attribute(handle)?.value }

    /// What a Read Request for `handle` from `connection` would be answered with now: the whole
    /// value (before any cut to the ATT_MTU) or the ATT error. It goes through the same access
    /// checks and read handler as a request, but no PDU is exchanged and nothing is counted: for
    /// yardsticks that must not depend on what a client has read (the simulator's protocol-cost
    /// minimum, say).
    public func valueForRead(handle: UInt16, connection: GATTConnectionID) async -> Result<[UInt8], ATTErrorCode> {
        do { return .success(try await read(handle, connection: connection)) } catch { return .failure(error.code) }
    }

    /// Replaces the stored value at `handle` (no notification is sent). Values longer than 512
    /// bytes are cut. A long read in progress of the attribute continues with the new value.
    public func setValue(_ value: [UInt8], handle: UInt16) {
        guard let index = database.index(of: handle) else { return }
        database.attributes[index].value = Array(value.prefix(ATT.maximumValueLength))
        forgetLongReads(of: handle)
    }

    /// Closes one connection's bearer.
    public func disconnect(_ connection: GATTConnectionID) async {
        guard let bearer = connections[connection]?.bearer else { return }
        connectionClosed(connection, .closedLocally)
        await bearer.close(.closedLocally)
    }

    // MARK: Notifications and indications
    /// Sends a Handle Value Indication of `value` to `connection` and waits for its confirmation.
    /// Indications to one connection go one at a time, in call order. An indication carries at
    /// most ATT_MTU − 3 bytes of the value: a longer value is refused with
    /// ``GATTError/invalidArgument(_:)``, never sent cut.
    ///
    /// Throws ``GATTError/attribute(_:handle:request:)`` with CCCD Improperly Configured when the
    /// client has not enabled indications, with the code a read would get (Insufficient
    /// Authentication, Insufficient Encryption, Encryption Key Size Too Short) when the link does
    /// not meet the value's read security (counted in ``withheldNotifications(valueHandle:)``),
    /// ``GATTError/timeout`` when no confirmation came in
    /// time (an indication unconfirmed for the transaction timeout closes the bearer),
    /// ``GATTError/disconnected`` and ``GATTError/cancelled``.
    public func indicate(handle: UInt16, value: [UInt8], connection: GATTConnectionID, timeout: Duration? = nil) async throws(GATTError) {
        guard let state = connections[connection] else { throw .disconnected }
        guard let cccd = cccdHandles[handle] else { throw .invalidArgument("handle \(handle) has no CCCD") }
        guard (state.clientConfigurations[cccd] ?? 0) & ClientCharacteristicConfiguration.indications.rawValue != 0 else {
            throw .attribute(.cccdImproperlyConfigured, handle: cccd, request: .handleValueIndication)
        }
        if let refusal = notificationTable.requirement(valueHandle: handle).refusal(for: state.security) {
            notificationTable.countWithheld(valueHandle: handle)
            throw .attribute(refusal, handle: handle, request: .handleValueIndication)
        }
        guard value.count <= state.mtu - 3 else {
            throw .invalidArgument("an indication carries at most ATT_MTU − 3 = \(state.mtu - 3) bytes on this link, this value has \(value.count)")
        }
        if Task.isCancelled { throw .cancelled }
        let bytes: [UInt8]
        do { bytes = try ATTHandleValueIndication(handle: handle, value: value).pduBytes() } catch {
            throw .invalidArgument(error.description)
        }
        let id = nextID
        nextID += 1
        let deadline = state.deadlines.now() + (timeout ?? configuration.defaultTimeout)
        let starter = state.taskStarter
        liveContinuations += 1
        let timer = addDeadline(at: deadline, .indication(id), on: connection)
        connections[connection]?.indicationQueue.append(PendingIndication(id: id, bytes: bytes, deadline: timer))
        pumpIndications(connection)
        // Sent by this task when its turn comes; no indication starts a task of its own.
        let result = await withTaskCancellationHandler {
            while true {
                if let outcome = unclaimedIndicationOutcomes.removeValue(forKey: id) {
                    // Ended before it was sent: its turn passes to the next indication.
                    if let pending = connections[connection]?.indicationInFlight, pending.id == id, !pending.sent {
                        connections[connection]?.indicationInFlight = nil
                        pumpIndications(connection)
                    }
                    return outcome
                }
                if let state = connections[connection], let pending = state.indicationInFlight, pending.id == id, !pending.sent {
                    connections[connection]?.indicationInFlight?.sent = true
                    connections[connection]?.counters.countSent(bytes)
                    baseCounters.countSent(bytes)
                    let transactionTimer = addDeadline(after: configuration.transactionTimeout, .transaction(id), on: connection)
                    connections[connection]?.indicationTimer = transactionTimer
                    do { try await state.bearer.send(bytes) } catch { connectionClosed(connection, .linkLost(code: nil)) }
                    continue
                }
                switch await waitForIndicationStep(id, connection: connection) {
                case .finished(let result): return result
                case .send: continue
                }
            }
        } onCancel: {
            starter.start { [weak self] in await self?.resolveIndication(id, connection: connection, with: .failure(.cancelled)) }
        }
        try result.get()
    }

    /// Parks indication `id`'s caller until its turn to send or its outcome.
    private func waitForIndicationStep(_ id: UInt64, connection: GATTConnectionID) async -> IndicationStep {
        await withCheckedContinuation { (continuation: CheckedContinuation<IndicationStep, Never>) in
            if connections[connection]?.indicationInFlight?.id == id {
                connections[connection]?.indicationInFlight?.caller = continuation
            } else if let index = connections[connection]?.indicationQueue.firstIndex(where: { $0.id == id }) {
                connections[connection]?.indicationQueue[index].caller = continuation
            } else {
                // Resolved and gone: finish() left the outcome unclaimed.
                let outcome = unclaimedIndicationOutcomes.removeValue(forKey: id) ?? .failure(.disconnected)
                continuation.resume(returning: .finished(outcome))
                return
            }
            // Cancellation that raced the registration: the handler's task may have run already.
            if Task.isCancelled { resolveIndication(id, connection: connection, with: .failure(.cancelled)) }
        }
    }

    private func resolveIndication(_ id: UInt64, connection: GATTConnectionID, with result: Result<Void, GATTError>) {
        guard var state = connections[connection] else { return }
        if state.indicationInFlight?.id == id {
            state.deadlines.cancel(state.indicationInFlight?.deadline)
            finish(&state.indicationInFlight!, with: result)
        } else if let index = state.indicationQueue.firstIndex(where: { $0.id == id }) {
            var pending = state.indicationQueue.remove(at: index)
            state.deadlines.cancel(pending.deadline)
            finish(&pending, with: result)
        }
        connections[connection] = state
    }

    /// Resumes the indication's caller; its deadline is the caller's to cancel (or gone with its
    /// connection).
    private func finish(_ pending: inout PendingIndication, with result: Result<Void, GATTError>) {
        pending.deadline = nil
        guard !pending.resolved else { return }
        pending.resolved = true
        liveContinuations -= 1
        if let caller = pending.caller {
            pending.caller = nil
            caller.resume(returning: .finished(result))
        } else {
            unclaimedIndicationOutcomes[pending.id] = result
        }
    }

    /// Hands the turn to the next queued indication of `connection` if none is in flight: its
    /// caller sends it.
    private func pumpIndications(_ connection: GATTConnectionID) {
        guard var state = connections[connection], state.indicationInFlight == nil, !state.indicationQueue.isEmpty else { return }
        var pending = state.indicationQueue.removeFirst()
        let caller = pending.caller
        pending.caller = nil
        state.indicationInFlight = pending
        connections[connection] = state
        caller?.resume(returning: .send)
    }

    private func indicationTimedOut(_ id: UInt64, connection: GATTConnectionID) async {
        guard let state = connections[connection], state.indicationInFlight?.id == id else { return }
        resolveIndication(id, connection: connection, with: .failure(.timeout))
        connectionClosed(connection, .transactionTimeout)
        await state.bearer.close(.transactionTimeout)
    }

    // MARK: Deadlines

    /// Adds a deadline on a connection's schedule and makes sure its sleeper wakes for it; nil
    /// when the connection is gone.
    private func addDeadline(at deadline: Duration, _ action: IndicationDeadline, on connection: GATTConnectionID) -> DeadlineSchedule<IndicationDeadline>.ID? {
        let id = connections[connection]?.deadlines.add(at: deadline, action)
        armDeadlines(of: connection)
        return id
    }

    private func addDeadline(after delay: Duration, _ action: IndicationDeadline, on connection: GATTConnectionID) -> DeadlineSchedule<IndicationDeadline>.ID? {
        guard let now = connections[connection]?.deadlines.now() else { return nil }
        return addDeadline(at: now + delay, action, on: connection)
    }

    private func armDeadlines(of connection: GATTConnectionID) {
        guard let starter = connections[connection]?.taskStarter, connections[connection]?.deadlines.needsSleeper() == true else { return }
        connections[connection]?.deadlines.arm(startedBy: { starter.start($0) }) { [weak self] generation in
            await self?.deadlinesPassed(on: connection, generation: generation)
        }
    }

    private func deadlinesPassed(on connection: GATTConnectionID, generation: UInt64) async {
        connections[connection]?.deadlines.sleeperWoke(generation)
        while let action = connections[connection]?.deadlines.popDue() {
            switch action {
            case .indication(let id): resolveIndication(id, connection: connection, with: .failure(.timeout))
            case .transaction(let id): await indicationTimedOut(id, connection: connection)
            }
        }
        armDeadlines(of: connection)
    }

    func confirmationReceived(_ connection: GATTConnectionID) {
        guard var state = connections[connection], var pending = state.indicationInFlight, pending.sent else {
            baseCounters.ignoredPDUs += 1
            return
        }
        state.indicationInFlight = nil
        state.deadlines.cancel(state.indicationTimer)
        state.deadlines.cancel(pending.deadline)
        state.indicationTimer = nil
        state.counters.countRoundTrip(.handleValueIndication)
        baseCounters.countRoundTrip(.handleValueIndication)
        connections[connection] = state
        finish(&pending, with: .success(()))
        pumpIndications(connection)
    }

    // MARK: Bearer events

    private func handle(_ event: ATTBearerEvent, from connection: GATTConnectionID) async {
        switch event {
        case .closed(let reason): connectionClosed(connection, reason)
        case .received(let bytes): await received(bytes, from: connection)
        case .mtuChanged(let value):
            connections[connection]?.mtu = max(ATT.defaultMTU, value)
            if let mtu = connections[connection]?.mtu { notificationTable.setMTU(mtu, for: connection) }
        }
    }

    /// Forgets the connection and fails its pending indications. Idempotent.
    func connectionClosed(_ connection: GATTConnectionID, _ reason: ATTCloseReason) {
        guard var state = connections.removeValue(forKey: connection) else { return }
        notificationTable.remove(connection)
        _ = state.deadlines.removeAll()
        if var pending = state.indicationInFlight { finish(&pending, with: .failure(.disconnected)) }
        for var pending in state.indicationQueue { finish(&pending, with: .failure(.disconnected)) }
        eventSink.yield(.disconnected(connection, reason))
    }

    /// Sends a PDU on a connection, counting it; false when the connection is gone.
    @discardableResult
    func send(_ pdu: some ATTPDUCodable, to connection: GATTConnectionID) async -> Bool {
        guard let bearer = connections[connection]?.bearer else { return false }
        let bytes: [UInt8]
        do { bytes = try pdu.pduBytes() } catch {
            return false
        }
        connections[connection]?.counters.countSent(bytes)
        baseCounters.countSent(bytes)
        do {
            try await bearer.send(bytes)
            return true
        } catch {
            connectionClosed(connection, .linkLost(code: nil))
            return false
        }
    }

    func emit(_ event: GATTServerEvent) { eventSink.yield(event) }

    func countReceived(_ bytes: [UInt8], from connection: GATTConnectionID) {
        connections[connection]?.counters.countReceived(bytes)
        baseCounters.countReceived(bytes)
    }

    func countIgnored(from connection: GATTConnectionID) {
        connections[connection]?.counters.ignoredPDUs += 1
        baseCounters.ignoredPDUs += 1
    }

    func countRoundTrip(_ opcode: ATTOpcode, for connection: GATTConnectionID) {
        connections[connection]?.counters.countRoundTrip(opcode)
        baseCounters.countRoundTrip(opcode)
    }

    func storeValue(_ value: [UInt8], handle: UInt16) {
        guard let index = database.index(of: handle) else { return }
        database.attributes[index].value = value
        forgetLongReads(of: handle)
    }

    /// Drops every connection's long-read value of `handle` (its value changed).
    func forgetLongReads(of handle: UInt16) {
        for (id, state) in connections where state.longReads[handle] != nil { connections[id]?.longReads[handle] = nil }
    }
}
