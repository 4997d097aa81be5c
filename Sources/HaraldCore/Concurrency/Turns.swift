/// First come, first served turns for work that must not interleave with itself across
/// suspension points: an actor's async operation (actors are reentrant), or a procedure the
/// controller allows only one of at a time (one LE Create Connection in flight).
///
/// Each caller waits for its turn with ``take()``, works, then calls ``end()``; callers get their
/// turns in the order they asked. A caller whose task is cancelled while waiting leaves the line
/// (``take()`` returns false) and must not call ``end()``. With a width above one, that many
/// turns run at once (a bound on concurrent work, such as simulations on threads of their own).
package final class Turns: Sendable {
    private struct State {
        /// Turns under way.
        var busy = 0
        var waiting: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID: UInt64 = 0
    }

    /// Everything mutable; a waiter is resumed after the lock is released, exactly once (by
    /// whoever removes it from the line).
    private let state = Locked(State())
    /// How many turns may be under way at once.
    private let width: Int

    /// No turn under way, nobody waiting; `width` turns at a time (one unless said).
    package init(width: Int = 1) { self.width = max(1, width) }

    /// Waits for the turn: true once it is this caller's, false when its task was cancelled first.
    package func take() async -> Bool {
        await take(leavingOnCancel: true)
    }

    /// Waits for the turn even if the calling task is cancelled: for clean-up that must happen
    /// (undoing what an earlier turn did). The caller always gets the turn and must call ``end()``.
    package func takeEvenIfCancelled() async {
        _ = await take(leavingOnCancel: false)
    }

    private func take(leavingOnCancel: Bool) async -> Bool {
        let id: UInt64 = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now: Bool? = state.withLock { state in
                    if leavingOnCancel, Task.isCancelled { return false }
                    if state.busy < width {
                        state.busy += 1
                        return true
                    }
                    state.waiting.append((id, continuation))
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            guard leavingOnCancel else { return }
            let waiter: CheckedContinuation<Bool, Never>? = state.withLock { state in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index).continuation
            }
            waiter?.resume(returning: false)
        }
    }

    /// How many callers wait in line now.
    package var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Ends a turn under way: the next caller in line gets it, if any.
    package func end() {
        let next: CheckedContinuation<Bool, Never>? = state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.busy -= 1
                return nil
            }
            return state.waiting.removeFirst().continuation
        }
        next?.resume(returning: true)
    }
}
