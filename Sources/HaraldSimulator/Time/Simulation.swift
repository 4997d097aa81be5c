import Foundation
import HaraldCore
import Synchronization

/// Why a simulation run ended without a result.
public enum SimulationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nothing could run, no timer was pending and the body had not finished: the code under
    /// test waits for something that will never happen (a deadlock, or a missing timeout).
    case stalled(at: VirtualInstant)
    /// The body was still running when virtual time passed the run's limit.
    case timeLimitExceeded(limit: Duration)

    /// Why the run ended, with the virtual time involved, e.g.
    /// `simulation stalled at t+30.0 seconds: nothing can run and no timer is pending`.
    public var description: String {
        switch self {
        case let .stalled(instant): "simulation stalled at \(instant): nothing can run and no timer is pending"
        case let .timeLimitExceeded(limit): "simulation still running after \(limit) of virtual time"
        }
    }
}

/// Runs async code deterministically in virtual time.
///
/// Every task of the run — the body, its child tasks, and every default actor they call — runs
/// on one thread, one job at a time, in the order the jobs became ready. When no job is ready,
/// the ``VirtualClock`` jumps to the next deadline. So a 30-second ATT timeout takes microseconds,
/// and two runs of the same code see the same interleaving and the same times.
///
/// An unstructured `Task { }` leaves the simulation (it runs on the global executor, in real
/// time): start background work with ``taskStarter`` or as child tasks. The rules that keep a run
/// deterministic are listed in the Harald documentation's article "Concurrency model".
///
/// ```swift
/// let simulation = Simulation()
/// let value = try simulation.run {
///     try await connection.read(.batteryLevel)
/// }
/// ```
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
public final class Simulation: Sendable {

    /// The simulation's time source; inject it into the code under test.
    public let clock: VirtualClock
    /// The executor that runs every job of a run.
    public let executor: SimulationExecutor
    /// How long, in real time, a run waits for work that escaped to other threads before calling
    /// the run stalled.
    public var stallGrace: Duration {
        get { grace.value }
        set { grace.withLock { $0 = newValue } }
    }
    private let grace = Locked(Duration.seconds(2))
    /// The tasks started through ``taskStarter`` (and the clock's) that have not ended.
    private let startedTasks = StartedTasks()

    /// A simulation on `clock`, at virtual time zero unless the clock has run.
    public init(clock: VirtualClock = VirtualClock()) {
        self.clock = clock
        self.executor = SimulationExecutor()
        clock.setSleepObserver { [executor] in executor.signal() }
        clock.setTaskStarter(TaskStarter(executor: executor, register: startedTasks))
    }

    /// Starts tasks on this simulation's executor, so they run in the simulation.
    public var taskStarter: TaskStarter { TaskStarter(executor: executor, register: startedTasks) }

    /// Runs `body` to completion in virtual time and returns its result.
    ///
    /// Blocks the calling thread, which executes every job of the run. Throws what `body` throws,
    /// ``SimulationError/stalled(at:)`` when the run can make no progress, and
    /// ``SimulationError/timeLimitExceeded(limit:)`` when virtual time passes `timeLimit` (the body's
    /// task is then cancelled and drained, so nothing is left running).
    public func run<Result: Sendable>(
        timeLimit: Duration = .seconds(24 * 3600),
        _ body: @escaping @Sendable () async throws -> Result
    ) throws -> Result {
        try run(timeLimit: timeLimit, body, started: { _ in })
    }

    /// The blocking run; `started` is told the body's task as soon as it exists.
    private func run<Result: Sendable>(
        timeLimit: Duration, _ body: @escaping @Sendable () async throws -> Result, started: (Task<Void, Never>) -> Void
    ) throws -> Result {
        // The body's result, written once from whichever thread finishes it; and a flag set after
        // it, so the check after each batch of jobs costs no copy of a generic value.
        let outcome = Locked<Swift.Result<Result, any Error>?>(nil)
        let finished = FinishFlag()
        let deadline = clock.now.advanced(by: timeLimit)
        let task = Task(executorPreference: executor) {
            do {
                let result = try await body()
                outcome.withLock { $0 = .success(result) }
            } catch { outcome.withLock { $0 = .failure(error) } }
            finished.set()
            self.executor.signal()
        }
        started(task)
        while true {
            executor.runUntilIdle()
            if finished.isSet, let result = outcome.withLock({ $0 }) { return try result.get() }
            switch clock.advanceToNextDeadline(notAfter: deadline) {
            case .advanced: continue
            case .pastLimit:
                task.cancel()
                drainAfterCancel(finished)
                throw SimulationError.timeLimitExceeded(limit: timeLimit)
            case .idle: break
            }
            // Idle with no timer: wait briefly for work running on other threads, if any.
            if executor.waitForWork(realTimeout: stallGrace) { continue }
            task.cancel()
            drainAfterCancel(finished)
            throw SimulationError.stalled(at: clock.now)
        }
    }

    /// Runs `body` to completion in virtual time, like the blocking ``run(timeLimit:_:)``, on a
    /// thread of its own, and suspends the caller until it has.
    ///
    /// Use it from async code (a `swift-testing` test, an app): the blocking form would hold one
    /// of the few threads of Swift's cooperative pool for the whole run, and other work waiting
    /// for that pool (another test's host, a timer) would stall behind it. Cancelling the calling
    /// task cancels the body's task. Throws what the blocking form throws.
    ///
    /// At most as many awaited runs as the machine has active processors run at once, each on its
    /// thread; later ones wait for a turn, suspended, in the order they came (a caller cancelled
    /// while it waits throws `CancellationError`). Without that bound, a test suite's simulations
    /// would all run at once on threads of their own and starve everything else of the CPU.
    public func run<Result: Sendable>(
        timeLimit: Duration = .seconds(24 * 3600),
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        guard await Self.runTurns.take() else { throw CancellationError() }
        defer { Self.runTurns.end() }
        let started = Locked<(task: Task<Void, Never>?, cancelled: Bool)>((nil, false))
        // The thread lets go of the simulation and the body before it resumes the caller, so
        // that, as with the blocking form, nothing of the run is left alive once `run` returns.
        let work = Locked<(simulation: Simulation, body: @Sendable () async throws -> Result)?>((self, body))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
                let thread = Thread {
                    continuation.resume(with: Self.runTaking(work, timeLimit: timeLimit, started: started))
                }
                thread.name = "Harald simulation"
                thread.stackSize = Self.runThreadStackSize
                thread.start()
            }
        } onCancel: {
            started.withLock { started -> Task<Void, Never>? in
                started.cancelled = true
                return started.task
            }?.cancel()
        }
    }

    /// Takes the simulation and the body out of `work` and runs them, blocking; when it returns,
    /// it holds neither, nor the body's task.
    private static func runTaking<Result: Sendable>(
        _ work: Locked<(simulation: Simulation, body: @Sendable () async throws -> Result)?>, timeLimit: Duration,
        started: Locked<(task: Task<Void, Never>?, cancelled: Bool)>
    ) -> Swift.Result<Result, any Error> {
        guard
            let (simulation, body) = work.withLock({ work in
                defer { work = nil }; return work
            })
        else {
            return .failure(CancellationError())
        }
        defer { started.withLock { $0.task = nil } }
        return Swift.Result {
            try simulation.run(timeLimit: timeLimit, body) { task in
                let cancelled = started.withLock { started in
                    started.task = task
                    return started.cancelled
                }
                if cancelled { task.cancel() }
            }
        }
    }

    /// The awaited runs under way, at most one per active processor.
    static let runTurns = Turns(width: ProcessInfo.processInfo.activeProcessorCount)

    /// The stack of a thread that runs a simulation for an async caller: the main thread's usual
    /// 8 MiB, since the jobs of a whole world (and the tests' deep `#expect` expansions) run on it.
    static let runThreadStackSize = 8 << 20

    /// Ends the simulated world. Nothing moves its time or runs its jobs once the simulation is
    /// gone, so a task still waiting in it (a server reading a link that was never closed, a
    /// device's script sleeping until its next sample) could never finish and would be leaked
    /// with everything it holds. So:
    /// - every ``SimulatedLink`` still open closes (`closed: the simulation ended`), as when the
    ///   radio goes away, and what reads it handles the close;
    /// - every task started through ``taskStarter`` (or the clock's) is cancelled, and so is
    ///   every task started that way from now on, as it starts;
    /// - what is left on the clock ends: sleepers throw `CancellationError`, timer actions are
    ///   dropped unrun;
    /// - the jobs this makes ready run here, until a round changes nothing;
    /// - a job enqueued later (a handle released after the simulation, whose `deinit` starts a
    ///   task to close its link) runs at once on a global thread, where its cancelled task
    ///   unwinds, instead of waiting for a run that will never come.
    deinit {
        // Links first, so their readers see them close as on a real disconnection and let go of
        // what they hold; then whatever still waits is cancelled.
        _ = clock.runEndActions()
        executor.runUntilIdle()
        for _ in 0..<1000 {
            let jobsBefore = executor.jobsRun
            startedTasks.endAll()
            executor.runUntilIdle()
            let ended = clock.runEndActions() + clock.endTimers()
            executor.runUntilIdle()
            if ended == 0 && executor.jobsRun == jobsBefore { break }
        }
        executor.runLateJobsElsewhere()
    }

    /// After cancelling the body, runs what cancellation made ready so no job is left queued.
    private func drainAfterCancel(_ finished: FinishFlag) {
        for _ in 0..<1000 {
            executor.runUntilIdle()
            if finished.isSet { return }
            guard clock.advanceToNextDeadline() else { return }
        }
    }
}

/// Set once when a run's body has finished; read after every batch of jobs, so an atomic rather
/// than a lock.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
private final class FinishFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .releasing) }
    var isSet: Bool { flag.load(ordering: .acquiring) }
}

/// The single-threaded task executor behind ``Simulation``: it queues jobs and runs them only
/// when the simulation drains it.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
public final class SimulationExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: every stored `var` is read and written only with `condition`'s lock
    // held (the signal flag and the waiter count are atomics); jobs run outside the lock, on a batch the draining thread took out of `incoming`.
    // (An NSCondition rather than `Locked`: `waitForWork` needs a condition variable.)
    private let condition = NSCondition()
    /// Jobs enqueued since the drainer last took them, in arrival order.
    private var incoming: [UnownedJob] = []
    /// An empty array with capacity, swapped in for `incoming` when a batch is taken, so neither
    /// buffer reallocates in steady state.
    private var spare: [UnownedJob] = []
    /// Set by `signal` (a timer registered, the body finished) and taken by `waitForWork`. Atomic,
    /// with `waiters`, so that a signal nobody waits for costs no lock: the clock signals on
    /// every timer it registers, nearly always from the thread that runs the simulation.
    private let pendingSignal = Atomic<Bool>(false)
    /// Threads blocked in `waitForWork`; enqueue and signal wake only when someone waits.
    private let waiters = Atomic<Int>(0)
    private var jobCount = 0

    /// Jobs run so far, across all runs.
    public var jobsRun: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobCount
    }

    /// An executor with no jobs.
    public init() {}

    /// Queues a job; it runs when the simulation runs its jobs, in order. Once the simulation
    /// has ended, the job runs at once on a global thread instead (see ``Simulation``'s `deinit`).
    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        if simulationEnded {
            condition.unlock()
            runLate(unowned)
            return
        }
        incoming.append(unowned)
        if waiters.load(ordering: .sequentiallyConsistent) > 0 { condition.signal() }
        condition.unlock()
    }

    /// Set when the simulation has ended: jobs then run as they come, on global threads.
    private var simulationEnded = false

    /// Makes jobs enqueued from now on (and any still queued) run on global threads.
    internal func runLateJobsElsewhere() {
        condition.lock()
        simulationEnded = true
        let left = incoming
        incoming.removeAll()
        condition.unlock()
        for job in left { runLate(job) }
    }

    /// Runs a job that came after the simulation ended. The closure holds the executor, so it
    /// outlives the job.
    private func runLate(_ job: UnownedJob) {
        DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// The executor as tasks reference it.
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor { UnownedTaskExecutor(ordinary: self) }

    /// Runs queued jobs, first in first out, until none is left.
    ///
    /// Jobs are taken in batches: everything queued so far runs in order, then everything those
    /// jobs queued, and so on — the same order as taking them one at a time.
    internal func runUntilIdle() {
        let executor = asUnownedTaskExecutor()
        var batch: [UnownedJob] = []
        condition.lock()
        swap(&batch, &spare)
        while !incoming.isEmpty {
            // Take everything queued in one go (one lock per batch, not per job).
            swap(&incoming, &batch)
            condition.unlock()
            for job in batch { job.runSynchronously(on: executor) }
            let ran = batch.count
            batch.removeAll(keepingCapacity: true)
            condition.lock()
            jobCount += ran
        }
        swap(&batch, &spare)
        condition.unlock()
    }

    /// Wakes a waiting ``waitForWork(realTimeout:)``.
    internal func signal() {
        // Either this sees the waiter counted, and signals under the lock (which the waiter holds
        // from its check until it waits), or the waiter, counted later, sees the flag.
        pendingSignal.store(true, ordering: .sequentiallyConsistent)
        guard waiters.load(ordering: .sequentiallyConsistent) > 0 else { return }
        condition.lock()
        condition.signal()
        condition.unlock()
    }

    /// Waits up to `realTimeout` of wall-clock time for a job or a signal; true if one came.
    internal func waitForWork(realTimeout: Duration) -> Bool {
        let seconds = Double(realTimeout.components.seconds) + Double(realTimeout.components.attoseconds) * 1e-18
        let limit = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        waiters.add(1, ordering: .sequentiallyConsistent)
        while incoming.isEmpty && !pendingSignal.load(ordering: .sequentiallyConsistent) {
            if !condition.wait(until: limit) { break }
        }
        waiters.subtract(1, ordering: .sequentiallyConsistent)
        let signalled = pendingSignal.exchange(false, ordering: .sequentiallyConsistent)
        let woke = !incoming.isEmpty || signalled
        return woke
    }
}
