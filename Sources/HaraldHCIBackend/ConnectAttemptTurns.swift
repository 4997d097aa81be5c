import Harald
import HaraldCore

/// The host initiates one LE connection at a time (HCI allows one LE Create Connection in
/// flight); connects to different peripherals wait here for their turn, first come first
/// served, instead of failing as busy. A caller cancelled while waiting leaves the line.
final class ConnectAttemptTurns: Sendable {
    private struct State {
        var busy = false
        var waiting: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID: UInt64 = 0
    }

    /// Everything mutable; a waiter is resumed after the lock is released, exactly once (by
    /// whoever removes it from the line).
    private let state = Locked(State())

    /// Waits for the turn; throws ``BluetoothError/cancelled`` when the task is cancelled first.
    func take() async throws(BluetoothError) {
        let id: UInt64 = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let granted = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now: Bool? = state.withLock { state in
                    if Task.isCancelled { return false }
                    if !state.busy {
                        state.busy = true
                        return true
                    }
                    state.waiting.append((id, continuation))
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Bool, Never>? = state.withLock { state in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index).continuation
            }
            waiter?.resume(returning: false)
        }
        guard granted else { throw .cancelled }
    }

    /// Gives the turn to the next caller in line, if any.
    func pass() {
        let next: CheckedContinuation<Bool, Never>? = state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst().continuation
        }
        next?.resume(returning: true)
    }
}
