import Foundation

/// A value behind a lock: the one primitive Harald uses for state shared outside an actor.
///
/// Use it for small synchronous state (counters, a continuation table, a buffer) that callbacks
/// from non-async code touch; engines with async work are actors. The closure runs with the lock
/// held, so it must not suspend, block or call back into code that takes the same lock.
/// (`Mutex` from the Synchronization module would do the same, but it needs iOS 18 and macOS 15,
/// later than the platforms the core modules support.)
public final class Locked<Value>: @unchecked Sendable {
    // Safety of @unchecked Sendable: `storage` is touched only inside `withLock` (nothing else in
    // HaraldCore names it, and it is internal, so no other module can), which holds
    // `lock` for the whole access, so no two threads ever touch it at once. `Value` may be
    // non-Sendable (a continuation table, say) because it never leaves the lock except as what
    // the caller returns, which the caller's own types must make safe.
    @usableFromInline let lock = NSLock()
    @usableFromInline var storage: Value

    /// Wraps `value`.
    public init(_ value: Value) { storage = value }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    ///
    /// Inlinable so that callers in other modules get a specialised, closure-free lock section
    /// (it sits on the notification path).
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&storage)
    }
}

extension Locked where Value: Sendable {
    /// A copy of the value.
    @inlinable
    public var value: Value { withLock { $0 } }
}
