import Foundation
import Harald

/// Remembers why a connection ended and wakes everyone waiting for it.
///
/// Set at most once; ``wait()`` returns at once afterwards. A waiter whose task is cancelled
/// stops waiting and gets `.other("cancelled")`, so no continuation is ever left behind.
final class DisconnectionSignal: @unchecked Sendable {
    // @unchecked Sendable: `reason` and `waiters` are only touched with `lock` held; waiters are
    // resumed after it is released, each exactly once (removed from the table before resuming).
    private let lock = NSLock()
    private var reason: DisconnectReason?
    private var waiters: [UInt64: CheckedContinuation<DisconnectReason, Never>] = [:]
    private var nextID: UInt64 = 0

    /// The reason, once set.
    var current: DisconnectReason? { lock.withLock { reason } }

    /// Records the reason (the first one wins) and wakes every waiter.
    func set(_ value: DisconnectReason) {
        let toWake: [CheckedContinuation<DisconnectReason, Never>] = lock.withLock {
            guard reason == nil else { return [] }
            reason = value
            defer { waiters.removeAll() }
            return Array(waiters.values)
        }
        for waiter in toWake { waiter.resume(returning: value) }
    }

    /// Waits for the reason.
    func wait() async -> DisconnectReason {
        let id: UInt64 = lock.withLock {
            nextID += 1
            return nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<DisconnectReason, Never>) in
                let ready: DisconnectReason? = lock.withLock {
                    if let reason { return reason }
                    if Task.isCancelled { return .other("cancelled") }
                    waiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = lock.withLock { waiters.removeValue(forKey: id) }
            waiter?.resume(returning: .other("cancelled"))
        }
    }
}
