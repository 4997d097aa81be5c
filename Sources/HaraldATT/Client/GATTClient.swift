import HaraldCodec
import HaraldCore

/// The GATT client of one connection: discovery, reads, writes and subscriptions over an
/// ``ATTBearer``.
///
/// Discipline (Core spec Vol 3 Part F §3.3):
/// - Exactly one request is in flight; later requests wait in FIFO order.
/// - A response must answer the outstanding request: any other response fails that operation
///   with a protocol error (``GATTError/unexpectedResponse(expected:received:)``) and ends the
///   transaction; a response with no request outstanding is ignored and counted
///   (``ATTCounters/ignoredPDUs``). A malformed response fails the operation with
///   ``GATTError/invalidResponse(_:)``.
/// - Every operation takes a timeout (default ``Configuration/defaultTimeout``) covering its
///   whole procedure, and honours task cancellation. A timed-out or cancelled operation returns
///   at once; if its request was sent, the transaction stays open until the response arrives.
/// - A request unanswered for ``Configuration/transactionTimeout`` (30 s) closes the bearer
///   (reason ``ATTCloseReason/transactionTimeout``): the operation and everything queued fail.
/// - When the bearer closes, every pending operation fails at once with
///   ``GATTError/disconnected``, subscriber streams finish, and later calls fail the same way.
/// - Notifications and indications are routed by handle to every subscriber stream of that
///   handle; indications are confirmed after delivery.
/// - The server's database may change (Core spec Vol 3 Part G §2.5.2): a Service Changed
///   indication, once ``watchServiceChanged(timeout:)`` turned it on, or an Error Response
///   Database Out Of Sync (0x12) to any request (then every handle counts as changed) ends the
///   subscriber streams and sinks in the changed range and tells ``observeDatabaseChanges(_:)``'s
///   observers, before the indication is confirmed or the request's error thrown.
/// - Requests from the peer are answered Request Not Supported, except Exchange MTU, which is
///   answered with this side's receive MTU and sets ``mtu``; commands and confirmations from
///   the peer are ignored. (One engine per bearer: a device acting as client and server on one
///   link needs a demultiplexer in front of the two engines.)
/// - ``writeWithoutResponse(handle:value:)`` returns once the bearer accepted the PDU; its
///   flow control (and any wait for it) is the bearer's.
public actor GATTClient: DeadlineOwner {
    /// Engine settings.
    public struct Configuration: Sendable {
        /// Timeout of an operation when the call gives none.
        public var defaultTimeout: Duration = .seconds(30)
        /// How long a sent request may go unanswered before the bearer is closed.
        public var transactionTimeout: Duration = ATT.transactionTimeout
        /// Receive MTU offered in Exchange MTU; nil offers the bearer's `localMTU`.
        public var preferredMTU: Int?

        /// Settings; the ATT transaction timeout is 30 s in the specification (Core spec Vol 3 Part F §3.3.3).
        public init(defaultTimeout: Duration = .seconds(30), transactionTimeout: Duration = ATT.transactionTimeout, preferredMTU: Int? = nil) {
            self.defaultTimeout = defaultTimeout
            self.transactionTimeout = transactionTimeout
            self.preferredMTU = preferredMTU
        }
    }

    let bearer: any ATTBearer
    /// The link's serial domain, whose executor this client runs on (see `SerialDomain`).
    package nonisolated let serialDomain: any Actor
    /// The executor of the link's serial domain, where this actor runs.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { serialDomain.unownedExecutor }
    /// What a deadline of this client ends.
    package enum DeadlineAction: Sendable {
        /// Operation `id`'s own timeout (queued or in flight).
        case operation(UInt64)
        /// The 30 s ATT transaction timer of the request in flight, operation `id`.
        case transaction(UInt64)
        /// A caller waiting for the MTU exchange in flight.
        case mtuWaiter(UInt64)
    }
    /// Every timer of this client: operation deadlines, the transaction timer, MTU waiters.
    package var deadlines: DeadlineSchedule<DeadlineAction>
    let configuration: Configuration
    /// Starts the engine's tasks: the bearer reader, deadline timers, cancellation clean-ups.
    public nonisolated let taskStarter: TaskStarter

    /// The ATT_MTU in use, in bytes: 23 until Exchange MTU completes.
    public private(set) var mtu = ATT.defaultMTU {
        didSet { router.setReceiveLimit(receiveLimit) }
    }
    /// The receive MTU this client offered in an Exchange MTU still in flight: until the exchange
    /// settles, the server may already use any ATT_MTU up to it.
    var offeredMTU: Int? {
        didSet { router.setReceiveLimit(receiveLimit) }
    }
    /// The longest PDU the server may send now; a longer one is a protocol violation.
    var receiveLimit: Int { max(mtu, offeredMTU ?? 0) }
    /// Why the bearer closed, once it has.
    public private(set) var closeReason: ATTCloseReason?
    /// Protocol cost so far.
    public var counters: ATTCounters { router.adding(to: baseCounters) }
    /// The counters kept on the actor (everything but the notifications the router took).
    private var baseCounters = ATTCounters()
    /// ``taskStarter``, counting.
    nonisolated let starter: CountingTaskStarter
    /// Subscribers and sinks; routes notifications without the actor (see ``GATTNotificationRouter``).
    let router = GATTNotificationRouter()

    /// Where this side's Exchange MTU stands (it is sent at most once per connection).
    enum MTUExchange { case notStarted, inFlight, finished }
    var mtuExchange = MTUExchange.notStarted
    /// Callers of ``exchangeMTU(timeout:)`` that arrived while the exchange was in flight.
    private var mtuWaiters: [UInt64: (continuation: CheckedContinuation<Result<Int, GATTError>, Never>, deadline: DeadlineSchedule<DeadlineAction>.ID)] = [:]
    var longWriteInProgress = false
    /// Set once the server answered Read Multiple Variable with Request Not Supported: later
    /// batched reads on this connection go straight to single reads.
    public internal(set) var readMultipleVariableRefused = false
    /// The server's Service Changed characteristic whose indications this client acts on
    /// (``watchServiceChanged(timeout:)``), nil until it is found and turned on.
    public internal(set) var watchedServiceChanged: GATTServiceChangedHandles?
    /// Told about every change of the server's database, in order, on the actor.
    private var databaseChangeObservers: [@Sendable (ATTHandleRange) -> Void] = []

    // Request queue. Each request is sent by its caller's own task when its turn comes; no
    // request starts a task of its own.
    private struct Operation {
        let id: UInt64
        let request: [UInt8]
        let opcode: ATTOpcode
        /// The caller, while it waits for its turn (queued) or for the outcome (sent).
        var caller: CheckedContinuation<Step, Never>?
        var deadline: DeadlineSchedule<DeadlineAction>.ID?
        /// Whether the caller has handed the request to the bearer.
        var sent = false
        /// Whether the outcome was given (the caller's answer, not the transaction's end).
        var resolved = false
    }
    /// What a waiting caller is woken for.
    private enum Step {
        /// Its request is in flight now: send it.
        case send
        /// Its outcome.
        case finished(Result<ATTPDU, GATTError>)
    }
    private var queue: [Operation] = []
    private var inFlight: Operation?
    /// Outcomes that came while their caller was not waiting (it was sending); it takes them
    /// as soon as it is back on the actor.
    private var unclaimedOutcomes: [UInt64: Result<ATTPDU, GATTError>] = [:]
    private var transactionDeadline: DeadlineSchedule<DeadlineAction>.ID?
    var nextID: UInt64 = 1
    /// Requests (and MTU-exchange waiters) without their outcome yet: queued, being sent or in
    /// flight. Zero when idle.
    package private(set) var liveContinuations = 0

    /// Starts a client on `bearer`; it begins consuming the bearer's events at once.
    ///
    /// - Parameters:
    ///   - bearer: the ATT channel to the server (an L2CAP fixed channel 0x0004, or a simulated link).
    ///   - clock: the clock every timeout is measured on (a manual clock in tests).
    ///   - configuration: the engine's timeouts and limits.
    ///   - taskStarter: starts the engine's tasks; nil takes the bearer's
    ///     (``ATTBearer/taskStarter``), so a client on a simulated bearer stays in its simulation.
    ///   - serialDomain: the actor whose executor the client runs on: its link's serial domain
    ///     (the HCI host for a link over HCI), shared with the link's other engines. Nil gives the
    ///     client a domain of its own.
    public init(
        bearer: any ATTBearer, clock: any Clock<Duration> = ContinuousClock(), configuration: Configuration = Configuration(),
        taskStarter: TaskStarter? = nil, serialDomain: (any Actor)? = nil
    ) {
        self.serialDomain = serialDomain ?? SerialDomain()
        self.bearer = bearer
        self.deadlines = DeadlineSchedule(anyClock: clock)
        self.configuration = configuration
        let taskStarter = taskStarter ?? bearer.taskStarter
        self.taskStarter = taskStarter
        self.starter = CountingTaskStarter(taskStarter)
        // The reader runs on the actor, so an inbound PDU costs one job (resuming it), not a hop
        // in and a hop back out per event. It keeps the client alive until the bearer closes.
        if let pushing = bearer as? any ATTInboxBearer {
            let inbox = ATTEventInbox(router: router)
            pushing.deliverEvents(to: inbox)
            // A bearer that yields on this client's executor (over HCI: the host's, which is the
            // link's serial domain) hands responses straight to the waiting caller. Set after
            // the bearer handed over what it had kept, which the reader takes first.
            if let domain = pushing.deliveryDomain, domain === self.serialDomain {
                inbox.handleDirectly { [weak self] event in
                    guard let self else { return false }
                    return self.assumeIsolated { client in client.receiveDirectly(event) }
                }
            }
            starter.start { [weak self] in await self?.consume(inbox) }
        } else {
            let events = bearer.events
            starter.start { [weak self] in await self?.consume(events) }
        }
    }

    private func consume(_ events: AsyncStream<ATTBearerEvent>) async {
        for await event in events { await handle(event) }
    }

    private func consume(_ inbox: ATTEventInbox) async {
        while let event = await inbox.next() {
            await handle(event)
            inbox.handled()
        }
    }

    /// The synchronous receive entry (see `ATTEventInbox.handleDirectly(with:)`): takes a
    /// response, whose handling never waits; leaves everything else to the reader.
    private func receiveDirectly(_ event: ATTBearerEvent) -> Bool {
        guard case .received(let bytes) = event else { return false }
        return receiveResponse(bytes)
    }

    /// True until the bearer closes.
    public var isConnected: Bool { closeReason == nil }

    /// Closes the bearer; pending operations fail with ``GATTError/disconnected``.
    public func disconnect() async {
        guard closeReason == nil else { return }
        bearerClosed(.closedLocally)
        await bearer.close(.closedLocally)
    }

    // MARK: Requests

    /// The deadline, as clock time since start, for a procedure given its timeout.
    func deadline(_ timeout: Duration?) -> Duration {
        deadlines.now() + (timeout ?? configuration.defaultTimeout)
    }

    /// Sends `request` when its turn comes and returns the matching response; an Error Response
    /// throws ``GATTError/attribute(_:handle:request:)``.
    func transact<Response: ATTPDUCodable>(
        _ request: some ATTPDUCodable, expecting: Response.Type, deadline: Duration
    ) async throws(GATTError) -> Response {
        let bytes: [UInt8]
        do { bytes = try request.pduBytes() } catch { throw .invalidArgument(error.description) }
        guard bytes.count <= mtu else { throw .invalidArgument("\(type(of: request).opcode.name) of \(bytes.count) bytes exceeds ATT_MTU \(mtu)") }
        let pdu = try await enqueue(bytes, opcode: type(of: request).opcode, deadline: deadline).get()
        if let error = pdu.as(ATTErrorResponse.self) {
            // The server no longer trusts this client's view of its handles (robust caching,
            // Core spec Vol 3 Part G §2.5.2.1) and says not what changed: all of it may have.
            if error.error == .databaseOutOfSync { databaseChanged(.all) }
            throw .attribute(error.error, handle: error.handle, request: error.requestOpcode)
        }
        guard let response = pdu.as(Response.self) else {
            // `handleResponse` already checked the opcode; this only guards against misuse.
            throw .unexpectedResponse(expected: Response.opcode, received: pdu.opcode)
        }
        return response
    }

    private func enqueue(_ bytes: [UInt8], opcode: ATTOpcode, deadline: Duration) async -> Result<ATTPDU, GATTError> {
        if closeReason != nil { return .failure(.disconnected) }
        if Task.isCancelled { return .failure(.cancelled) }
        let id = nextID
        nextID += 1
        liveContinuations += 1
        queue.append(Operation(id: id, request: bytes, opcode: opcode, deadline: addDeadline(at: deadline, .operation(id))))
        pump()
        return await withTaskCancellationHandler {
            while true {
                if let outcome = unclaimedOutcomes.removeValue(forKey: id) {
                    // Ended before it was sent (timed out or cancelled as its turn came): its
                    // turn passes to the next request.
                    if let operation = inFlight, operation.id == id, !operation.sent {
                        inFlight = nil
                        pump()
                    }
                    return outcome
                }
                if inFlight?.id == id, inFlight?.sent == false {
                    inFlight?.sent = true
                    baseCounters.countSent(bytes)
                    transactionDeadline = addDeadline(after: configuration.transactionTimeout, .transaction(id))
                    do { try await bearer.send(bytes) } catch { bearerClosed(.linkLost(code: nil)) }
                    continue
                }
                switch await waitForStep(id) {
                case .finished(let result): return result
                case .send: continue
                }
            }
        } onCancel: {
            starter.start { [weak self] in await self?.resolve(id, with: .failure(.cancelled)) }
        }
    }

    /// Parks operation `id`'s caller until its turn to send or its outcome.
    private func waitForStep(_ id: UInt64) async -> Step {
        await withCheckedContinuation { (continuation: CheckedContinuation<Step, Never>) in
            if inFlight?.id == id {
                inFlight?.caller = continuation
            } else if let index = queue.firstIndex(where: { $0.id == id }) {
                queue[index].caller = continuation
            } else {
                // Resolved and gone: finish() left the outcome unclaimed.
                continuation.resume(returning: .finished(unclaimedOutcomes.removeValue(forKey: id) ?? .failure(.disconnected)))
                return
            }
            // Cancellation that raced the registration: the handler's task may have run already.
            if Task.isCancelled { resolve(id, with: .failure(.cancelled)) }
        }
    }

    /// Gives operation `id` (queued or in flight) its outcome if it has none yet. A queued
    /// operation leaves the queue; an in-flight one keeps the transaction open until its response.
    private func resolve(_ id: UInt64, with result: Result<ATTPDU, GATTError>) {
        if inFlight?.id == id {
            finish(&inFlight!, with: result)
        } else if let index = queue.firstIndex(where: { $0.id == id }) {
            var operation = queue.remove(at: index)
            finish(&operation, with: result)
        }
    }

    private func finish(_ operation: inout Operation, with result: Result<ATTPDU, GATTError>) {
        cancelDeadline(operation.deadline)
        operation.deadline = nil
        guard !operation.resolved else { return }
        operation.resolved = true
        liveContinuations -= 1
        if let caller = operation.caller {
            operation.caller = nil
            caller.resume(returning: .finished(result))
        } else {
            unclaimedOutcomes[operation.id] = result
        }
    }

    /// Hands the turn to the next queued request if none is in flight: its caller sends it.
    private func pump() {
        guard inFlight == nil, closeReason == nil, !queue.isEmpty else { return }
        var operation = queue.removeFirst()
        let caller = operation.caller
        operation.caller = nil
        inFlight = operation
        caller?.resume(returning: .send)
    }

    package nonisolated func startDeadlineSleeper(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never>? {
        starter.start(work)
    }

    /// Tasks this client has started so far (its reader, deadline sleepers, clean-ups after a
    /// cancellation): for tests that show a request starts none.
    package nonisolated var tasksStarted: Int { starter.count }

    package func deadlinePassed(_ action: DeadlineAction) async {
        switch action {
        case .operation(let id): resolve(id, with: .failure(.timeout))
        case .transaction(let id): await transactionTimedOut(id)
        case .mtuWaiter(let id): resolveMTUWaiter(id, with: .failure(.timeout))
        }
    }

    private func transactionTimedOut(_ id: UInt64) async {
        guard inFlight?.id == id, closeReason == nil else { return }
        resolve(id, with: .failure(.timeout))
        bearerClosed(.transactionTimeout)
        await bearer.close(.transactionTimeout)
    }

    // MARK: Waiting for the MTU exchange

    /// Suspends until the MTU exchange in flight ends (``mtuExchangeEnded(_:)``), the deadline
    /// passes or the task is cancelled.
    func waitForMTUExchange(deadline: Duration) async throws(GATTError) -> Int {
        if closeReason != nil { throw .disconnected }
        if Task.isCancelled { throw .cancelled }
        let id = nextID
        nextID += 1
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Int, GATTError>, Never>) in
                liveContinuations += 1
                mtuWaiters[id] = (continuation, addDeadline(at: deadline, .mtuWaiter(id)))
                // Cancellation that raced the registration: the handler's task may have run already.
                if Task.isCancelled { resolveMTUWaiter(id, with: .failure(.cancelled)) }
            }
        } onCancel: {
            starter.start { [weak self] in await self?.resolveMTUWaiter(id, with: .failure(.cancelled)) }
        }
        return try result.get()
    }

    /// Answers every caller waiting for the MTU exchange with `result`.
    func mtuExchangeEnded(_ result: Result<Int, GATTError>) {
        for id in mtuWaiters.keys.sorted() { resolveMTUWaiter(id, with: result) }
    }

    private func resolveMTUWaiter(_ id: UInt64, with result: Result<Int, GATTError>) {
        guard let waiter = mtuWaiters.removeValue(forKey: id) else { return }
        cancelDeadline(waiter.deadline)
        liveContinuations -= 1
        waiter.continuation.resume(returning: result)
    }

    // MARK: Commands

    /// Sends a PDU that gets no response (Write Command, Confirmation).
    func sendCommand(_ pdu: some ATTPDUCodable) async throws(GATTError) {
        guard closeReason == nil else { throw .disconnected }
        let bytes: [UInt8]
        do { bytes = try pdu.pduBytes() } catch { throw .invalidArgument(error.description) }
        guard bytes.count <= mtu else { throw .invalidArgument("\(type(of: pdu).opcode.name) of \(bytes.count) bytes exceeds ATT_MTU \(mtu)") }
        baseCounters.countSent(bytes)
        do {
            try await bearer.send(bytes)
        } catch {
            bearerClosed(.linkLost(code: nil))
            throw .disconnected
        }
    }

    // MARK: Inbound

    private func handle(_ event: ATTBearerEvent) async {
        switch event {
        case .closed(let reason):
            bearerClosed(reason)
        case .received(let bytes):
            await received(bytes)
        case .mtuChanged(let value):
            mtu = max(ATT.defaultMTU, value)
        }
    }

    private func received(_ bytes: [UInt8]) async {
        if router.route(bytes) { return }
        if receiveResponse(bytes) { return }
        baseCounters.countReceived(bytes)
        guard let first = bytes.first else {
            baseCounters.ignoredPDUs += 1
            return
        }
        let opcode = ATTOpcode(first)
        guard bytes.count <= receiveLimit else {
            // No PDU may exceed the ATT_MTU (the router left this one to the actor for that).
            let violation = ATTProtocolViolation.oversized(opcode, length: bytes.count, mtu: receiveLimit)
            if opcode.kind == .response, inFlight != nil { completeTransaction(with: .failure(.protocolViolation(violation))) }
            await closeForViolation(violation)
            return
        }
        let pdu: ATTPDU
        do {
            pdu = try ATTPDU(decoding: bytes)
        } catch {
            baseCounters.ignoredPDUs += 1
            return
        }
        switch opcode.kind {
        case .response:
            break  // `receiveResponse` took it above.
        case .notification:
            break  // `router.route` took it above.
        case .indication:
            if let indication = pdu.as(ATTHandleValueIndication.self) {
                // Acted on before the confirmation: once the server has it, this client must
                // already have stopped trusting the changed handles.
                if let watched = watchedServiceChanged, indication.handle == watched.valueHandle {
                    databaseChanged(GATTGenericAttributeService.changedRange(indication.value))
                }
                router.deliver(GATTNotification(handle: indication.handle, value: indication.value, isIndication: true))
                try? await sendCommand(ATTHandleValueConfirmation())
            }
        case .request:
            if let exchange = pdu.as(ATTExchangeMTURequest.self) {
                // The peer may open the MTU exchange too (phones often do): answer it as a
                // server would and adopt the settled MTU.
                let offered = max(ATT.defaultMTU, min(Int(UInt16.max), configuration.preferredMTU ?? bearer.localMTU))
                let settled = max(ATT.defaultMTU, min(offered, Int(exchange.clientRxMTU)))
                mtu = settled
                try? await sendCommand(ATTExchangeMTUResponse(serverRxMTU: UInt16(offered)))
                await bearer.didNegotiateMTU(settled)
            } else {
                // This engine is a client only: any other request gets Request Not Supported.
                try? await sendCommand(ATTErrorResponse(requestOpcode: opcode, handle: 0, error: .requestNotSupported))
            }
        case .command, .confirmation, .unknown:
            baseCounters.ignoredPDUs += 1
        }
    }

    /// Handles `bytes` if it is a response no longer than the server may send now: it answers
    /// the request in flight, or fails it if malformed. False for every other PDU (and for an
    /// oversized response, whose violation closes the bearer, which needs waiting).
    private func receiveResponse(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first, ATTOpcode(first).kind == .response, bytes.count <= receiveLimit else { return false }
        baseCounters.countReceived(bytes)
        do {
            handleResponse(try ATTPDU(decoding: bytes))
        } catch {
            if inFlight != nil {
                completeTransaction(with: .failure(.invalidResponse(error.description)))
            } else {
                baseCounters.ignoredPDUs += 1
            }
        }
        return true
    }

    private func handleResponse(_ pdu: ATTPDU) {
        guard let operation = inFlight, operation.sent else {
            baseCounters.ignoredPDUs += 1
            return
        }
        let expected = operation.opcode.responseOpcode ?? operation.opcode
        if let error = pdu.as(ATTErrorResponse.self) {
            guard error.requestOpcode == operation.opcode else {
                completeTransaction(with: .failure(.unexpectedResponse(expected: expected, received: pdu.opcode)))
                return
            }
        } else if pdu.opcode != expected {
            completeTransaction(with: .failure(.unexpectedResponse(expected: expected, received: pdu.opcode)))
            return
        }
        completeTransaction(with: .success(pdu))
    }

    /// Ends the transaction in flight, answering its operation if it still waits, and starts the
    /// next request.
    private func completeTransaction(with result: Result<ATTPDU, GATTError>) {
        guard var operation = inFlight else { return }
        inFlight = nil
        cancelDeadline(transactionDeadline)
        transactionDeadline = nil
        baseCounters.countRoundTrip(operation.opcode)
        finish(&operation, with: result)
        pump()
    }

    // MARK: Protocol violations

    /// Closes the bearer because the peer broke the protocol: everything pending fails with
    /// ``GATTError/disconnected`` (the operation that found the violation throws it instead).
    func closeForViolation(_ violation: ATTProtocolViolation) async {
        guard closeReason == nil else { return }
        let reason = ATTCloseReason.protocolViolation(violation.description)
        bearerClosed(reason)
        await bearer.close(reason)
    }

    /// Runs a procedure; a protocol violation it finds closes the bearer before it is thrown.
    func closingOnViolation<Result>(_ procedure: () async throws(GATTError) -> Result) async throws(GATTError) -> Result {
        do {
            return try await procedure()
        } catch {
            if case .protocolViolation(let violation) = error { await closeForViolation(violation) }
            throw error
        }
    }

    /// Fails everything pending and finishes every subscriber stream. Idempotent.
    private func bearerClosed(_ reason: ATTCloseReason) {
        guard closeReason == nil else { return }
        closeReason = reason
        cancelDeadline(transactionDeadline)
        transactionDeadline = nil
        if var operation = inFlight {
            inFlight = nil
            finish(&operation, with: .failure(.disconnected))
        }
        let waiting = queue
        queue.removeAll()
        for var operation in waiting { finish(&operation, with: .failure(.disconnected)) }
        mtuExchangeEnded(.failure(.disconnected))
        // Nothing is left to time out; the sleeper stops now rather than at its time.
        _ = deadlines.removeAll()
        router.close(reason)
    }

    // MARK: Database changes

    /// Calls `observer` with the handles of every change of the server's database from now on
    /// (see the type's discipline), on the actor, after the streams and sinks in the range ended.
    /// The observer must not call back into the client.
    public func observeDatabaseChanges(_ observer: @escaping @Sendable (ATTHandleRange) -> Void) {
        databaseChangeObservers.append(observer)
    }

    /// Ends the streams and sinks whose handles lie in `range` and tells the observers.
    func databaseChanged(_ range: ATTHandleRange) {
        router.invalidate(range)
        for observer in databaseChangeObservers { observer(range) }
    }

    /// Records the negotiated MTU.
    func setMTU(_ value: Int) async {
        mtu = value
        await bearer.didNegotiateMTU(value)
    }
}
