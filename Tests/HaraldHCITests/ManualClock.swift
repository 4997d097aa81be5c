import Foundation

/// A clock that moves only when a test calls `advance(by:)`: timeouts fire exactly when the test
/// says, with no real waiting.
final class ManualClock: Clock, @unchecked Sendable {
    // Safety of @unchecked Sendable: `current`, `sleepers`, `nextID` and `sleeperWaiters` are only
    // touched while holding `lock`; continuations are resumed outside it, each exactly once.
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleepers: [Int: Sleeper] = [:]
    private var nextID = 0
    private var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    var now: Instant { locked { current } }
    var minimumResolution: Duration { .zero }

    private func locked<R>(_ body: () -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = locked { () -> Int in nextID += 1; return nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, woken) = locked { () -> (Bool, [CheckedContinuation<Void, Never>]) in
                    // Cancelled before registering: the cancellation handler has already run.
                    if deadline <= current || Task.isCancelled { return (true, []) }
                    sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    let count = sleepers.count
                    let ready = sleeperWaiters.filter { $0.count <= count }.map(\.continuation)
                    sleeperWaiters.removeAll { $0.count <= count }
                    return (false, ready)
                }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
                for waiter in woken { waiter.resume() }
            }
        } onCancel: {
            let sleeper = locked { sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    func advance(by duration: Duration) {
        let due = locked { () -> [Sleeper] in
            current = current.advanced(by: duration)
            let ready = sleepers.filter { $0.value.deadline <= current }
            for key in ready.keys { sleepers.removeValue(forKey: key) }
            return Array(ready.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Sleepers registered and not yet woken.
    var sleeperCount: Int { locked { sleepers.count } }

    /// Waits until at least `count` tasks are sleeping on this clock.
    func waitForSleepers(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = locked { () -> Bool in
                if sleepers.count >= count { return true }
                sleeperWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
