/// Runs `body` against a deadline: its result, or nil when `timeout` passes on `clock` first.
///
/// The race is structured (a task group of the body and a sleep), so the loser is cancelled,
/// nothing outlives the call, and inside a simulation the race runs deterministically on the
/// virtual clock. Kits build their typed timeouts on it (`GoProError.timeout`,
/// `MiBandError.noReply`); errors of the body pass through unchanged.
public func withDeadline<T: Sendable>(
    _ timeout: Duration, clock: any Clock<Duration>, _ body: @escaping @Sendable () async throws -> T
) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await clock.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { return nil }
        return first
    }
}

/// Runs `body`, failing with ``BluetoothError/timeout(operation:after:)`` if it has not finished
/// after `timeout` on `clock` (see ``withDeadline(_:clock:_:)``).
func withTimeout<T: Sendable>(
    _ timeout: Duration, clock: any Clock<Duration>, operation: String,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    guard let value = try await withDeadline(timeout, clock: clock, body) else {
        throw BluetoothError.timeout(operation: operation, after: timeout)
    }
    return value
}
