import HaraldCore

/// One connection attempt to a peripheral, shared by every caller connecting to it meanwhile.
///
/// The attempt runs as a task of its own, pending (no timeout) at the backend; each caller
/// waits with its own deadline and cancellation. When the last caller stops waiting, the
/// attempt is cancelled, which cancels it at the backend. A link that comes up after everyone
/// left is closed.
final class ConnectAttempt: Sendable {
    private struct State {
        var result: Result<SharedLink, BluetoothError>?
        var waiters: [UInt64: CheckedContinuation<Result<SharedLink, BluetoothError>, Never>] = [:]
        var nextID: UInt64 = 0
        /// Callers that joined and have not left; the attempt is cancelled when it drops to 0.
        var joined = 0
        var task: Task<Void, Never>?
    }

    private let state = Locked(State())

    /// Starts the attempt: `connect` runs on `starter`; `adopt` turns its connection into the
    /// shared link (registering it) and is called before any waiter is resumed.
    init(
        starter: TaskStarter, connect: @escaping @Sendable () async throws(BluetoothError) -> any ConnectionBackend,
        adopt: @escaping @Sendable (any ConnectionBackend) -> SharedLink, failed: @escaping @Sendable () -> Void
    ) {
        let task = starter.start { [state] in
            let result: Result<SharedLink, BluetoothError>
            do {
                result = .success(adopt(try await connect()))
            } catch {
                failed()
                result = .failure(BluetoothError(error))
            }
            ConnectAttempt.resolve(state, with: result)
        }
        state.withLock { $0.task = task }
    }

    /// Hands the result to every waiter, giving each one ownership of the link first. A link
    /// nobody waits for any more is closed.
    private static func resolve(_ state: Locked<State>, with result: Result<SharedLink, BluetoothError>) {
        let (waiters, abandoned) = state.withLock { state in
            state.result = result
            defer { state.waiters.removeAll() }
            // Callers that joined but are not waiting yet take the result when they wait.
            return (Array(state.waiters.values), state.joined <= 0)
        }
        guard case .success(let link) = result else {
            for waiter in waiters { waiter.resume(returning: result) }
            return
        }
        if abandoned { link.closeLater() }
        for waiter in waiters {
            waiter.resume(returning: link.addOwner() ? result : .failure(.disconnected(.localRequest)))
        }
    }

    /// Marks one more caller as waiting for the attempt (before ``wait()``).
    func join() { state.withLock { $0.joined += 1 } }

    /// Waits for the attempt. On success the caller owns the link (one owner count). A
    /// cancelled caller leaves with ``BluetoothError/cancelled``; the last one to leave cancels
    /// the attempt.
    func wait() async -> Result<SharedLink, BluetoothError> {
        let id: UInt64 = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<SharedLink, BluetoothError>, Never>) in
                let ready: Result<SharedLink, BluetoothError>? = state.withLock { state in
                    if let result = state.result {
                        if case .success(let link) = result, !link.addOwner() { return .failure(.disconnected(.localRequest)) }
                        return result
                    }
                    if Task.isCancelled { return .failure(.cancelled) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: .failure(.cancelled))
        }
        leave()
        return result
    }

    /// A caller that joined gives up before waiting (its deadline had already passed).
    func leaveWithoutWaiting() { leave() }

    /// One caller stopped waiting; the last one cancels an attempt still running.
    private func leave() {
        let (toCancel, toClose): (Task<Void, Never>?, SharedLink?) = state.withLock { state in
            state.joined -= 1
            guard state.joined <= 0 else { return (nil, nil) }
            switch state.result {
            case nil: return (state.task, nil)
            case .success(let link): return (nil, link)
            case .failure: return (nil, nil)
            }
        }
        toCancel?.cancel()
        // The last caller left after the link came up: if none of them took it, nobody owns it.
        if let toClose, toClose.ownerCount <= 0 { toClose.closeLater() }
    }
}
