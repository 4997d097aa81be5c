import Foundation
import HaraldCore

/// Why a simulation run ended without a result.
public enum SimulationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nothing could run, no timer was pending and the body had not finished: the code under
    /// test waits for something that will never happen (a deadlock, or a missing timeout).
    case stalled(at: VirtualInstant)
    /// The body was still running when virtual time passed the run's limit.
    case timeLimitExceeded(limit: Duration)

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
/// Code that starts an unstructured `Task { }` leaves the simulation: that task runs on the
/// global executor at real-time speed. Code meant to run under simulation uses structured
/// concurrency or starts its tasks with the simulation's ``taskStarter``, which its clock also
/// carries (``VirtualClock/taskStarter``): the simulator's bearers hand it to the GATT engines,
/// and its connections to the device kits (`PeripheralConnection.taskStarter`).
///
/// ```swift
/// let simulation = Simulation()
/// let value = try simulation.run {
///     try await connection.read(.batteryLevel)
/// }
/// ```
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
public final class Simulation: @unchecked Sendable {
    // @unchecked Sendable: `clock` and `executor` are themselves thread-safe; `Simulation` has no
    // other mutable state.

    /// The simulation's time source; inject it into the code under test.
    public let clock: VirtualClock
    /// The executor that runs every job of a run.
    public let executor: SimulationExecutor
    /// How long, in real time, a run waits for work that escaped to other threads before calling
    /// the run stalled.
    public var stallGrace: Duration = .seconds(2)

    public init(clock: VirtualClock = VirtualClock()) {
        self.clock = clock
        self.executor = SimulationExecutor()
        clock.setSleepObserver { [executor] in executor.signal() }
        clock.setTaskStarter(TaskStarter(executor: executor))
    }

    /// Starts tasks on this simulation's executor, so they run in the simulation.
    public var taskStarter: TaskStarter { TaskStarter(executor: executor) }

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
        let outcome = OutcomeBox<Result>()
        let deadline = clock.now.advanced(by: timeLimit)
        let task = Task(executorPreference: executor) {
            do {
                let result = try await body()
                outcome.set(.success(result))
            } catch { outcome.set(.failure(error)) }
            self.executor.signal()
        }
        while true {
            executor.runUntilIdle()
            if outcome.hasValue, let result = outcome.value { return try result.get() }
            if let next = clock.nextDeadline {
                if next > deadline {
                    task.cancel()
                    drainAfterCancel(outcome)
                    throw SimulationError.timeLimitExceeded(limit: timeLimit)
                }
                clock.advanceToNextDeadline()
                continue
            }
            // Idle with no timer: wait briefly for work running on other threads, if any.
            if executor.waitForWork(realTimeout: stallGrace) { continue }
            task.cancel()
            drainAfterCancel(outcome)
            throw SimulationError.stalled(at: clock.now)
        }
    }

    /// After cancelling the body, runs what cancellation made ready so no job is left queued.
    private func drainAfterCancel<Result>(_ outcome: OutcomeBox<Result>) {
        for _ in 0..<1000 {
            executor.runUntilIdle()
            if outcome.hasValue { return }
            guard clock.advanceToNextDeadline() else { return }
        }
    }
}

/// The single-threaded task executor behind ``Simulation``: it queues jobs and runs them only
/// when the simulation drains it.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
public final class SimulationExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked Sendable: `incoming`, `pendingSignal` and `waiters` are guarded by
    // `condition`'s lock; `batch`, `batchIndex` and `jobsRun` belong to the thread that drains
    // the executor (`runUntilIdle`, one caller at a time: the run loop); jobs run outside the lock.
    private let condition = NSCondition()
    /// Jobs enqueued since the drainer last took them, in arrival order.
    private var incoming: [UnownedJob] = []
    /// The jobs being run, taken from `incoming` in one go (one lock per batch, not per job).
    private var batch: [UnownedJob] = []
    private var batchIndex = 0
    private var pendingSignal = false
    /// Threads blocked in `waitForWork`; enqueue and signal wake only when someone waits.
    private var waiters = 0

    /// Jobs run so far, across all runs.
    public private(set) var jobsRun = 0

    public init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        incoming.append(unowned)
        if waiters > 0 { condition.signal() }
        condition.unlock()
    }

    public func asUnownedTaskExecutor() -> UnownedTaskExecutor { UnownedTaskExecutor(ordinary: self) }

    /// Runs queued jobs, first in first out, until none is left.
    ///
    /// Jobs are taken in batches: everything queued so far runs in order, then everything those
    /// jobs queued, and so on — the same order as taking them one at a time.
    internal func runUntilIdle() {
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            if incoming.isEmpty {
                condition.unlock()
                return
            }
            // Swap buffers so neither array reallocates in steady state.
            swap(&incoming, &batch)
            condition.unlock()
            batchIndex = 0
            while batchIndex < batch.count {
                let job = batch[batchIndex]
                batchIndex += 1
                job.runSynchronously(on: executor)
                jobsRun += 1
            }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// Wakes a waiting ``waitForWork(realTimeout:)``.
    internal func signal() {
        condition.lock()
        pendingSignal = true
        if waiters > 0 { condition.signal() }
        condition.unlock()
    }

    /// Waits up to `realTimeout` of wall-clock time for a job or a signal; true if one came.
    internal func waitForWork(realTimeout: Duration) -> Bool {
        let seconds = Double(realTimeout.components.seconds) + Double(realTimeout.components.attoseconds) * 1e-18
        let limit = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        waiters += 1
        while incoming.isEmpty && !pendingSignal {
            if !condition.wait(until: limit) { break }
        }
        waiters -= 1
        let woke = !incoming.isEmpty || pendingSignal
        pendingSignal = false
        return woke
    }
}

/// The result of a run's body, written once from whichever thread finishes it.
private final class OutcomeBox<Value>: @unchecked Sendable {
    // @unchecked Sendable: `stored` is only accessed with `lock` held.
    // `isSet` too, so the run loop's check after each batch of jobs costs no generic copy.
    private let lock = NSLock()
    private var stored: Result<Value, any Error>?
    private var isSet = false

    var value: Result<Value, any Error>? {
        lock.lock()
        defer { lock.unlock() }
        return isSet ? stored : nil
    }

    /// True once the body has finished.
    var hasValue: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isSet
    }

    func set(_ result: Result<Value, any Error>) {
        lock.lock()
        stored = result
        isSet = true
        lock.unlock()
    }
}
