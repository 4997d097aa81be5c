import HaraldCore

/// A point in simulated time: the time elapsed since the simulation started.
public struct VirtualInstant: InstantProtocol, Hashable, Sendable, CustomStringConvertible {
    /// Time since the start of the simulation.
    public var sinceStart: Duration

    /// The instant `sinceStart` after the clock's start.
    public init(sinceStart: Duration) { self.sinceStart = sinceStart }

    /// The start of every simulation.
    public static let zero = VirtualInstant(sinceStart: .zero)

    /// The instant `duration` later.
    public func advanced(by duration: Duration) -> VirtualInstant { VirtualInstant(sinceStart: sinceStart + duration) }
    /// The time from this instant to `other`.
    public func duration(to other: VirtualInstant) -> Duration { other.sinceStart - sinceStart }
    /// Earlier instants first.
    public static func < (lhs: VirtualInstant, rhs: VirtualInstant) -> Bool { lhs.sinceStart < rhs.sinceStart }
    /// `t+` and the virtual time since the start, e.g. `t+1.5 seconds`.
    public var description: String { "t+\(sinceStart)" }
}

/// A clock whose time moves only when told to, so that timeouts of seconds or minutes pass in
/// microseconds and every run sees the same times.
///
/// Code under test sleeps on it like on any `Clock<Duration>`. Time moves by ``advance(by:)`` /
/// ``advance(to:)``, or automatically inside a ``Simulation`` (which jumps to the next deadline
/// whenever nothing else can run). Sleepers wake in deadline order; equal deadlines wake in the
/// order they went to sleep. A cancelled sleeper wakes at once with `CancellationError`.
///
/// A clock driven by a ``Simulation`` carries that simulation's ``taskStarter``, so what the
/// simulator builds on the clock starts its tasks in the simulation.
public final class VirtualClock: Clock, Sendable {
    // Everything mutable — the time, the timer heap, the observers — is in `state` and touched only
    // inside `state.withLock`; so are the `wake`/`cancelled` fields of every `Timer` (see there).
    // Continuations are resumed and timer actions run after the lock is released. A timer's wake
    // is taken out (set to nil) under the lock before it runs, so each continuation is resumed
    // exactly once.
    /// Its instants: durations since the clock started.
    public typealias Instant = VirtualInstant
    /// Standard durations.
    public typealias Duration = Swift.Duration

    /// What a deadline wakes: a sleeping task, or an action run in place (see ``schedule(at:_:)``).
    fileprivate enum Wake {
        case task(UnsafeContinuation<Void, any Error>)
        case action(@Sendable () -> Void)

        func resume() {
            switch self {
            case .task(let continuation): continuation.resume()
            case .action(let action): action()
            }
        }
    }

    /// One pending wake-up; also the token ``cancelWake(_:)`` takes.
    final class Timer: @unchecked Sendable {
        // @unchecked Sendable: `deadline` is immutable; `wake` and `cancelled` are read and
        // written only inside the owning clock's `state.withLock` (every access below is in a
        // `ClockState` method or a `withLock` closure), so no two threads touch them at once.
        let deadline: VirtualInstant
        /// What to wake; nil once it has fired or was cancelled. Guarded by the clock's lock.
        fileprivate var wake: Wake?
        /// Set when a sleep is cancelled before it registered. Guarded by the clock's lock.
        fileprivate var cancelled = false

        fileprivate init(deadline: VirtualInstant) { self.deadline = deadline }
    }

    private let state = Locked(ClockState())

    /// A clock at virtual time zero.
    public init() {}

    /// The current virtual time.
    public var now: VirtualInstant { state.withLock { $0.current } }

    /// Zero: virtual time has no granularity.
    public var minimumResolution: Duration { .zero }

    /// The earliest deadline anyone is sleeping until, or nil when nobody sleeps.
    public var nextDeadline: VirtualInstant? {
        state.withLock { state in
            state.dropCancelledTop()
            return state.queue.top?.element.deadline
        }
    }

    /// How many tasks (and timers) are sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.live } }

    /// Starts the tasks of what runs on this clock: on the executor of the ``Simulation`` that
    /// drives it, or as plain `Task { }`s for a clock no simulation drives.
    public var taskStarter: TaskStarter { state.withLock { $0.starter } }

    /// Makes ``taskStarter`` start tasks with `starter` (a simulation binding its clock).
    internal func setTaskStarter(_ starter: TaskStarter) {
        state.withLock { $0.starter = starter }
    }

    /// Called (outside the lock) each time a task starts sleeping; a simulation uses it to notice
    /// new timers registered from threads it does not drive.
    internal func setSleepObserver(_ observer: (@Sendable () -> Void)?) {
        state.withLock { $0.onSleep = observer }
    }

    /// Returns when virtual time reaches `deadline` (the simulation jumps there once nothing else can run); throws on cancellation.
    public func sleep(until deadline: VirtualInstant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let timer = Timer(deadline: deadline)
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                switch state.withLock({ $0.register(timer, .task(continuation)) }) {
                case .registered(let observer): observer?()
                case .due: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let wake = state.withLock { state in
                timer.cancelled = true
                return state.takeWake(timer)
            }
            if case .task(let continuation)? = wake { continuation.resume(throwing: CancellationError()) }
        }
    }

    /// Runs `action` at `deadline`, on the thread that moves time there (outside the clock's
    /// lock), in deadline order with the sleepers; no task is involved, so a timer costs no
    /// executor job. Returns a token for ``cancelWake(_:)``, or nil when `deadline` has come
    /// already (the action is then not run: the caller does the work itself).
    internal func schedule(at deadline: VirtualInstant, _ action: @escaping @Sendable () -> Void) -> Timer? {
        let timer = Timer(deadline: deadline)
        switch state.withLock({ $0.register(timer, .action(action)) }) {
        case .registered(let observer):
            observer?()
            return timer
        case .due, .cancelled: return nil
        }
    }

    /// Cancels a timer from ``schedule(at:_:)`` that has not fired yet (its action does not run).
    internal func cancelWake(_ timer: Timer) {
        _ = state.withLock { $0.takeWake(timer) }
    }

    /// Registers `action` to run when the simulation driving this clock ends, unless
    /// it is removed before. A simulated link uses it to close itself when the world ends.
    internal func atEnd(_ action: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { state in
            state.lastEndAction += 1
            state.endActions[state.lastEndAction] = action
            return state.lastEndAction
        }
    }

    /// Removes an action registered with ``atEnd(_:)``.
    internal func removeEndAction(_ id: UInt64) {
        _ = state.withLock { $0.endActions.removeValue(forKey: id) }
    }

    /// Runs (and removes) the ``atEnd(_:)`` actions, in registration order; returns how many.
    /// What a simulation does first when it ends.
    internal func runEndActions() -> Int {
        let actions = state.withLock { state in
            defer { state.endActions.removeAll() }
            return state.endActions.sorted { $0.key < $1.key }.map(\.value)
        }
        for action in actions { action() }
        return actions.count
    }

    /// Ends every pending timer without moving time: sleepers throw `CancellationError`, timer
    /// actions are dropped unrun. Returns how many there were. What a simulation does when it
    /// ends, since nothing will move its time again.
    internal func endTimers() -> Int {
        let wakes = state.withLock { state -> [Wake] in
            var wakes: [Wake] = []
            while let top = state.queue.top {
                state.queue.pop()
                if let wake = top.element.wake {
                    top.element.wake = nil
                    wakes.append(wake)
                }
            }
            state.live = 0
            return wakes
        }
        for wake in wakes {
            if case .task(let continuation) = wake { continuation.resume(throwing: CancellationError()) }
        }
        return wakes.count
    }

    /// Moves time forward by `duration`, waking every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        advance(to: now.advanced(by: duration))
    }

    /// Moves time forward to `instant` (never backwards), waking every sleeper whose deadline has
    /// come, earliest first.
    public func advance(to instant: VirtualInstant) {
        let due = state.withLock { state -> [Wake] in
            if instant > state.current { state.current = instant }
            var due: [Wake] = []
            while let top = state.queue.top, top.element.deadline <= state.current {
                state.queue.pop()
                if let wake = top.element.wake {
                    top.element.wake = nil
                    state.live -= 1
                    due.append(wake)
                }
            }
            return due
        }
        for wake in due { wake.resume() }
    }

    /// Wakes only the sleepers of the earliest deadline (moving time to it); returns false when
    /// nobody sleeps. A simulation steps this way so that work triggered by one deadline runs
    /// before the next deadline's sleepers wake.
    @discardableResult
    public func advanceToNextDeadline() -> Bool {
        let woken = state.withLock { state -> (first: Wake?, more: [Wake])? in
            state.dropCancelledTop()
            guard let next = state.queue.top?.element.deadline else { return nil }
            if next > state.current { state.current = next }
            // Most deadlines wake one timer: keep it out of an array.
            var first: Wake?
            var more: [Wake] = []
            while let top = state.queue.top, top.element.deadline == next {
                state.queue.pop()
                guard let wake = top.element.wake else { continue }
                top.element.wake = nil
                state.live -= 1
                if first == nil { first = wake } else { more.append(wake) }
            }
            return (first, more)
        }
        guard let woken else { return false }
        woken.first?.resume()
        for wake in woken.more { wake.resume() }
        return true
    }
}

/// A ``VirtualClock``'s mutable state, reached only through its lock.
private struct ClockState {
    var current = VirtualInstant.zero
    /// Every registered timer, earliest (deadline, then registration order) first. Entries of
    /// cancelled timers stay until they reach the top or are swept (lazy deletion).
    var queue = DeadlineHeap<VirtualClock.Timer>()
    /// Timers registered and neither fired nor cancelled.
    var live = 0
    var nextOrder: UInt64 = 0
    var onSleep: (@Sendable () -> Void)?
    var starter = TaskStarter.default
    /// What runs when the simulation ends (``VirtualClock/atEnd(_:)``), by registration.
    var endActions: [UInt64: @Sendable () -> Void] = [:]
    var lastEndAction: UInt64 = 0

    enum Registration {
        case registered((@Sendable () -> Void)?)
        case due
        case cancelled
    }

    mutating func register(_ timer: VirtualClock.Timer, _ wake: VirtualClock.Wake) -> Registration {
        if timer.cancelled { return .cancelled }
        if timer.deadline <= current { return .due }
        nextOrder += 1
        timer.wake = wake
        queue.push(timer, at: timer.deadline.sinceStart, order: nextOrder)
        live += 1
        return .registered(onSleep)
    }

    /// Takes the wake of a timer that has neither fired nor been cancelled.
    mutating func takeWake(_ timer: VirtualClock.Timer) -> VirtualClock.Wake? {
        guard let wake = timer.wake else { return nil }
        timer.wake = nil
        live -= 1
        // Keep the entries of cancelled timers left in the heap bounded.
        if queue.count > 2 * live + 64 { queue.removeAll { $0.element.wake == nil } }
        return wake
    }

    /// Pops entries of cancelled timers off the top.
    mutating func dropCancelledTop() {
        while let top = queue.top, top.element.wake == nil { queue.pop() }
    }
}
