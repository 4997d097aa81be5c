/// A value that is set once and awaited by any number of tasks (a link's disconnection reason,
/// a connection's release).
///
/// The first ``set(_:)`` wins; ``wait()`` and ``wait(ifCancelled:)`` return at once afterwards. A
/// waiter whose task is cancelled stops waiting (with nil, or with the value it named), so no
/// continuation is left behind.
public final class Latch<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiters: [UInt64: CheckedContinuation<Value?, Never>] = [:]
        var nextID: UInt64 = 0
    }

    /// Everything mutable, behind one lock; waiters are resumed after it is released, each
    /// exactly once (whoever removes one from the table resumes it).
    private let state = Locked(State())

    /// A latch not yet opened.
    public init() {}

    /// The value, once set.
    public var current: Value? { state.withLock { $0.value } }

    /// Sets the value (the first one wins) and wakes every waiter. Returns false when it was
    /// already set.
    @discardableResult
    public func set(_ value: Value) -> Bool {
        let toWake: [CheckedContinuation<Value?, Never>]? = state.withLock { state in
            guard state.value == nil else { return nil }
            state.value = value
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        guard let toWake else { return false }
        for waiter in toWake { waiter.resume(returning: value) }
        return true
    }

    /// Waits for the value; nil when the waiting task is cancelled first.
    public func wait() async -> Value? {
        let id: UInt64 = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                // Decided under the lock, resumed outside it.
                let ready: Value?? = state.withLock { state in
                    if let value = state.value { return .some(value) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[id] = continuation
                    return .none
                }
                if case .some(let ready) = ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: nil)
        }
    }

    /// Waits for the value; a cancelled waiter gets `cancelled` instead.
    public func wait(ifCancelled cancelled: @autoclosure () -> Value) async -> Value {
        let fallback = cancelled()
        return await wait() ?? fallback
    }
}
