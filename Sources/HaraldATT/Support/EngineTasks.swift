/// Starts the engines' background tasks (bearer readers, deadline timers, cancellation clean-ups)
/// on the task executor their owner prefers.
///
/// An unstructured `Task { }` does not inherit a task executor preference, so without this an
/// engine created inside a deterministic simulation would run its timers and readers on the
/// global executor, at real-time speed and in a different order each run. A simulation sets
/// ``preferredExecutor`` for the code it runs; task-local values are copied into unstructured
/// tasks, so every engine task started from inside — and every task those start — stays on the
/// simulation's executor. Outside a simulation this is a plain `Task { }`.
public enum EngineTasks {
    /// The `TaskExecutor` engine tasks should run on, or nil for the default. Stored as
    /// `any Sendable` so the module builds for systems without task executors (iOS 16); values
    /// that are not a `TaskExecutor` are ignored.
    @TaskLocal public static var preferredExecutor: (any Sendable)?

    /// Starts `operation` as an unstructured task on ``preferredExecutor`` when one is set and
    /// the system supports task executors, otherwise as `Task { }` would.
    @discardableResult
    public static func start<Success: Sendable>(_ operation: @escaping @Sendable () async -> Success) -> Task<Success, Never> {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *), let executor = preferredExecutor as? any TaskExecutor {
            return Task(executorPreference: executor, operation: operation)
        }
        return Task(operation: operation)
    }
}
