import Foundation

/// A point in simulated time: the time elapsed since the simulation started.
public struct VirtualInstant: InstantProtocol, Hashable, Sendable, CustomStringConvertible {
    /// Time since the start of the simulation.
    public var sinceStart: Duration

    public init(sinceStart: Duration) { self.sinceStart = sinceStart }

    /// The start of every simulation.
    public static let zero = VirtualInstant(sinceStart: .zero)

    public func advanced(by duration: Duration) -> VirtualInstant { VirtualInstant(sinceStart: sinceStart + duration) }
    public func duration(to other: VirtualInstant) -> Duration { other.sinceStart - sinceStart }
    public static func < (lhs: VirtualInstant, rhs: VirtualInstant) -> Bool { lhs.sinceStart < rhs.sinceStart }
    public var description: String { "t+\(sinceStart)" }
}

/// A clock whose time moves only when told to, so that timeouts of seconds or minutes pass in
/// microseconds and every run sees the same times.
///
/// Code under test sleeps on it like on any `Clock<Duration>`. Time moves by ``advance(by:)`` /
/// ``advance(to:)``, or automatically inside a ``Simulation`` (which jumps to the next deadline
/// whenever nothing else can run). Sleepers wake in deadline order; equal deadlines wake in the
/// order they went to sleep. A cancelled sleeper wakes at once with `CancellationError`.
public final class VirtualClock: Clock, @unchecked Sendable {
    // @unchecked Sendable: every stored property below is read and written only while `lock` is
    // held (see `locked`), and continuations are resumed after the lock is released.
    public typealias Instant = VirtualInstant
    public typealias Duration = Swift.Duration

    private struct Sleeper {
        let id: UInt64
        let deadline: VirtualInstant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var current = VirtualInstant.zero
    private var sleepers: [Sleeper] = []
    private var nextID: UInt64 = 0
    private var onSleep: (@Sendable () -> Void)?

    public init() {}

    public var now: VirtualInstant { locked { current } }
    public var minimumResolution: Duration { .zero }

    /// The earliest deadline anyone is sleeping until, or nil when nobody sleeps.
    public var nextDeadline: VirtualInstant? { locked { sleepers.map(\.deadline).min() } }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int { locked { sleepers.count } }

    /// Called (outside the lock) each time a task starts sleeping; a simulation uses it to notice
    /// new timers registered from threads it does not drive.
    internal func setSleepObserver(_ observer: (@Sendable () -> Void)?) {
        locked { onSleep = observer }
    }

    public func sleep(until deadline: VirtualInstant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id: UInt64 = locked {
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, observer): (Bool, (@Sendable () -> Void)?) = locked {
                    if deadline <= current { return (true, nil) }
                    sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (false, onSleep)
                }
                if resumeNow { continuation.resume() } else { observer?() }
            }
        } onCancel: {
            let removed: Sleeper? = locked {
                guard let index = sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return sleepers.remove(at: index)
            }
            removed?.continuation.resume(throwing: CancellationError())
        }
        // A cancellation that raced with registration leaves no sleeper behind; report it.
        try Task.checkCancellation()
    }

    /// Moves time forward by `duration`, waking every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        advance(to: now.advanced(by: duration))
    }

    /// Moves time forward to `instant` (never backwards), waking every sleeper whose deadline has
    /// come, earliest first.
    public func advance(to instant: VirtualInstant) {
        let due: [Sleeper] = locked {
            if instant > current { current = instant }
            let ready = sleepers.enumerated()
                .filter { $0.element.deadline <= current }
                .sorted { ($0.element.deadline, $0.offset) < ($1.element.deadline, $1.offset) }
                .map(\.element)
            let readyIDs = Set(ready.map(\.id))
            sleepers.removeAll { readyIDs.contains($0.id) }
            return ready
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Wakes only the sleepers of the earliest deadline (moving time to it); returns false when
    /// nobody sleeps. A simulation steps this way so that work triggered by one deadline runs
    /// before the next deadline's sleepers wake.
    @discardableResult
    public func advanceToNextDeadline() -> Bool {
        guard let next = nextDeadline else { return false }
        let due: [Sleeper] = locked {
            if next > current { current = next }
            let ready = sleepers.filter { $0.deadline == next }
            sleepers.removeAll { $0.deadline == next }
            return ready
        }
        for sleeper in due { sleeper.continuation.resume() }
        return true
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
