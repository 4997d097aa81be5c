/// Runs `body`, failing with ``BluetoothError/timeout(operation:after:)`` if it has not finished
/// after `timeout` on `clock`. The body is cancelled when the time is up; the race is structured,
/// so it also runs deterministically inside a simulation.
func withTimeout<T: Sendable>(
    _ timeout: Duration, clock: any Clock<Duration>, operation: String,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: TimeoutRace<T>.self) { group in
        group.addTask { .finished(try await body()) }
        group.addTask {
            try await clock.sleep(for: timeout)
            return .timedOut
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        switch first {
        case let .finished(value): return value
        case .timedOut: throw BluetoothError.timeout(operation: operation, after: timeout)
        }
    }
}

enum TimeoutRace<T: Sendable>: Sendable {
    case finished(T)
    case timedOut
}
