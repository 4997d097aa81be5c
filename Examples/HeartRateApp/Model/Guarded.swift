import Foundation

/// The app's own lock: a value that threads share, read and changed only while an `NSLock` is
/// held. The model needs it for the few things read outside its actor (the command inbox, the
/// state observers, the radio's state for the reconnect veto, the remembered strap); an app
/// brings its own, as Harald's locks are its own business.
///
/// `@unchecked Sendable`: `value` is touched only inside `withLock`, under `lock`, and it is
/// `Sendable` itself, so what leaves the lock may cross threads.
final class Guarded<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    /// Runs `body` on the value with the lock held; returns what it returns.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the value, taken under the lock.
    var current: Value { withLock { $0 } }
}
