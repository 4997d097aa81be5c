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

    private init(preferred: (any AnyObject & Sendable)?) { self.preferred = preferred }

    /// Starts tasks as `Task { }` does, on the global executor.
    public static let `default` = TaskStarter(preferred: nil)

    /// Starts tasks with a preference for `executor` (`Task(executorPreference:)`).
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public init(executor: any TaskExecutor) { self.preferred = executor }

    /// The executor tasks prefer, or nil for the global executor.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public var executor: (any TaskExecutor)? { preferred as? any TaskExecutor }

    /// Whether tasks go to the global executor (this is ``default``).
    public var isDefault: Bool { preferred == nil }

    /// Starts `operation` as an unstructured task on the preferred executor.
    @discardableResult
    public func start<Success: Sendable>(_ operation: @escaping @Sendable () async -> Success) -> Task<Success, Never> {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *), let executor = preferred as? any TaskExecutor {
            return Task(executorPreference: executor, operation: operation)
        }
        return Task(operation: operation)
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
