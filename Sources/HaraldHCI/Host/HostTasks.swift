import HaraldCore

/// The tasks an ``HCIHost`` runs beside its callers: the command sender, connection attempts and
/// their cancellation, timers, replies on the LE signaling and security channels, link set-up
/// after connecting, stopping a scan whose reader went away.
///
/// Each task is registered here for as long as it runs, so closing the host cancels every one of
/// them and can wait until none is left. The table sits behind a lock rather than on the host's
/// actor so that synchronous callbacks (a stream's termination handler, a cancellation handler)
/// can start a task and register it in one step, with no unregistered hop in between.
final class HostTasks: Sendable {
    private struct State {
        var running: [UInt64: Task<Void, Never>] = [:]
        var nextID: UInt64 = 0
        var isClosed = false
    }

    private let state = Locked(State())

    /// Starts `operation` as a registered task; nil (and nothing started) once the table is
    /// closed.
    @discardableResult
    func start(_ operation: @escaping @Sendable () async -> Void) -> Task<Void, Never>? {
        state.withLock { state in
            guard !state.isClosed else { return nil }
            return Self.register(operation, in: &state, owner: self)
        }
    }

    /// Refuses new tasks, cancels every running one, and starts `last` (not cancelled) as the
    /// final task, for the host's own clean-up. Only the first call does anything.
    func close(then last: @escaping @Sendable () async -> Void) {
        let cancelled: [Task<Void, Never>] = state.withLock { state in
            guard !state.isClosed else { return [] }
            state.isClosed = true
            let running = Array(state.running.values)
            Self.register(last, in: &state, owner: self)
            return running
        }
        for task in cancelled { task.cancel() }
    }

    /// Returns once every registered task has finished (including tasks they started meanwhile).
    func waitUntilIdle() async {
        while let task = state.withLock({ $0.running.values.first }) {
            await task.value
        }
    }

    /// Tasks running now.
    var count: Int { state.withLock { $0.running.count } }

    /// With the lock held: the task removes itself when done, which takes the lock and so waits
    /// until the entry is stored.
    @discardableResult
    private static func register(
        _ operation: @escaping @Sendable () async -> Void, in state: inout State, owner: HostTasks
    ) -> Task<Void, Never> {
        let id = state.nextID
        state.nextID += 1
        let task = Task {
            await operation()
            owner.finished(id)
        }
        state.running[id] = task
        return task
    }

    private func finished(_ id: UInt64) {
        state.withLock { _ = $0.running.removeValue(forKey: id) }
    }
}
