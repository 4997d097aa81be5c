import HaraldCore

/// One deadline for every step of a public call.
///
/// A typed read may discover a service, then its characteristics, then read: each step gets what
/// is left of the call's timeout, not a timeout of its own, so `read(_:timeout: .seconds(1))`
/// fails after one second however many steps it needed. The clock starts when the call starts,
/// so time spent suspended — waiting for another operation of the connection, for the radio,
/// for the peer — counts too.
struct CallDeadline: Sendable {
    /// The whole call's timeout, reported in ``BluetoothError/timeout(operation:after:)``.
    let timeout: Duration
    private let stopwatch: Stopwatch

    init(timeout: Duration, clock: any Clock<Duration>) {
        self.timeout = timeout
        self.stopwatch = Stopwatch(clock)
    }

    /// Time left; throws the call's timeout error once none is.
    /// Sleeps until the deadline passes (throws `CancellationError` if the task is cancelled first).
    func sleepUntilPassed() async throws {
        try await stopwatch.sleep(untilElapsed: timeout)
    }

    func remaining(_ operation: @autoclosure () -> String) throws(BluetoothError) -> Duration {
        let left = timeout - stopwatch.elapsed
        guard left > .zero else { throw .timeout(operation: operation(), after: timeout) }
        return left
    }

    /// `error`, with a step's timeout reported as the whole call's.
    func rescope(_ error: BluetoothError) -> BluetoothError {
        if case let .timeout(operation, _) = error { return .timeout(operation: operation, after: timeout) }
        return error
    }

    /// Runs `body`, reporting a step's timeout as the whole call's.
    func run<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async throws(BluetoothError) -> T {
        do { return try await body() } catch { throw rescope(BluetoothError(error)) }
    }
}
