import HaraldCore

/// One task's wait for a wake-up that may also end by cancellation, without spawning a task in
/// the cancellation handler (which would leave a ``Simulation``).
///
/// Make a new spot for each wait: `await spot.wait()` returns after ``wake()`` or when the
/// waiting task is cancelled, whichever comes first, and never leaks its continuation.
final class ParkingSpot: Sendable {
    /// The waiting task, and whether the wait is over. The continuation is taken out under the
    /// lock before it is resumed, so it is resumed exactly once.
    private let state = Locked((continuation: CheckedContinuation<Void, Never>?.none, done: false))

    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLock { state in
                    if !state.done { state.continuation = continuation }
                    return state.done
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            wake()
        }
    }

    /// Ends the wait (now, or at once when it starts, if it has not started yet).
    func wake() {
        let waiting = state.withLock { state in
            state.done = true
            defer { state.continuation = nil }
            return state.continuation
        }
        waiting?.resume()
    }
}
