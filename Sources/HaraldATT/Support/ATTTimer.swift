import HaraldCore

/// An injected clock reduced to what the engines need: elapsed time since the engine started
/// and sleeping until such a time. Deadlines are plain durations, so engines hold no generic
/// clock type and tests can pass a manual clock.
struct ATTTimer: Sendable {
    /// Time elapsed on the clock since the timer was made.
    let now: @Sendable () -> Duration
    /// Sleeps until `now()` reaches the given elapsed time; throws when cancelled.
    let sleep: @Sendable (Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        now = { origin.duration(to: clock.now) }
        sleep = { deadline in try await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil) }
    }

    /// A task, started by `starter`, that calls `action` once the deadline passes, unless
    /// cancelled first.
    func schedule(at deadline: Duration, startedBy starter: TaskStarter, _ action: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        starter.start {
            do { try await sleep(deadline) } catch { return }
            if Task.isCancelled { return }
            await action()
        }
    }
}
