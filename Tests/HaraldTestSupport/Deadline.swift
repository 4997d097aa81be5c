/// A test step that did not finish within its safety deadline.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    public let seconds: Double
    public init(seconds: Double) { self.seconds = seconds }
    public var description: String { "the step did not finish within its safety deadline of \(seconds) s" }
}

/// Runs `body`, failing with ``DeadlineExceeded`` if it has not finished after `seconds` of real
/// time: a guard against hangs, never a timing assertion (pick a deadline far above any honest
/// run on a loaded machine).
public func withDeadline<R: Sendable>(seconds: Double = 30, _ body: @escaping @Sendable () async throws -> R) async throws -> R {
    try await withThrowingTaskGroup(of: R?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw DeadlineExceeded(seconds: seconds) }
        return value
    }
}
