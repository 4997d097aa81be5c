import Foundation

/// One task's wait for a wake-up that may also end by cancellation, without spawning a task in
/// the cancellation handler (which would leave a ``Simulation``).
///
/// Make a new spot for each wait: `await spot.wait()` returns after ``wake()`` or when the
/// waiting task is cancelled, whichever comes first, and never leaks its continuation.
final class ParkingSpot: @unchecked Sendable {
    // @unchecked Sendable: `continuation` and `done` are only touched with `lock` held, and the
    // continuation is resumed exactly once (it is cleared under the lock before resuming).
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?
    private var done = false

    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                lock.lock()
                if done {
                    lock.unlock()
                    continuation.resume()
                } else {
                    self.continuation = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            wake()
        }
    }

    /// Ends the wait (now, or at once when it starts, if it has not started yet).
    func wake() {
        lock.lock()
        done = true
        let waiting = continuation
        continuation = nil
        lock.unlock()
        waiting?.resume()
    }
}
