import HaraldCore

/// The PDUs a peer sent on the SMP channel and not yet taken, with the Security Manager Timer on
/// every wait for the next one (Core spec Vol 3 Part H §3.4).
///
/// A pump task drains the bearer's stream as PDUs arrive, so none is lost between two waits;
/// only one wait runs at a time (a pairing procedure takes its PDUs in order). Both roles use it:
/// ``SMPInitiator`` and ``SMPResponder`` each own one for their attempt.
actor SMPInbox {
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

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Delivery, Never>
        let timer: Task<Void, Never>
    }

    /// What arrived and was not taken yet (bounded: see SMPPendingPDUs).
    private(set) var queued = SMPPendingPDUs()
    private var isClosed = false
    private var waiter: Waiter?
    private var nextWaiterID: UInt64 = 0
    private var pump: Task<Void, Never>?
    /// Starts the pump and the timers (in a simulation, on its executor).
    private let starter: TaskStarter

    /// The serial domain of the pairing that owns the inbox (see `SerialDomain`).
    nonisolated let serialDomain: any Actor
    nonisolated var unownedExecutor: UnownedSerialExecutor { serialDomain.unownedExecutor }

    init(starter: TaskStarter = .default, serialDomain: any Actor = SerialDomain()) {
        self.starter = starter
        self.serialDomain = serialDomain
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

    deinit { pump?.cancel() }

    /// Stops draining (the pairing attempt is over): later PDUs stay in the bearer's stream, and
    /// a wait in progress ends with `.closed`.
    func stop() {
        pump?.cancel()
        close()
    }

    /// The next PDU, `.closed` once the stream finished and everything queued was taken, or
    /// `.timedOut` when `timeout` passes on `clock` first.
    func next(within timeout: Duration, on clock: any Clock<Duration>) async -> Delivery {
        if let pdu = queued.takeFirst() { return .pdu(pdu) }
        if isClosed { return .closed }
        precondition(waiter == nil, "one wait at a time on the SMP channel")
        nextWaiterID += 1
        let id = nextWaiterID
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let timer = starter.start { [weak self] in
                    do { try await clock.sleep(for: timeout) } catch { return }
                    await self?.end(id, with: .timedOut)
                }
                waiter = Waiter(id: id, continuation: continuation, timer: timer)
                if Task.isCancelled { end(id, with: .cancelled) }
            }
        } onCancel: {
            self.starter.start { await self.end(id, with: .cancelled) }
        }
    }

    /// ``next(within:on:)`` as a pairing procedure takes it: the PDU, or the ``PairingError`` its
    /// end means (`linkLost` when the channel closed or the wait was cancelled, `timedOut`).
    func nextPDU(within timeout: Duration, on clock: any Clock<Duration>) async throws(PairingError) -> [UInt8] {
        switch await next(within: timeout, on: clock) {
        case .pdu(let bytes): return bytes
        case .closed: throw .linkLost("the SMP channel closed")
        case .cancelled: throw .linkLost("pairing was cancelled")
        case .timedOut: throw .timedOut
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

    /// Removes the waiter and stops its timer.
    private func takeWaiter() -> Waiter? {
        guard let current = waiter else { return nil }
        waiter = nil
        current.timer.cancel()
        return current
    }
}
