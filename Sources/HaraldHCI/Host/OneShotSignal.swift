import HaraldCore

/// A value that is set once and awaited by any number of tasks (a connection's disconnection
/// reason). Waiters that are cancelled return nil at once; none is ever left suspended.
final class OneShotSignal<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiters: [UInt64: CheckedContinuation<Value?, Never>] = [:]
        var nextID: UInt64 = 0
    }

    /// Everything mutable, behind one lock; continuations are resumed after it is released, each
    /// exactly once (whoever removes one from `waiters` resumes it).
    private let state = Locked(State())

    /// The value, once set.
    var current: Value? { state.withLock { $0.value } }

    /// Sets the value and wakes every waiter; later calls do nothing. Returns true the first time.
    @discardableResult
    func fire(_ newValue: Value) -> Bool {
        let woken: [CheckedContinuation<Value?, Never>]? = state.withLock { state in
            guard state.value == nil else { return nil }
            state.value = newValue
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        guard let woken else { return false }
        for continuation in woken { continuation.resume(returning: newValue) }
        return true
    }

    /// Waits for the value; nil if the waiting task is cancelled first.
    func wait() async -> Value? {
        let reservation: (ready: Value?, id: UInt64) = state.withLock { state in
            if let value = state.value { return (value, 0) }
            state.nextID += 1
            return (nil, state.nextID)
        }
        if let ready = reservation.ready { return ready }
        let id = reservation.id
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                // Decided under the lock, resumed outside it.
                let answer: Value?? = state.withLock { state in
                    if let value = state.value { return .some(value) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = continuation
                    return .none
                }
                if case let .some(answer) = answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let continuation = state.withLock { $0.waiters.removeValue(forKey: id) }
            continuation?.resume(returning: nil)
        }
    }
}
