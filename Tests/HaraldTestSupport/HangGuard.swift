import HaraldCore

/// A test step that did not finish within its safety deadline.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    public let seconds: Double
    public init(seconds: Double) { self.seconds = seconds }
    public var description: String { "the step did not finish within its safety deadline of \(seconds) s" }
}

/// Runs `body`, failing with ``DeadlineExceeded`` if it has not finished after `seconds` of real
/// time: a guard against hangs, never a timing assertion (pick a deadline far above any honest
/// run on a loaded machine). Unlike the public API's `withDeadline` (a structured race on any
/// clock), it does not wait for a body that ignores cancellation.
///
/// A body that hangs is cancelled and left behind: unlike a task group, which waits for every
/// child, this returns at the deadline even when the body is stuck somewhere that ignores
/// cancellation, so the test fails instead of hanging the run.
@discardableResult
public func withHangGuard<R: Sendable>(seconds: Double = 30, _ body: @escaping @Sendable () async throws -> R) async throws -> R {
    // Whoever takes the continuation first resumes it: the body's outcome or the deadline.
    let waiter = Locked<CheckedContinuation<R, any Error>?>(nil)
    let take: @Sendable () -> CheckedContinuation<R, any Error>? = {
        waiter.withLock { slot in
            defer { slot = nil }; return slot
        }
    }
    let work = Locked<(body: Task<Void, Never>?, timer: Task<Void, Never>?)>((nil, nil))
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
        waiter.withLock { $0 = continuation }
        let timer = Task {
            try? await Task.sleep(for: .seconds(seconds))
            guard !Task.isCancelled, let continuation = take() else { return }
            work.withLock { $0.body }?.cancel()
            continuation.resume(throwing: DeadlineExceeded(seconds: seconds))
        }
        work.withLock { $0.timer = timer }  // before the body can finish and look for it
        let bodyTask = Task {
            let outcome: Result<R, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            work.withLock { $0.timer }?.cancel()
            take()?.resume(with: outcome)
        }
        work.withLock { $0.body = bodyTask }
    }
}

/// Suspends until `condition` holds, yielding between checks: for a test that must know an
/// engine reached a state (a request queued, a deadline set) before it moves a manual clock.
/// Put it inside ``withHangGuard(seconds:_:)`` or a test time limit when the state may never come.
public func waitUntil(_ condition: @Sendable () async -> Bool) async {
    while !(await condition()) { await Task.yield() }
}
