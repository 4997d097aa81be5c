/// Starts the unstructured tasks of an engine or a device kit — bearer readers, deadline timers,
/// cancellation clean-ups — on the executor the world they run in prefers.
///
/// An unstructured `Task { }` runs on the global executor and does not inherit the executor
/// preference of the task that starts it. That is right on a phone or a gateway, but code run
/// inside a deterministic simulation would then leave it: its timers and readers would run at
/// real-time speed, in a different order each run. So every component that starts tasks takes a
/// starter where it is built (an ATT engine from its bearer, a kit from its
/// `PeripheralConnection`), and a simulation hands out one bound to its executor.
///
/// ``default`` starts plain `Task { }`s.
public struct TaskStarter: Sendable {
    /// The preferred `TaskExecutor`, or nil for the global executor. Held as an object rather than
    /// `any TaskExecutor` so the type exists on systems without task executors (iOS 16).
    private let preferred: (any AnyObject & Sendable)?
    /// Where the tasks are registered until they end, when the world they run in keeps a
    /// register (a simulation, which ends them when it ends).
    private let register: StartedTasks?

    private init(preferred: (any AnyObject & Sendable)?) {
        self.preferred = preferred
        self.register = nil
    }

    /// Starts tasks as `Task { }` does, on the global executor.
    public static let `default` = TaskStarter(preferred: nil)

    /// Starts tasks with a preference for `executor` (`Task(executorPreference:)`).
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public init(executor: any TaskExecutor) {
        self.preferred = executor
        self.register = nil
    }

    /// Starts tasks with a preference for `executor` and keeps each in `register` until it ends.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    package init(executor: any TaskExecutor, register: StartedTasks) {
        self.preferred = executor
        self.register = register
    }

    /// The executor tasks prefer, or nil for the global executor.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public var executor: (any TaskExecutor)? { preferred as? any TaskExecutor }

    /// Whether tasks go to the global executor (this is ``default``).
    public var isDefault: Bool { preferred == nil }

    /// Starts `operation` as an unstructured task on the preferred executor.
    @discardableResult
    public func start<Success: Sendable>(_ operation: @escaping @Sendable () async -> Success) -> Task<Success, Never> {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *), let executor = preferred as? any TaskExecutor {
            guard let register else { return Task(executorPreference: executor, operation: operation) }
            let entry = register.reserve()
            let task = Task(executorPreference: executor) {
                defer { register.remove(entry) }
                return await operation()
            }
            register.fill(entry, cancel: { task.cancel() })
            return task
        }
        return Task(operation: operation)
    }
}

/// The tasks ``TaskStarter``s started in one world and that have not ended, kept so that the
/// world can cancel them when it ends. A simulation keeps one: once it is over, its executor never
/// runs their jobs again, so a task still waiting there would be leaked with all it holds.
package final class StartedTasks: Sendable {
    /// How to cancel each running task, by entry (nil between reserving the entry and the start).
    private let state = Locked((last: UInt64(0), cancels: [UInt64: (@Sendable () -> Void)?](), ended: false))

    /// An empty register.
    package init() {}

    /// A new entry, made before its task starts (so a task that ends at once finds it).
    fileprivate func reserve() -> UInt64 {
        state.withLock { state in
            state.last += 1
            state.cancels[state.last] = .some(nil)
            return state.last
        }
    }

    /// Records how to cancel the task of `entry`; nothing when the task has ended already. Once
    /// the world has ended (``endAll()``), the task is cancelled at once instead.
    fileprivate func fill(_ entry: UInt64, cancel: @escaping @Sendable () -> Void) {
        let cancelNow = state.withLock { state in
            guard let index = state.cancels.index(forKey: entry) else { return false }
            state.cancels.values[index] = cancel
            return state.ended
        }
        if cancelNow { cancel() }
    }

    /// Removes `entry` as its task ends.
    fileprivate func remove(_ entry: UInt64) {
        _ = state.withLock { $0.cancels.removeValue(forKey: entry) }
    }

    /// Cancels every registered task that has not ended, and from now on every task started
    /// with this register as soon as it starts (the world has ended).
    package func endAll() {
        let cancels = state.withLock { state in
            state.ended = true
            return state.cancels.values.compactMap { $0 }
        }
        for cancel in cancels { cancel() }
    }
}

extension TaskStarter: Equatable {
    /// Two starters are equal when they prefer the same executor (or both none).
    public static func == (lhs: TaskStarter, rhs: TaskStarter) -> Bool { lhs.preferred === rhs.preferred }
}

/// A ``TaskStarter`` that counts the tasks it starts, so a test can show which work starts
/// tasks (an engine's reader and timer sleeper) and which does not (its requests).
package struct CountingTaskStarter: Sendable {
    /// Starts the tasks.
    package let starter: TaskStarter
    private let started = Locked(0)

    package init(_ starter: TaskStarter) { self.starter = starter }

    /// Tasks started so far.
    package var count: Int { started.withLock { $0 } }

    /// Starts `operation` as ``TaskStarter/start(_:)`` does, counting it.
    @discardableResult
    package func start<Success: Sendable>(_ operation: @escaping @Sendable () async -> Success) -> Task<Success, Never> {
        started.withLock { $0 += 1 }
        return starter.start(operation)
    }
}
