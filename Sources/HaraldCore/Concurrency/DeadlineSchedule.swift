/// The timers of one engine (an actor) on one clock: a heap of deadlines, each with the action
/// to take when it passes, served by at most one sleeping task.
///
/// This is Harald's one timer mechanism below the public API. An engine adds a deadline when a
/// request starts and cancels it when the answer comes; neither starts a task. A task is started
/// only when nothing sleeps yet, or when a new deadline is earlier than the one the sleeper wakes
/// for; a sleeper that wakes for a deadline that was cancelled meanwhile takes what is due (maybe
/// nothing) and sleeps again until the next one, or ends when none is left. So an engine whose
/// requests each add a deadline and cancel it on the answer starts at most one task per timeout
/// period, not one per request; an idle engine keeps its sleeper only until the time it was set
/// for. ``removeAll()`` (when the engine closes) cancels it at once.
///
/// The schedule decides; its owner starts the sleeper (``arm(_:)``), runs the actions it takes
/// out (``popDue()``), and keeps it on the owner's isolation. ``DeadlineOwner`` does all of that
/// for an actor with one schedule.
///
/// Deadlines are durations since the schedule was made, on its clock (a manual or virtual clock
/// in tests and simulations), so engines hold no generic clock type.
package struct DeadlineSchedule<Action: Sendable>: Sendable {
    /// One added deadline, for cancelling it.
    package struct ID: Hashable, Sendable {
        fileprivate let raw: UInt64
    }

    /// Time elapsed on the clock since the schedule was made.
    package let now: @Sendable () -> Duration
    /// Sleeps until `now()` reaches the given elapsed time; throws when cancelled.
    private let sleepUntil: @Sendable (Duration) async throws -> Void

    private var heap = DeadlineHeap<UInt64>()
    /// The actions of deadlines added and neither passed nor cancelled. Heap entries whose ID is
    /// missing here were cancelled; they are dropped when they reach the top or in a sweep.
    private var pending: [UInt64: Action] = [:]
    private var nextID: UInt64 = 0
    /// The running sleeper: its task, the elapsed time it wakes at and its generation (a sleeper
    /// replaced by an earlier one may still arrive; its generation tells it apart).
    private var sleeper: (task: Task<Void, Never>, wakesAt: Duration, generation: UInt64)?
    private var generation: UInt64 = 0

    /// A schedule on `clock`, starting now.
    package init<C: Clock>(clock: C) where C.Duration == Duration {
        let origin = clock.now
        now = { origin.duration(to: clock.now) }
        sleepUntil = { deadline in try await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil) }
    }

    /// A schedule on `clock` (an existential clock, opened here).
    package init(anyClock clock: any Clock<Duration>) {
        self = Self.opening(clock)
    }

    private static func opening<C: Clock>(_ clock: C) -> Self where C.Duration == Duration { Self(clock: clock) }

    /// Deadlines waiting to pass.
    package var count: Int { pending.count }
    /// Whether a sleeper task is running (for tests of an idle engine).
    package var hasSleeper: Bool { sleeper != nil }

    /// Adds a deadline at elapsed time `deadline`; `action` is taken out by ``popDue()`` once
    /// the clock reaches it. Deadlines that are equal pass in the order they were added. Call
    /// ``arm(_:)`` afterwards.
    package mutating func add(at deadline: Duration, _ action: Action) -> ID {
        nextID += 1
        pending[nextID] = action
        heap.push(nextID, at: deadline, order: nextID)
        return ID(raw: nextID)
    }

    /// Removes a deadline that has not passed; returns its action, nil when it already passed or
    /// was cancelled (or `id` is nil). A sleeper keeps sleeping (the next request's deadline is
    /// most likely later than the time it wakes at, so it serves that one too).
    @discardableResult
    package mutating func cancel(_ id: ID?) -> Action? {
        guard let id, let action = pending.removeValue(forKey: id.raw) else { return nil }
        if pending.isEmpty {
            heap = DeadlineHeap()
        } else if heap.count > 2 * pending.count + 64 {
            // Keep the entries of cancelled deadlines bounded.
            heap.removeAll { pending[$0.element] == nil }
        }
        return action
    }

    /// Takes out the earliest deadline that has passed, nil when none has.
    package mutating func popDue() -> Action? {
        dropCancelledTop()
        guard let top = heap.top, top.deadline <= now() else { return nil }
        heap.pop()
        return pending.removeValue(forKey: top.element)
    }

    /// Starts a sleeper if one is needed: when deadlines wait and no sleeper wakes at or before
    /// the earliest. `start` starts the sleeper's work as a task (on the owner's task starter or
    /// registry) and returns it, nil when the owner starts no more tasks (after it closed). The
    /// sleeper sleeps until the earliest deadline, then calls `woke` with its generation, which
    /// the owner passes to ``sleeperWoke(_:)`` before it takes out what is due; a cancelled
    /// sleeper calls nothing. `woke` must not hold its owner strongly (a pending deadline must
    /// not keep alive an engine its owner dropped).
    package mutating func arm(
        startedBy start: (_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never>?,
        woke: @escaping @Sendable (_ generation: UInt64) async -> Void
    ) {
        guard needsSleeper(), let earliest = heap.top?.deadline else { return }
        sleeper?.task.cancel()
        sleeper = nil
        generation += 1
        let sleepUntil = sleepUntil
        let generation = generation
        let task = start {
            do { try await sleepUntil(earliest) } catch { return }
            await woke(generation)
        }
        if let task { sleeper = (task, earliest, generation) }
    }

    /// Whether ``arm(startedBy:woke:)`` would start a sleeper now: deadlines wait and no sleeper
    /// wakes at or before the earliest. Lets an owner skip building the sleeper's closures.
    package mutating func needsSleeper() -> Bool {
        dropCancelledTop()
        guard let earliest = heap.top?.deadline else { return false }
        if let sleeper, sleeper.wakesAt <= earliest { return false }
        return true
    }

    /// Forgets the sleeper of `generation`, which has woken (a replaced one changes nothing).
    package mutating func sleeperWoke(_ generation: UInt64) {
        if sleeper?.generation == generation { sleeper = nil }
    }

    /// For an owner that keeps the schedule behind a lock: forgets the sleeper of `generation`
    /// (see ``sleeperWoke(_:)``) and takes out every deadline that has passed, earliest first, for
    /// the owner to act on once the lock is released. Call ``arm(startedBy:woke:)`` afterwards.
    package mutating func takeDue(afterSleeperWoke generation: UInt64) -> [Action] {
        sleeperWoke(generation)
        var due: [Action] = []
        while let action = popDue() { due.append(action) }
        return due
    }

    /// Cancels the sleeper, if one runs, and keeps the deadlines. For an owner's `deinit`: a
    /// released engine must not leave a task sleeping on its clock (on a clock that never reaches
    /// the deadline, a manual one in a test, the task and the clock would never be freed).
    package func cancelSleeper() {
        sleeper?.task.cancel()
    }

    /// Cancels the sleeper and drops every deadline; returns their actions, earliest first.
    package mutating func removeAll() -> [Action] {
        sleeper?.task.cancel()
        sleeper = nil
        var actions: [Action] = []
        while let entry = heap.pop() {
            if let action = pending.removeValue(forKey: entry.element) { actions.append(action) }
        }
        pending = [:]
        return actions
    }

    private mutating func dropCancelledTop() {
        while let top = heap.top, pending[top.element] == nil { heap.pop() }
    }
}

/// An actor with one ``DeadlineSchedule``: it starts the sleeper and runs each action on itself.
package protocol DeadlineOwner: Actor {
    associatedtype DeadlineAction: Sendable
    /// The owner's deadlines; touched only through the members below.
    var deadlines: DeadlineSchedule<DeadlineAction> { get set }
    /// Starts the sleeper task (on the owner's task starter or task registry); nil when the
    /// owner starts no more tasks.
    nonisolated func startDeadlineSleeper(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never>?
    /// Takes the action of a deadline that passed.
    func deadlinePassed(_ action: DeadlineAction) async
}

extension DeadlineOwner {
    /// Adds a deadline at elapsed time `deadline` and makes sure a sleeper wakes for it.
    @discardableResult
    package func addDeadline(at deadline: Duration, _ action: DeadlineAction) -> DeadlineSchedule<DeadlineAction>.ID {
        let id = deadlines.add(at: deadline, action)
        armDeadlineSleeper()
        return id
    }

    /// Adds a deadline `delay` from now.
    @discardableResult
    package func addDeadline(after delay: Duration, _ action: DeadlineAction) -> DeadlineSchedule<DeadlineAction>.ID {
        addDeadline(at: deadlines.now() + delay, action)
    }

    /// Removes a deadline that has not passed (nothing when it has, or `id` is nil).
    package func cancelDeadline(_ id: DeadlineSchedule<DeadlineAction>.ID?) {
        deadlines.cancel(id)
    }

    private func armDeadlineSleeper() {
        // Most deadlines are served by the running sleeper: no closure (and no weak reference,
        // which costs a side table's bookkeeping) unless a new one is needed.
        guard deadlines.needsSleeper() else { return }
        deadlines.arm(startedBy: startDeadlineSleeper) { [weak self] generation in await self?.deadlinesPassed(generation) }
    }

    /// Runs every action whose deadline has passed, earliest first, then sleeps again if
    /// deadlines are left.
    private func deadlinesPassed(_ generation: UInt64) async {
        deadlines.sleeperWoke(generation)
        while let action = deadlines.popDue() { await deadlinePassed(action) }
        armDeadlineSleeper()
    }
}
