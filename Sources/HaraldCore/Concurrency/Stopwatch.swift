/// Time elapsed on a clock since the stopwatch was made: how code holding an `any Clock<Duration>`
/// (a virtual clock in simulations, a manual one in tests) measures how long it has been busy.
public struct Stopwatch: Sendable {
    private let read: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void

    /// Starts now on `clock`.
    public init(_ clock: any Clock<Duration>) { (read, sleeper) = Self.start(clock) }

    /// Time elapsed since the stopwatch started.
    public var elapsed: Duration { read() }

    /// Sleeps on the clock until `elapsed` has passed since the start (at once if it has): an
    /// absolute instant, so a clock moved on before the sleep began still ends it on time.
    /// Throws `CancellationError` when the task is cancelled first.
    public func sleep(untilElapsed elapsed: Duration) async throws {
        try await sleeper(elapsed)
    }

    /// Opens the existential clock once, keeping its typed start instant.
    private static func start<C: Clock<Duration>>(
        _ clock: C
    ) -> (@Sendable () -> Duration, @Sendable (Duration) async throws -> Void) {
        let origin = clock.now
        return ({ origin.duration(to: clock.now) }, { try await clock.sleep(until: origin.advanced(by: $0), tolerance: nil) })
    }
}
