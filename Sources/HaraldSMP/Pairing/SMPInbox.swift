import HaraldCore

/// The PDUs a peer sent on the SMP channel and not yet taken, and the Security Manager Timer
/// (Core spec Vol 3 Part H §3.4) on every wait of the pairing that owns it.
///
/// A pump task drains the bearer's stream as PDUs arrive, so none is lost between two waits;
/// only one wait for a PDU runs at a time (a pairing procedure takes its PDUs in order). Both
/// roles use it: ``SMPInitiator`` and ``SMPResponder`` each own one for their attempt.
///
/// Every wait — for a PDU (``next(within:)``) or for anything else (``run(within:_:)``: the person,
/// encryption) — is a deadline on the inbox's one ``DeadlineSchedule``: a wait starts no timer task
/// of its own, and one sleeper serves the whole pairing (the timer restarts with each PDU, so
/// each new deadline is later than the one the sleeper wakes for).
actor SMPInbox: DeadlineOwner {
    /// What a wait ended with.
    enum Delivery: Sendable {
        /// The next PDU, as received.
        case pdu([UInt8])
        /// The bearer's stream finished: the link is gone.
        case closed
        /// Nothing arrived within the timeout.
        case timedOut
        /// The waiting task was cancelled.
        case cancelled
    }

    /// What a deadline of the inbox ends when it passes.
    enum DeadlineAction: Sendable {
        /// The wait for a PDU with this ID.
        case wait(UInt64)
        /// A bounded operation (``run(within:_:)``): ends its wait with nil.
        case operation(@Sendable () -> Void)
    }

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Delivery, Never>
        let deadline: DeadlineSchedule<DeadlineAction>.ID
    }

    /// What arrived and was not taken yet (bounded: see SMPPendingPDUs).
    private(set) var queued = SMPPendingPDUs()
    private var isClosed = false
    private var waiter: Waiter?
    private var nextWaiterID: UInt64 = 0
    private var pump: Task<Void, Never>?
    /// Starts the pump, the timer's sleeper and bounded operations (in a simulation, on its
    /// executor); counted, so a test can show a wait starts no task.
    nonisolated let starter: CountingTaskStarter
    /// The waits' deadlines, on the pairing's clock.
    package var deadlines: DeadlineSchedule<DeadlineAction>

    /// The serial domain of the pairing that owns the inbox (see `SerialDomain`).
    nonisolated let serialDomain: any Actor
    nonisolated var unownedExecutor: UnownedSerialExecutor { serialDomain.unownedExecutor }

    /// - Parameters:
    ///   - clock: the clock of the Security Manager Timer (a manual or virtual one in tests and
    ///     simulations).
    ///   - starter: where the pump, the timer's sleeper and bounded operations run.
    ///   - serialDomain: the pairing's serial domain.
    init(clock: any Clock<Duration> = ContinuousClock(), starter: TaskStarter = .default, serialDomain: any Actor = SerialDomain()) {
        self.starter = CountingTaskStarter(starter)
        self.serialDomain = serialDomain
        self.deadlines = DeadlineSchedule(anyClock: clock)
    }

    /// Starts draining `incoming`; does nothing when already started.
    func start(_ incoming: AsyncStream<[UInt8]>) {
        guard pump == nil else { return }
        pump = starter.start { [weak self] in
            for await pdu in incoming {
                guard let self else { return }
                await self.deliver(pdu)
            }
            await self?.close()
        }
    }

    deinit {
        pump?.cancel()
        deadlines.cancelSleeper()
    }

    /// Stops draining (the pairing attempt is over): later PDUs stay in the bearer's stream, and
    /// a wait in progress ends with `.closed`. A bounded operation still running keeps its
    /// deadline.
    func stop() {
        pump?.cancel()
        close()
    }

    /// The next PDU, `.closed` once the stream finished and everything queued was taken, or
    /// `.timedOut` when `timeout` passes first.
    func next(within timeout: Duration) async -> Delivery {
        if let pdu = queued.takeFirst() { return .pdu(pdu) }
        if isClosed { return .closed }
        precondition(waiter == nil, "one wait at a time on the SMP channel")
        nextWaiterID += 1
        let id = nextWaiterID
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let deadline = addDeadline(after: timeout, .wait(id))
                waiter = Waiter(id: id, continuation: continuation, deadline: deadline)
                if Task.isCancelled { end(id, with: .cancelled) }
            }
        } onCancel: {
            self.starter.start { await self.end(id, with: .cancelled) }
        }
    }

    /// ``next(within:)`` as a pairing procedure takes it: the PDU, or the ``PairingError`` its
    /// end means (`linkLost` when the channel closed or the wait was cancelled, `timedOut`).
    func nextPDU(within timeout: Duration) async throws(PairingError) -> [UInt8] {
        switch await next(within: timeout) {
        case .pdu(let bytes): return bytes
        case .closed: throw .linkLost("the SMP channel closed")
        case .cancelled: throw .linkLost("pairing was cancelled")
        case .timedOut: throw .timedOut
        }
    }

    private struct Gate<Value: Sendable> {
        var continuation: CheckedContinuation<Value?, any Error>?
        var early: Result<Value?, any Error>?
        var work: Task<Void, Never>?
        var isSettled = false
    }

    /// Runs `operation` (a wait that is not a PDU: the person, encryption) against `timeout`, the
    /// rest of the Security Manager Timer: whichever ends first wins. The operation runs as a task
    /// of its own and, when the timeout wins, is cancelled but not awaited, so an operation that
    /// ignores cancellation (a person who never answers) cannot hold the pairing past the
    /// deadline. Cancelling the caller ends the wait at once with `CancellationError`.
    ///
    /// - Returns: the operation's value, or nil when `timeout` passed first.
    func run<Value: Sendable>(within timeout: Duration, _ operation: @escaping @Sendable () async throws -> Value) async throws -> Value? {
        let gate = Locked(Gate<Value>())
        @Sendable func settle(_ result: Result<Value?, any Error>) {
            let (continuation, work): (CheckedContinuation<Value?, any Error>?, Task<Void, Never>?) = gate.withLock { gate in
                guard !gate.isSettled else { return (nil, nil) }
                gate.isSettled = true
                defer { gate.continuation = nil }
                if gate.continuation == nil { gate.early = result }
                return (gate.continuation, gate.work)
            }
            work?.cancel()
            continuation?.resume(with: result)
        }
        let deadline = addDeadline(after: timeout, .operation { settle(.success(nil)) })
        defer { cancelDeadline(deadline) }
        let work = starter.start {
            do { settle(.success(try await operation())) } catch { settle(.failure(error)) }
        }
        let settledAlready = gate.withLock { gate in
            if !gate.isSettled { gate.work = work }
            return gate.isSettled
        }
        if settledAlready { work.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value?, any Error>) in
                let early: Result<Value?, any Error>? = gate.withLock { gate in
                    if let early = gate.early { return early }
                    gate.continuation = continuation
                    return nil
                }
                if let early { continuation.resume(with: early) }
            }
        } onCancel: {
            settle(.failure(CancellationError()))
        }
    }

    package nonisolated func startDeadlineSleeper(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never>? {
        starter.start(work)
    }

    package func deadlinePassed(_ action: DeadlineAction) async {
        switch action {
        case .wait(let id): end(id, with: .timedOut)
        case .operation(let expire): expire()
        }
    }

    private func deliver(_ pdu: [UInt8]) {
        if let waiter = takeWaiter() {
            waiter.continuation.resume(returning: .pdu(pdu))
        } else {
            queued.append(pdu)
        }
    }

    private func close() {
        isClosed = true
        takeWaiter()?.continuation.resume(returning: .closed)
    }

    /// Ends wait `id` (if it is still the current one) without a PDU.
    private func end(_ id: UInt64, with delivery: Delivery) {
        guard waiter?.id == id else { return }
        takeWaiter()?.continuation.resume(returning: delivery)
    }

    /// Removes the waiter and its deadline.
    private func takeWaiter() -> Waiter? {
        guard let current = waiter else { return nil }
        waiter = nil
        cancelDeadline(current.deadline)
        return current
    }
}
