import Harald
import HaraldCore

/// Remembers why a connection ended and wakes everyone waiting for it.
///
/// Set at most once; ``wait()`` returns at once afterwards. A waiter whose task is cancelled
/// stops waiting and gets `.other("cancelled")`, so no continuation is ever left behind.
final class DisconnectionSignal: Sendable {
    private struct State {
        var reason: DisconnectReason?
        var waiters: [UInt64: CheckedContinuation<DisconnectReason, Never>] = [:]
        var nextID: UInt64 = 0
    }

    /// Everything mutable, behind one lock; waiters are resumed after it is released, each
    /// exactly once (whoever removes one from the table resumes it).
    private let state = Locked(State())

    /// The reason, once set.
    var current: DisconnectReason? { state.withLock { $0.reason } }

    /// Records the reason (the first one wins) and wakes every waiter.
    func set(_ value: DisconnectReason) {
        let toWake: [CheckedContinuation<DisconnectReason, Never>] = state.withLock { state in
            guard state.reason == nil else { return [] }
            state.reason = value
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in toWake { waiter.resume(returning: value) }
    }

    /// Waits for the reason.
    func wait() async -> DisconnectReason {
        let id: UInt64 = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<DisconnectReason, Never>) in
                let ready: DisconnectReason? = state.withLock { state in
                    if let reason = state.reason { return reason }
                    if Task.isCancelled { return .other("cancelled") }
                    state.waiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: .other("cancelled"))
        }
    }
}
