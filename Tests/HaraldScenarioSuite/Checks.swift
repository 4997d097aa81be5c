import Harald

/// Throws a ``ScenarioFailure`` saying `message` unless `condition` holds.
func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw ScenarioFailure(message()) }
}

/// Throws a ``ScenarioFailure`` unless `actual == expected`.
func checkEqual<T: Equatable>(_ actual: T, _ expected: T, _ what: String) throws {
    if actual != expected { throw ScenarioFailure("\(what): expected \(expected), got \(actual)") }
}

/// Runs `body`, which must throw an error `matches` accepts; returns that error.
@discardableResult
func checkThrows<T>(
    _ what: String, matching matches: (any Error) -> Bool, _ body: () async throws -> T
) async throws -> any Error {
    let value: T
    do { value = try await body() } catch {
        if matches(error) { return error }
        throw ScenarioFailure("\(what): unexpected error \(error)")
    }
    throw ScenarioFailure("\(what): expected an error, got \(value)")
}

/// Runs `body`, which must throw exactly `expected`.
func checkThrows<T>(_ what: String, _ expected: BluetoothError, _ body: () async throws -> T) async throws {
    try await checkThrows(what, matching: { ($0 as? BluetoothError) == expected }, body)
}

extension Result {
    /// The error of a task that must have failed.
    func failure(_ what: String) throws -> Failure {
        switch self {
        case let .success(value): throw ScenarioFailure("\(what): expected an error, got \(value)")
        case let .failure(error): return error
        }
    }
}

/// Runs `operations` as child tasks while `steer` acts on the peer, then returns how each ended
/// (in order). With `cancelling`, the operations are cancelled once `steer` returns.
///
/// Child tasks rather than `Task {}`: they inherit the caller's executor, which a simulation
/// needs to see every task it runs.
func whilePending(
    _ operations: [@Sendable () async throws -> Void], cancelling: Bool = false, steer: () async throws -> Void
) async throws -> [Result<Void, any Error>] {
    try await withThrowingTaskGroup(of: (Int, Result<Void, any Error>).self) { group in
        for (index, operation) in operations.enumerated() {
            group.addTask {
                do { return (index, .success(try await operation())) } catch { return (index, .failure(error)) }
            }
        }
        do { try await steer() } catch {
            group.cancelAll()
            throw error
        }
        if cancelling { group.cancelAll() }
        var results = [Result<Void, any Error>?](repeating: nil, count: operations.count)
        for try await (index, result) in group { results[index] = result }
        return results.map { $0 ?? .failure(ScenarioFailure("an operation did not report")) }
    }
}
