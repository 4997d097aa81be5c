import Foundation
import HaraldCore

/// A value that is set once and awaited by any number of tasks (a connection's disconnection
/// reason). Waiters that are cancelled return nil at once; none is ever left suspended.
final class OneShotSignal<Value: Sendable>: @unchecked Sendable {
    // Safety of @unchecked Sendable: `value`, `waiters` and `nextID` are only touched while
    // holding `lock`; continuations are resumed outside the lock, each exactly once (removed from
    // `waiters` under the lock by whoever resumes it).
    fileprivate let lock = NSLock()
    fileprivate var value: Value?
    private var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
    fileprivate var nextID = 0

    /// The value, once set.
    var current: Value? {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    /// Sets the value and wakes every waiter; later calls do nothing. Returns true the first time.
    @discardableResult
    func fire(_ newValue: Value) -> Bool {
        lock.lock()
        guard value == nil else {
            lock.unlock()
            return false
        }
        value = newValue
        let woken = waiters
        waiters = [:]
        lock.unlock()
        for continuation in woken.values { continuation.resume(returning: newValue) }
        return true
    }

    /// Waits for the value; nil if the waiting task is cancelled first.
    func wait() async -> Value? {
        let (ready, id) = reserveWaiter()
        if let ready { return ready }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                lock.lock()
                if let value {
                    lock.unlock()
                    continuation.resume(returning: value)
                } else if Task.isCancelled {
                    lock.unlock()
                    continuation.resume(returning: nil)
                } else {
                    waiters[id] = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            lock.lock()
            let continuation = waiters.removeValue(forKey: id)
            lock.unlock()
            continuation?.resume(returning: nil)
        }
    }
}

extension OneShotSignal {
    /// The value if already set, else a fresh waiter id (synchronous, so the lock is never held
    /// across a suspension).
    fileprivate func reserveWaiter() -> (Value?, Int) {
        lock.lock()
        defer { lock.unlock() }
        if let value { return (value, 0) }
        nextID += 1
        return (nil, nextID)
    }
}

/// A value guarded by a lock, for the few fields outside an actor that several tasks read.
final class Locked<Value: Sendable>: @unchecked Sendable {
    // Safety of @unchecked Sendable: `value` is only read or written inside `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func get() -> Value {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func update<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
