/// Time elapsed on a clock since the stopwatch was made: how code holding an `any Clock<Duration>`
/// (a virtual clock in simulations, a manual one in tests) measures how long it has been busy.
public struct Stopwatch: Sendable {
    private let read: @Sendable () -> Duration

    /// Starts now on `clock`.
    public init(_ clock: any Clock<Duration>) { read = Self.start(clock) }

    /// Time elapsed since the stopwatch started.
    public var elapsed: Duration { read() }

    /// Opens the existential clock once, keeping its typed start instant.
    private static func start<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let origin = clock.now
        return { origin.duration(to: clock.now) }
    }
}
