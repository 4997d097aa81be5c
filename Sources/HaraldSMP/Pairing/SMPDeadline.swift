import HaraldCore

/// Runs an operation against what is left of the Security Manager Timer on an injected clock:
/// whichever ends first wins, and the loser is cancelled but not awaited, so an operation that
/// ignores cancellation (a person who never answers) cannot hold the pairing past the deadline.
/// Cancelling the caller ends the wait at once with `CancellationError`. Both roles use it for
/// every wait that is not a PDU (those wait in ``SMPInbox``, which keeps the timer itself).
enum SMPDeadline {
    private struct Gate<Value: Sendable> {
        var continuation: CheckedContinuation<Value?, any Error>?
        var early: Result<Value?, any Error>?
        var tasks: [Task<Void, Never>] = []
        var isSettled = false
    }

    /// The operation's value, or nil when `timeout` passed on `clock` first.
    static func run<Value: Sendable>(
        within timeout: Duration, on clock: any Clock<Duration>, starter: TaskStarter,
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws -> Value? {
        let gate = Locked(Gate<Value>())
        @Sendable func settle(_ result: Result<Value?, any Error>) {
            let (continuation, tasks): (CheckedContinuation<Value?, any Error>?, [Task<Void, Never>]) = gate.withLock { gate in
                guard !gate.isSettled else { return (nil, []) }
                gate.isSettled = true
                guard let continuation = gate.continuation else {
                    gate.early = result
                    return (nil, gate.tasks)
                }
                gate.continuation = nil
                return (continuation, gate.tasks)
            }
            for task in tasks { task.cancel() }
            continuation?.resume(with: result)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value?, any Error>) in
                let early: Result<Value?, any Error>? = gate.withLock { gate in
                    if let early = gate.early { return early }
                    gate.continuation = continuation
                    return nil
                }
                if let early {
                    continuation.resume(with: early)
                    return
                }
                let work = starter.start {
                    do { settle(.success(try await operation())) } catch { settle(.failure(error)) }
                }
                let timer = starter.start {
                    do { try await clock.sleep(for: timeout) } catch { return }
                    settle(.success(nil))
                }
                let settled = gate.withLock { gate in
                    if !gate.isSettled { gate.tasks = [work, timer] }
                    return gate.isSettled
                }
                if settled {
                    work.cancel()
                    timer.cancel()
                }
            }
        } onCancel: {
            settle(.failure(CancellationError()))
        }
    }
}
