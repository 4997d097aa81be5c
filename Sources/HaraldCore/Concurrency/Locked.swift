#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a lock: the one primitive Harald uses for state shared outside an actor.
///
/// Use it for small synchronous state (counters, a continuation table, a buffer) that callbacks
/// from non-async code touch; engines with async work are actors. The closure runs with the lock
/// held, so it must not suspend, block or call back into code that takes the same lock.
///
/// Hand-written over a POSIX mutex: `Mutex` from the Synchronization module would do the same,
/// but it needs iOS 18 and macOS 15, later than the platforms the core modules support; and
/// Foundation's `NSLock` costs more per section (a class call, and on Linux three extra
/// allocations per lock). The value lives in memory of its own rather than in a stored `var`,
/// so a section costs no dynamic exclusivity check (a `var` of a class is checked at run time on
/// every access, which cost more than the lock itself on the notification path).
public final class Locked<Value>: @unchecked Sendable {
    // Safety of @unchecked Sendable: the value behind `storage` is touched only inside
    // `withLock`, which holds `mutex` for the whole access, so no two threads ever touch it at
    // once. `Value` may be non-Sendable (a continuation table, say) because it never leaves the
    // lock except as what the caller returns, which the caller's own types must make safe.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline let storage: UnsafeMutablePointer<Value>

    /// Wraps `value`.
    public init(_ value: Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let created = pthread_mutex_init(mutex, nil)
        precondition(created == 0, "pthread_mutex_init failed: \(created)")
        storage = .allocate(capacity: 1)
        storage.initialize(to: value)
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    ///
    /// Inlinable so that callers in other modules get a specialised, closure-free lock section
    /// (it sits on the notification path).
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&storage.pointee)
    }
}

extension Locked where Value: Sendable {
    /// A copy of the value.
    @inlinable
    public var value: Value { withLock { $0 } }
}
