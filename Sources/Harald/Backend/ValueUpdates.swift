import Foundation

/// How many notified values a subscription keeps while the app is busy, and which it drops.
///
/// Always bounded: a peripheral that notifies faster than the app reads can't grow memory
/// without limit. Dropped values are counted (``ValueUpdates/droppedCount``).
public enum UpdateBuffering: Hashable, Sendable {
    /// Keep the newest `n` values, dropping older ones (the right choice for live readings).
    case newest(Int)
    /// Keep the oldest `n` values, dropping new ones (for streams where order from the start
    /// matters more than recency).
    case oldest(Int)

    /// Keep the newest 64 values.
    public static let `default` = UpdateBuffering.newest(64)

    var policy: AsyncStream<[UInt8]>.Continuation.BufferingPolicy {
        switch self {
        case let .newest(count): .bufferingNewest(max(1, count))
        case let .oldest(count): .bufferingOldest(max(1, count))
        }
    }
}

/// Raw values notified or indicated for one characteristic, with a visible count of values
/// dropped by the buffering policy. Ends when the subscription or the connection ends.
public struct ValueUpdates: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    private let stream: AsyncStream<[UInt8]>
    private let counter: DropCounter
    private let control: StreamControl

    /// Values dropped so far because the buffer was full.
    public var droppedCount: Int { counter.value }

    /// A stream and the continuation a backend feeds it through.
    public static func makeStream(buffering: UpdateBuffering) -> (updates: ValueUpdates, continuation: Continuation) {
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: buffering.policy)
        let counter = DropCounter()
        let control = StreamControl(continuation: continuation)
        continuation.onTermination = { _ in control.streamEnded() }
        return (
            ValueUpdates(stream: stream, counter: counter, control: control),
            Continuation(base: continuation, counter: counter, control: control)
        )
    }

    /// The producing end, used by backends.
    public struct Continuation: Sendable {
        let base: AsyncStream<[UInt8]>.Continuation
        let counter: DropCounter
        let control: StreamControl

        /// Delivers a value; counts it (or the value it displaced) as dropped when the buffer is
        /// full. Returns false once the consumer has gone away.
        @discardableResult
        public func yield(_ value: [UInt8]) -> Bool {
            switch base.yield(value) {
            case .enqueued: return true
            case .dropped:
                counter.increment()
                return true
            case .terminated: return false
            @unknown default: return true
            }
        }

        /// Ends the stream normally (the value source went away, the connection stays).
        public func finish() { base.finish() }

        /// Ends the stream because of `error` (usually ``BluetoothError/disconnected(_:)``); a
        /// subscription's loop then throws it.
        public func finish(throwing error: BluetoothError) {
            control.setEndError(error)
            base.finish()
        }

        /// Runs `handler` once when the stream ends: the consumer stopped, or ``finish()`` was called.
        public func onTermination(_ handler: @escaping @Sendable () -> Void) { control.addEndHandler(handler) }

    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<[UInt8]>.AsyncIterator
        public mutating func next() async -> [UInt8]? { await base.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }

    /// Ends the stream from the consuming side (unsubscribing).
    func finish() { control.finish() }

    /// Why the producer ended the stream, when it said.
    var endError: BluetoothError? { control.endError }

    /// Runs `handler` once when the stream ends, whoever ends it.
    func onEnd(_ handler: @escaping @Sendable () -> Void) { control.addEndHandler(handler) }
}

/// Lets the consuming side end a stream and observe its end, alongside the backend's continuation.
final class StreamControl: @unchecked Sendable {
    // @unchecked Sendable: `handlers`, `ended`, `storedEndError` and `continuation` are only touched with `lock`
    // held; handlers and `finish` run after it is released.
    private let lock = NSLock()
    private var handlers: [@Sendable () -> Void] = []
    private var ended = false
    private var storedEndError: BluetoothError?
    private var continuation: AsyncStream<[UInt8]>.Continuation?

    init(continuation: AsyncStream<[UInt8]>.Continuation) { self.continuation = continuation }

    func finish() {
        let base = lock.withLock { continuation }
        base?.finish()
    }

    var endError: BluetoothError? { lock.withLock { storedEndError } }

    func setEndError(_ error: BluetoothError) {
        lock.withLock { if storedEndError == nil { storedEndError = error } }
    }

    func addEndHandler(_ handler: @escaping @Sendable () -> Void) {
        let runNow = lock.withLock { () -> Bool in
            if ended { return true }
            handlers.append(handler)
            return false
        }
        if runNow { handler() }
    }

    func streamEnded() {
        let toRun = lock.withLock { () -> [@Sendable () -> Void] in
            ended = true
            continuation = nil
            defer { handlers.removeAll() }
            return handlers
        }
        for handler in toRun { handler() }
    }
}

/// A thread-safe counter.
final class DropCounter: @unchecked Sendable {
    // @unchecked Sendable: `count` is only read or written with `lock` held.
    private let lock = NSLock()
    private var count = 0

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }
}
