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
    // inside `state.withLock`. A pending wake-up lives in its heap entry; it is taken out of the
    // heap under the lock before it runs (by firing, cancelling or ending), so each continuation is
    // resumed exactly once. Continuations are resumed and timer actions run after the lock is
    // released.
    /// Its instants: durations since the clock started.
    public typealias Instant = VirtualInstant
    /// Standard durations.
    public typealias Duration = Swift.Duration

    /// What a deadline wakes: a sleeping task, an action run in place (see ``schedule(at:_:)``),
    /// or a repeating tick (see ``repeating(from:every:_:)``).
    fileprivate enum Wake {
        case task(UnsafeContinuation<Void, any Error>)
        /// Called with the clock's time when it runs.
        case action(@Sendable (VirtualInstant) -> Void)
        case tick(interval: Duration, tick: @Sendable () -> Bool)
    }

    /// A timer from ``schedule(at:_:)``, for ``cancelWake(_:)``: the order it was registered in.
    struct Timer: Hashable, Sendable {
        fileprivate let order: UInt64
    }

    /// One sleeping task's registration, shared with its cancellation handler. Its fields are
    /// read and written only inside the clock's `state.withLock`.
    private final class Sleep: @unchecked Sendable {
        // @unchecked Sendable: `order` and `cancelled` are touched only inside the owning clock's
        // `state.withLock` (in `sleep(until:)`), so no two threads touch them at once.
        /// The registration order of its heap entry, 0 until registered.
        var order: UInt64 = 0
        /// Set when the sleep was cancelled before it registered.
        var cancelled = false
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
        state.withLock { state in state.queue.top.map { VirtualInstant(sinceStart: $0.deadline) } }
    }

    /// How many tasks (and timers) are sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.queue.count } }

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
        let sleep = Sleep()
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Registration in
                    if sleep.cancelled { return .cancelled }
                    let outcome = state.register(.task(continuation), at: deadline)
                    if case .registered(let order, _) = outcome { sleep.order = order }
                    return outcome
                }
                switch outcome {
                case .registered(_, let observer): observer?()
                case .due: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let wake = state.withLock { state -> Wake? in
                guard sleep.order != 0 else {
                    sleep.cancelled = true
                    return nil
                }
                return state.remove(order: sleep.order)
            }
            if case .task(let continuation)? = wake { continuation.resume(throwing: CancellationError()) }
        }
    }

    /// Runs `action` at `deadline`, on the thread that moves time there (outside the clock's
    /// lock), in deadline order with the sleepers, handing it the clock's time then; no task is
    /// involved, so a timer costs no executor job. Returns a token for ``cancelWake(_:)``, or nil
    /// when `deadline` has come already (the action is then not run: the caller does the work
    /// itself).
    internal func schedule(at deadline: VirtualInstant, _ action: @escaping @Sendable (_ now: VirtualInstant) -> Void) -> Timer? {
        let outcome = state.withLock { $0.register(.action(action), at: deadline) }
        guard case .registered(let order, let observer) = outcome else { return nil }
        observer?()
        return Timer(order: order)
    }

    /// Calls `tick` at `first` and then every `interval` after it, on the thread that moves time
    /// (outside the clock's lock), until it returns false: one timer re-armed in place, where a
    /// chain of ``schedule(at:_:)`` calls would make a timer and a closure per tick. A tick whose
    /// time has come already (`first` not in the future) runs at the next step of the clock; when
    /// time is moved by hand past several ticks, they all run then, in order.
    internal func repeating(from first: VirtualInstant, every interval: Duration, _ tick: @escaping @Sendable () -> Bool) {
        let interval = max(interval, .nanoseconds(1))
        let observer = state.withLock { state in
            state.push(.tick(interval: interval, tick: tick), at: max(first, state.current).sinceStart)
            return state.onSleep
        }
        observer?()
    }

    /// Cancels a timer from ``schedule(at:_:)`` that has not fired yet (its action does not run).
    internal func cancelWake(_ timer: Timer) {
        _ = state.withLock { $0.remove(order: timer.order) }
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
    /// actions and ticks are dropped unrun. Returns how many there were. What a simulation does
    /// when it ends, since nothing will move its time again.
    internal func endTimers() -> Int {
        let wakes = state.withLock { state -> [Wake] in
            var wakes: [Wake] = []
            while let wake = state.popWake() { wakes.append(wake) }
            return wakes
        }
        for wake in wakes {
            if case .task(let continuation) = wake { continuation.resume(throwing: CancellationError()) }
        }
        return wakes.count
    }

    /// Ends a clock driven by hand with ``advance(by:)`` (outside a ``Simulation``), as a
    /// simulation ends its own: the end actions run (devices let go of their GATT servers), and
    /// every pending sleeper throws `CancellationError`, so no task waits on a time that will
    /// not come (such a task, and what it holds, would never be freed).
    public func end() {
        _ = runEndActions()
        _ = endTimers()
    }

    /// Moves time forward by `duration`, waking every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        advance(to: now.advanced(by: duration))
    }

    /// Moves time forward to `instant` (never backwards), waking every sleeper whose deadline has
    /// come, earliest first.
    public func advance(to instant: VirtualInstant) {
        let (now, due) = state.withLock { state -> (VirtualInstant, [(Wake, Swift.Duration)]) in
            if instant > state.current { state.current = instant }
            var due: [(Wake, Swift.Duration)] = []
            while let top = state.queue.top, top.deadline <= state.current.sinceStart, let popped = state.pop() {
                due.append(popped)
            }
            return (state.current, due)
        }
        for (wake, deadline) in due { run(wake, firedAt: deadline, now: now) }
    }

    /// Wakes only the sleepers of the earliest deadline (moving time to it); returns false when
    /// nobody sleeps. A simulation steps this way so that work triggered by one deadline runs
    /// before the next deadline's sleepers wake.
    @discardableResult
    public func advanceToNextDeadline() -> Bool {
        advanceToNextDeadline(notAfter: nil) == .advanced
    }

    /// What ``advanceToNextDeadline(notAfter:)`` did.
    internal enum Step {
        /// Time moved to the next deadline and its sleepers woke.
        case advanced
        /// Nobody sleeps.
        case idle
        /// The next deadline is later than the limit; time did not move.
        case pastLimit
    }

    /// ``advanceToNextDeadline()`` unless the next deadline is later than `limit`: one lock for
    /// what a simulation's loop asks after each batch of jobs.
    internal func advanceToNextDeadline(notAfter limit: VirtualInstant?) -> Step {
        let woken = state.withLock { state -> (step: Step, deadline: Swift.Duration, first: Wake?, more: [Wake]) in
            guard let earliest = state.queue.top else { return (.idle, .zero, nil, []) }
            let next = earliest.deadline
            if let limit, next > limit.sinceStart { return (.pastLimit, .zero, nil, []) }
            if next > state.current.sinceStart { state.current = VirtualInstant(sinceStart: next) }
            // Most deadlines wake one timer: keep it out of an array. Entries are compared by
            // their key's parts (cheaper than building a Duration per entry).
            var first: Wake?
            var more: [Wake] = []
            while let top = state.queue.top, top.seconds == earliest.seconds, top.attoseconds == earliest.attoseconds, let wake = state.popWake() {
                if first == nil { first = wake } else { more.append(wake) }
            }
            return (.advanced, next, first, more)
        }
        let now = VirtualInstant(sinceStart: woken.deadline)
        if let first = woken.first { run(first, firedAt: woken.deadline, now: now) }
        for wake in woken.more { run(wake, firedAt: woken.deadline, now: now) }
        return woken.step
    }

    /// Runs a wake taken out of the heap (outside the lock); a tick that asks for more is put
    /// back one interval after the deadline it fired for.
    private func run(_ wake: Wake, firedAt deadline: Swift.Duration, now: VirtualInstant) {
        switch wake {
        case .task(let continuation): continuation.resume()
        case .action(let action): action(now)
        case .tick(let interval, let tick):
            guard tick() else { return }
            // Time moved by hand past more ticks than one: they all run now, in order.
            var next = deadline + interval
            while next <= now.sinceStart {
                guard tick() else { return }
                next += interval
            }
            _ = state.withLock { $0.push(wake, at: next) }
        }
    }

    fileprivate enum Registration {
        case registered(order: UInt64, observer: (@Sendable () -> Void)?)
        case due
        case cancelled
    }
}

/// A ``VirtualClock``'s mutable state, reached only through its lock.
private struct ClockState {
    var current = VirtualInstant.zero
    /// Every pending wake-up's deadline and registration order, earliest (deadline, then order)
    /// first, with the slot of `wakes` that holds it. The heap holds plain numbers, so moving
    /// its entries copies no references.
    var queue = DeadlineHeap<Int>()
    /// The wakes, by slot; nil in a free slot.
    var wakes: [VirtualClock.Wake?] = []
    var freeSlots: [Int] = []
    var nextOrder: UInt64 = 0
    var onSleep: (@Sendable () -> Void)?
    var starter = TaskStarter.default
    /// What runs when the simulation ends (``VirtualClock/atEnd(_:)``), by registration.
    var endActions: [UInt64: @Sendable () -> Void] = [:]
    var lastEndAction: UInt64 = 0

    /// Adds `wake` at `deadline` unless that has come; returns its order and the observer to
    /// tell, or `.due`.
    mutating func register(_ wake: VirtualClock.Wake, at deadline: VirtualInstant) -> VirtualClock.Registration {
        if deadline <= current { return .due }
        return .registered(order: push(wake, at: deadline.sinceStart), observer: onSleep)
    }

    @discardableResult
    mutating func push(_ wake: VirtualClock.Wake, at deadline: Duration) -> UInt64 {
        nextOrder += 1
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            wakes[slot] = wake
        } else {
            slot = wakes.count
            wakes.append(wake)
        }
        queue.push(slot, at: deadline, order: nextOrder)
        return nextOrder
    }

    /// Takes out the earliest wake and its deadline.
    mutating func pop() -> (VirtualClock.Wake, Duration)? {
        guard let entry = queue.pop() else { return nil }
        return (take(entry.element), entry.deadline)
    }

    /// Takes out the earliest wake.
    mutating func popWake() -> VirtualClock.Wake? {
        queue.pop().map { take($0.element) }
    }

    /// Takes out the wake registered as `order`, if it is still pending.
    mutating func remove(order: UInt64) -> VirtualClock.Wake? {
        guard let entry = queue.remove(where: { $0.order == order }) else { return nil }
        return take(entry.element)
    }

    private mutating func take(_ slot: Int) -> VirtualClock.Wake {
        defer {
            wakes[slot] = nil
            freeSlots.append(slot)
        }
        // Every slot in the heap holds a wake: it is filled before its entry goes in.
        return wakes[slot]!
    }
}
