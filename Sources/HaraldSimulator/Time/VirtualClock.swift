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
        let wake: Wake
    }

    /// What a deadline wakes: a sleeping task, a parked one (see ``wake(_:at:)``), or an action
    /// run in place (see ``schedule(at:_:)``).
    private enum Wake {
        case task(CheckedContinuation<Void, any Error>)
        case spot(ParkingSpot)
        case action(@Sendable () -> Void)

        func resume() {
            switch self {
            case .task(let continuation): continuation.resume()
            case .spot(let spot): spot.wake()
            case .action(let action): action()
            }
        }
    }

    private let lock = NSLock()
    private var current = VirtualInstant.zero
    /// Sleepers by id; the heap below orders them.
    private var sleepers: [UInt64: Sleeper] = [:]
    /// (deadline, id) of every sleeper, earliest first; ids are handed out in sleep order, so
    /// equal deadlines wake in the order their sleepers went to sleep. Entries of cancelled
    /// sleepers stay until they reach the top (lazy deletion).
    private var queue = SleeperHeap()
    private var nextID: UInt64 = 0
    private var onSleep: (@Sendable () -> Void)?

    public init() {}

    public var now: VirtualInstant { locked { current } }
    public var minimumResolution: Duration { .zero }

    /// The earliest deadline anyone is sleeping until, or nil when nobody sleeps.
    public var nextDeadline: VirtualInstant? { locked { earliest()?.deadline } }

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
                    sleepers[id] = Sleeper(id: id, deadline: deadline, wake: .task(continuation))
                    queue.push(deadline: deadline, id: id)
                    return (false, onSleep)
                }
                if resumeNow { continuation.resume() } else { observer?() }
            }
        } onCancel: {
            let removed: Sleeper? = locked {
                let removed = sleepers.removeValue(forKey: id)
                // Keep the cancelled entries left in the heap bounded.
                if queue.count > 2 * sleepers.count + 64 { queue.rebuild(sleepers.values.map { ($0.deadline, $0.id) }) }
                return removed
            }
            if case .task(let continuation)? = removed?.wake { continuation.resume(throwing: CancellationError()) }
        }
        // A cancellation that raced with registration leaves no sleeper behind; report it.
        try Task.checkCancellation()
    }

    /// Wakes `spot` at `deadline` (at once if it has come), like a sleep that needs no task of
    /// its own: a parked task that will be woken either by an event or by a deadline, whichever
    /// comes first, waits once instead of parking and then sleeping. Returns a token for
    /// ``cancelWake(_:)``, or nil when the spot was woken at once.
    internal func wake(_ spot: ParkingSpot, at deadline: VirtualInstant) -> UInt64? {
        let (token, observer): (UInt64?, (@Sendable () -> Void)?) = locked {
            if deadline <= current { return (nil, nil) }
            nextID += 1
            let id = nextID
            sleepers[id] = Sleeper(id: id, deadline: deadline, wake: .spot(spot))
            queue.push(deadline: deadline, id: id)
            return (id, onSleep)
        }
        if token == nil { spot.wake() } else { observer?() }
        return token
    }

    /// Runs `action` at `deadline`, on the thread that moves time there (outside the clock's
    /// lock), in deadline order with the sleepers; no task is involved, so a timer costs no
    /// executor job. Returns a token for ``cancelWake(_:)``, or nil when `deadline` has come
    /// already (the action is then not run: the caller does the work itself).
    internal func schedule(at deadline: VirtualInstant, _ action: @escaping @Sendable () -> Void) -> UInt64? {
        let (token, observer): (UInt64?, (@Sendable () -> Void)?) = locked {
            if deadline <= current { return (nil, nil) }
            nextID += 1
            let id = nextID
            sleepers[id] = Sleeper(id: id, deadline: deadline, wake: .action(action))
            queue.push(deadline: deadline, id: id)
            return (id, onSleep)
        }
        if token != nil { observer?() }
        return token
    }

    /// Cancels a wake-up from ``wake(_:at:)`` or ``schedule(at:_:)`` that has not happened yet.
    internal func cancelWake(_ token: UInt64) {
        locked {
            guard sleepers.removeValue(forKey: token) != nil else { return }
            if queue.count > 2 * sleepers.count + 64 { queue.rebuild(sleepers.values.map { ($0.deadline, $0.id) }) }
        }
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
            var ready: [Sleeper] = []
            while let next = queue.top, next.deadline <= current {
                queue.pop()
                if let sleeper = sleepers.removeValue(forKey: next.id) { ready.append(sleeper) }
            }
            return ready
        }
        for sleeper in due { sleeper.wake.resume() }
    }

    /// Wakes only the sleepers of the earliest deadline (moving time to it); returns false when
    /// nobody sleeps. A simulation steps this way so that work triggered by one deadline runs
    /// before the next deadline's sleepers wake.
    @discardableResult
    public func advanceToNextDeadline() -> Bool {
        let due: [Sleeper]? = locked {
            guard let next = earliest()?.deadline else { return nil }
            if next > current { current = next }
            var ready: [Sleeper] = []
            while let entry = queue.top, entry.deadline == next {
                queue.pop()
                if let sleeper = sleepers.removeValue(forKey: entry.id) { ready.append(sleeper) }
            }
            return ready
        }
        guard let due else { return false }
        for sleeper in due { sleeper.wake.resume() }
        return true
    }

    /// The earliest live sleeper's queue entry, dropping entries of cancelled ones. Lock held.
    private func earliest() -> (deadline: VirtualInstant, id: UInt64)? {
        while let top = queue.top {
            if sleepers[top.id] != nil { return top }
            queue.pop()
        }
        return nil
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

/// A binary min-heap of (deadline, id), ordered by deadline then id.
private struct SleeperHeap {
    private var entries: [(deadline: VirtualInstant, id: UInt64)] = []

    var top: (deadline: VirtualInstant, id: UInt64)? { entries.first }
    var count: Int { entries.count }

    /// Replaces the contents with `items`.
    mutating func rebuild(_ items: [(VirtualInstant, UInt64)]) {
        entries = []
        for (deadline, id) in items { push(deadline: deadline, id: id) }
    }

    private static func less(_ a: (deadline: VirtualInstant, id: UInt64), _ b: (deadline: VirtualInstant, id: UInt64)) -> Bool {
        a.deadline < b.deadline || (a.deadline == b.deadline && a.id < b.id)
    }

    mutating func push(deadline: VirtualInstant, id: UInt64) {
        entries.append((deadline, id))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.less(entries[child], entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() {
        guard !entries.isEmpty else { return }
        entries.swapAt(0, entries.count - 1)
        entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, Self.less(entries[left], entries[smallest]) { smallest = left }
            if right < entries.count, Self.less(entries[right], entries[smallest]) { smallest = right }
            guard smallest != parent else { return }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
