import HaraldCore
import Testing

/// The one timer mechanism below the public API: a heap of deadlines per engine, served by at
/// most one sleeping task.
@Suite("DeadlineSchedule", .timeLimit(.minutes(1)))
struct DeadlineScheduleTests {
    /// A clock that moves only when the test says; sleepers wake when it passes their deadline.
    final class StepClock: Clock, Sendable {
        struct Instant: InstantProtocol {
            var offset: Duration
            func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
            func duration(to other: Instant) -> Duration { other.offset - offset }
            static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        }
        private struct State {
            var now = Instant(offset: .zero)
            var nextID: UInt64 = 0
            var sleepers: [UInt64: (deadline: Instant, continuation: CheckedContinuation<Void, any Error>)] = [:]
            /// Sleepers whose task was cancelled before they registered.
            var cancelledEarly: Set<UInt64> = []
        }
        private let state = Locked(State())
        var now: Instant { state.withLock { $0.now } }
        var minimumResolution: Duration { .zero }
        var sleeperCount: Int { state.withLock { $0.sleepers.count } }

        /// Sleeps until the deadline; a cancelled sleeper throws at once and is forgotten.
        func sleep(until deadline: Instant, tolerance: Duration?) async throws {
            let id = state.withLock { state -> UInt64 in
                state.nextID += 1
                return state.nextID
            }
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let outcome = state.withLock { state -> Result<Void, any Error>? in
                        if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                        if deadline <= state.now { return .success(()) }
                        state.sleepers[id] = (deadline, continuation)
                        return nil
                    }
                    if let outcome { continuation.resume(with: outcome) }
                }
            } onCancel: {
                let sleeper = state.withLock { state in
                    let sleeper = state.sleepers.removeValue(forKey: id)
                    if sleeper == nil { state.cancelledEarly.insert(id) }
                    return sleeper
                }
                sleeper?.continuation.resume(throwing: CancellationError())
            }
        }

        func advance(by duration: Duration) {
            let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
                state.now = state.now.advanced(by: duration)
                let now = state.now
                let due = state.sleepers.filter { $0.value.deadline <= now }
                for id in due.keys { state.sleepers[id] = nil }
                return due.values.map(\.continuation)
            }
            for continuation in due { continuation.resume() }
        }
    }

    /// An engine with one schedule that records what passed and how many sleepers it started.
    actor Engine: DeadlineOwner {
        var deadlines: DeadlineSchedule<String>
        private(set) var passed: [String] = []
        private let starts = Locked(0)
        nonisolated var sleepersStarted: Int { starts.withLock { $0 } }

        init(clock: StepClock) { deadlines = DeadlineSchedule(clock: clock) }
        // As the library's engines do: a released engine leaves no sleeper on its clock.
        deinit { deadlines.cancelSleeper() }

        nonisolated func startDeadlineSleeper(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never>? {
            starts.withLock { $0 += 1 }
            return Task(operation: work)
        }

        func deadlinePassed(_ action: String) async { passed.append(action) }

        func add(_ name: String, after delay: Duration) -> DeadlineSchedule<String>.ID { addDeadline(after: delay, name) }
        func cancel(_ id: DeadlineSchedule<String>.ID) { cancelDeadline(id) }
        var hasSleeper: Bool { deadlines.hasSleeper }
        var pendingCount: Int { deadlines.count }
    }

    @Test func deadlinesPassInDeadlineOrderAndEqualOnesInTheOrderAdded() {
        let clock = StepClock()
        var schedule = DeadlineSchedule<String>(clock: clock)
        _ = schedule.add(at: .seconds(3), "c")
        _ = schedule.add(at: .seconds(1), "a1")
        _ = schedule.add(at: .seconds(1), "a2")
        _ = schedule.add(at: .seconds(2), "b")
        #expect(schedule.popDue() == nil, "nothing has passed at time zero")
        clock.advance(by: .seconds(2))
        var passed: [String] = []
        while let action = schedule.popDue() { passed.append(action) }
        #expect(passed == ["a1", "a2", "b"])
        #expect(schedule.count == 1)
    }

    @Test func aCancelledDeadlineNeverPasses() {
        let clock = StepClock()
        var schedule = DeadlineSchedule<String>(clock: clock)
        let early = schedule.add(at: .seconds(1), "early")
        _ = schedule.add(at: .seconds(2), "late")
        #expect(schedule.cancel(early) == "early")
        #expect(schedule.cancel(early) == nil, "a second cancel finds nothing")
        clock.advance(by: .seconds(5))
        #expect(schedule.popDue() == "late")
        #expect(schedule.popDue() == nil)
    }

    @Test func aSleeperIsStartedOnlyForADeadlineEarlierThanTheOneItWakesFor() {
        let clock = StepClock()
        var schedule = DeadlineSchedule<String>(clock: clock)
        var started: [Task<Void, Never>] = []
        func arm() {
            schedule.arm(startedBy: { work in
                let task = Task(operation: work)
                started.append(task)
                return task
            }) { _ in }
        }
        _ = schedule.add(at: .seconds(10), "ten")
        arm()
        #expect(started.count == 1)
        _ = schedule.add(at: .seconds(20), "twenty")
        arm()
        #expect(started.count == 1, "the sleeper for 10 s wakes in time for 20 s")
        _ = schedule.add(at: .seconds(5), "five")
        arm()
        #expect(started.count == 2, "5 s is earlier than the sleeper's 10 s")
        #expect(started[0].isCancelled, "the replaced sleeper is cancelled")
        #expect(!started[1].isCancelled)
        for task in started { task.cancel() }
    }

    @Test func aSleeperOutlivesTheLastCancelledDeadlineAndEndsAtItsTimeHavingRunNothing() async {
        let clock = StepClock()
        let engine = Engine(clock: clock)
        let id = await engine.add("answered", after: .seconds(10))
        await engine.cancel(id)
        #expect(await engine.hasSleeper, "kept for the next request")
        while clock.sleeperCount < 1 { await Task.yield() }
        clock.advance(by: .seconds(10))
        while await engine.hasSleeper { await Task.yield() }
        #expect(await engine.passed.isEmpty)
        #expect(engine.sleepersStarted == 1)
    }

    @Test func requestsThatFinishBeforeTheirDeadlineShareOneSleeper() async {
        let clock = StepClock()
        let engine = Engine(clock: clock)
        // Each request adds its deadline and cancels it on the answer, one after the other.
        for index in 0..<100 {
            let id = await engine.add("request \(index)", after: .seconds(30))
            await engine.cancel(id)
        }
        #expect(engine.sleepersStarted == 1)
        #expect(await engine.pendingCount == 0)
    }

    @Test func aPassedDeadlineRunsItsActionOnTheOwnerAndTheSleeperMovesToTheNext() async {
        let clock = StepClock()
        let engine = Engine(clock: clock)
        _ = await engine.add("first", after: .seconds(1))
        _ = await engine.add("second", after: .seconds(3))
        while clock.sleeperCount < 1 { await Task.yield() }
        clock.advance(by: .seconds(1))
        while await engine.passed != ["first"] { await Task.yield() }
        // The sleeper that woke for the first starts one for the second.
        while clock.sleeperCount < 1 { await Task.yield() }
        #expect(engine.sleepersStarted == 2)
        clock.advance(by: .seconds(2))
        while await engine.passed.count < 2 { await Task.yield() }
        #expect(await engine.passed == ["first", "second"])
        #expect(await !engine.hasSleeper, "an engine with no deadline keeps no sleeper")
    }

    @Test func aSleeperThatWakesForACancelledDeadlineSleepsOnToTheNext() async {
        let clock = StepClock()
        let engine = Engine(clock: clock)
        let early = await engine.add("early", after: .seconds(1))
        _ = await engine.add("late", after: .seconds(4))
        await engine.cancel(early)
        while clock.sleeperCount < 1 { await Task.yield() }
        clock.advance(by: .seconds(1))
        while engine.sleepersStarted < 2 { await Task.yield() }
        #expect(await engine.passed.isEmpty, "nothing was due at 1 s")
        while clock.sleeperCount < 1 { await Task.yield() }
        clock.advance(by: .seconds(3))
        while await engine.passed.isEmpty { await Task.yield() }
        #expect(await engine.passed == ["late"])
    }

    @Test func aWokenSleeperTakesOutEveryPassedDeadlineEarliestFirstAndIsForgotten() async {
        let clock = StepClock()
        var schedule = DeadlineSchedule<String>(clock: clock)
        _ = schedule.add(at: .seconds(2), "b")
        _ = schedule.add(at: .seconds(1), "a")
        _ = schedule.add(at: .seconds(9), "later")
        let woke = Locked<UInt64?>(nil)
        schedule.arm(startedBy: { Task(operation: $0) }) { generation in woke.withLock { $0 = generation } }
        while clock.sleeperCount < 1 { await Task.yield() }
        clock.advance(by: .seconds(3))
        while woke.value == nil { await Task.yield() }
        #expect(schedule.takeDue(afterSleeperWoke: woke.value!) == ["a", "b"])
        #expect(!schedule.hasSleeper, "the sleeper that woke is forgotten, so the next arm starts one")
        #expect(schedule.count == 1)
    }

    @Test func cancelSleeperStopsTheSleeperAndKeepsTheDeadlines() {
        let clock = StepClock()
        var schedule = DeadlineSchedule<String>(clock: clock)
        _ = schedule.add(at: .seconds(1), "a")
        var started: Task<Void, Never>?
        schedule.arm(startedBy: { work in
            started = Task(operation: work)
            return started
        }) { _ in }
        schedule.cancelSleeper()
        #expect(started?.isCancelled == true)
        #expect(schedule.count == 1)
    }

    @Test func aReleasedOwnerLeavesNoSleeperOnItsClock() async {
        let clock = StepClock()
        var engine: Engine? = Engine(clock: clock)
        let id = await engine!.add("answered", after: .seconds(30))
        await engine!.cancel(id)
        while clock.sleeperCount < 1 { await Task.yield() }
        engine = nil
        #expect(clock.sleeperCount == 0, "the sleeper was cancelled, not left until its 30 s")
    }

    @Test func removeAllReturnsThePendingActionsEarliestFirstAndStopsTheSleeper() {
        let clock = StepClock()
        var schedule = DeadlineSchedule<String>(clock: clock)
        _ = schedule.add(at: .seconds(2), "b")
        let cancelled = schedule.add(at: .seconds(1), "x")
        _ = schedule.add(at: .seconds(1), "a")
        schedule.cancel(cancelled)
        schedule.arm(startedBy: { Task(operation: $0) }) { _ in }
        #expect(schedule.removeAll() == ["a", "b"])
        #expect(!schedule.hasSleeper)
        #expect(schedule.count == 0)
    }
}
