import Foundation
import Harald
import HaraldCodec

extension CoreBluetoothBackend {
    enum Registration {
        /// Registered; make the call, if any, when its turn in the outbox comes.
        case proceed(OutgoingCall?)
        /// Already answered (say, connecting to a peripheral that is connected).
        case done(Reply)
        /// Cannot start.
        case fail(BluetoothError)
    }

    /// Runs one operation: registers it (under the lock) with `register`, which also queues the
    /// call to CoreBluetooth it needs, sends the outbox, and waits until a delegate call, the
    /// timeout, task cancellation or a disconnection resolves it — whichever removes it from
    /// `state.pending` first resumes its continuation, exactly once.
    func perform(
        _ operation: String, timeout: Duration?, cleanup: Cleanup, filter: [BluetoothUUID]? = nil,
        register: (inout State, UInt64) -> Registration
    ) async throws -> Reply {
        let id = state.withLock { $0.makeID() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Reply, any Error>) in
                let registration = state.withLock { state -> Registration in
                    let registration = register(&state, id)
                    if case .proceed(let call) = registration {
                        let deadline = timeout.map { timeout in
                            state.deadlines.add(
                                at: state.deadlines.now() + timeout, PendingTimeout(id: id, operation: operation, timeout: timeout))
                        }
                        state.pending[id] = Pending(continuation: continuation, deadline: deadline, cleanup: cleanup, filter: filter)
                        if let call { state.outbox.append(call) }
                        armTimeouts(in: &state)
                    }
                    return registration
                }
                switch registration {
                case .fail(let error):
                    continuation.resume(throwing: error)
                case .done(let reply):
                    continuation.resume(returning: reply)
                case .proceed:
                    // Cancelled before it was registered, so the cancellation handler found
                    // nothing to end: end it now (its queued call then finds it gone).
                    if Task.isCancelled { finish(id, throwing: CancellationError()) }
                    sendOutbox()
                }
            }
        } onCancel: {
            finish(id, throwing: CancellationError())
        }
    }

    /// Starts the task that sleeps until the earliest operation timeout, if the schedule needs
    /// one (lock held).
    func armTimeouts(in state: inout State) {
        state.deadlines.arm(startedBy: { Task(operation: $0) }) { [weak self] generation in self?.timeoutsPassed(generation) }
    }

    /// Ends every operation whose timeout has passed.
    private func timeoutsPassed(_ generation: UInt64) {
        let due = state.withLock { state -> [PendingTimeout] in
            let due = state.deadlines.takeDue(afterSleeperWoke: generation)
            armTimeouts(in: &state)
            return due
        }
        for timeout in due { finish(timeout.id, throwing: BluetoothError.timeout(operation: timeout.operation, after: timeout.timeout)) }
    }

    /// Cancels the timeouts of operations taken out of `state.pending` to be resumed.
    func endTimeouts(of pendings: [Pending]) {
        guard pendings.contains(where: { $0.deadline != nil }) else { return }
        state.withLock { state in
            for pending in pendings { state.deadlines.cancel(pending.deadline) }
        }
    }

    /// Ends operation `id` with `error` if it is still pending (timeout, cancellation), undoing
    /// what it set up.
    func finish(_ id: UInt64, throwing error: any Error) {
        let pending: Pending? = state.withLock { state in
            guard let pending = state.pending.removeValue(forKey: id) else { return nil }
            state.deadlines.cancel(pending.deadline)
            state.awaitingPower[id] = nil
            switch pending.cleanup {
            case let .request(uuid, key):
                if !pending.issued { state.links[uuid]?.requests[key]?.removeAll { $0 == id } }
            case let .connect(uuid):
                giveUpWaiting(id, on: uuid, in: &state)
            case let .queuedWrite(uuid):
                state.links[uuid]?.writeQueue.removeAll { $0.id == id }
            case let .channelOpen(uuid):
                channelOpenEnded(id, on: uuid, in: &state)
            case .nothing:
                break
            }
            return pending
        }
        guard let pending else { return }
        sendOutbox()
        pending.continuation.resume(throwing: error)
    }

    /// Connect `id` stops waiting for `uuid` (lock held). When it was the last waiter, the
    /// attempt ends: cancelled in CoreBluetooth if this app's `connect` call was made, left alone
    /// if the system is making the connection for the app (see ``connect(to:options:timeout:)``).
    private func giveUpWaiting(_ id: UInt64, on uuid: UUID, in state: inout State) {
        guard var link = state.links[uuid] else { return }
        link.connectWaiters.removeAll { $0 == id }
        if link.connectWaiters.isEmpty && link.phase == .connecting && !link.systemConnecting {
            link.phase = .idle
            if link.connectIssued {
                link.connectIssued = false
                state.outbox.append(unwantedCancelCall(uuid, link.peripheral))
            }
        }
        state.links[uuid] = link
    }

    /// Resumes operations answered by a delegate call (lock released).
    func deliver(_ answers: [(Pending, Result<Reply, any Error>)]) {
        endTimeouts(of: answers.map(\.0))
        for (pending, result) in answers {
            pending.continuation.resume(with: result)
        }
    }

    enum Answer {
        /// Nobody asked: for values, a notification.
        case unsolicited
        /// A request that timed out or was cancelled after it was sent: drop the answer.
        case tombstone
        case pending(Pending)
    }

    /// Takes the oldest request waiting on `key` of `uuid` (lock held).
    func takeRequest(_ key: RequestKey, of uuid: UUID, in state: inout State) -> Answer {
        guard var queue = state.links[uuid]?.requests[key], !queue.isEmpty else { return .unsolicited }
        let id = queue.removeFirst()
        state.links[uuid]?.requests[key] = queue.isEmpty ? nil : queue
        guard let pending = state.pending.removeValue(forKey: id) else { return .tombstone }
        return .pending(pending)
    }

    /// Registers and sends a GATT request on connection `generation` of `uuid`. `resolve` finds the
    /// CoreBluetooth object(s) the request needs (lock held); `issue` sends it, unless the request
    /// ended (timeout, cancellation, disconnection) before its turn in the outbox came.
    func request<Target>(
        _ operation: String, timeout: Duration, on uuid: UUID, generation: UInt64, key: RequestKey,
        filter: [BluetoothUUID]? = nil,
        resolve: (Link) throws(BluetoothError) -> Target,
        issue: @escaping (Peripheral, Target) -> Void
    ) async throws -> Reply {
        try await perform(operation, timeout: timeout, cleanup: .request(uuid, key), filter: filter) { state, id in
            guard let link = state.links[uuid] else { return .fail(.disconnected(.localRequest)) }
            guard link.phase == .connected, link.generation == generation else {
                return .fail(.disconnected(link.endReason(of: generation)))
            }
            let target: Target
            do throws(BluetoothError) { target = try resolve(link) } catch { return .fail(error) }
            state.links[uuid]?.requests[key, default: []].append(id)
            let peripheral = link.peripheral
            return .proceed(
                OutgoingCall(
                    isWanted: { state in
                        // Sent from here on: an answer that comes after the request ended meets its tombstone.
                        guard state.pending[id] != nil else { return false }
                        state.pending[id]?.issued = true
                        return true
                    }, make: { _ in issue(peripheral, target) }))
        }
    }
}
