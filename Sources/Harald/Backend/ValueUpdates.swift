import Foundation
import HaraldCore

/// How many notified or indicated values a subscription keeps while the app is busy, and which
/// it drops.
///
/// The bounded policies keep memory flat however fast the peripheral sends; the values they drop
/// are counted (``ValueUpdates/droppedCount``, ``Subscription/droppedCount``). ``unbounded``
/// drops nothing, at the price of memory: choose it for indications and other low-rate data
/// where every value counts.
public enum UpdateBuffering: Hashable, Sendable {
    /// Keep the newest `n` values, dropping older ones (the right choice for live readings).
    case newest(Int)
    /// Keep the oldest `n` values, dropping new ones (for streams where order from the start
    /// matters more than recency).
    case oldest(Int)
    /// Keep every value until the app takes it; nothing is dropped and the drop count stays 0.
    ///
    /// For indications and other low-rate data that must not be lost: the stack confirms each
    /// indication (ATT Handle Value Confirmation) as it arrives, before the app has taken it, so
    /// the peripheral considers a confirmed value delivered and will not send it again — a
    /// bounded buffer that dropped it would lose a stored measurement for good. Memory grows with
    /// every value the app has not taken yet: a loop that stops taking values while the
    /// subscription stays open makes it grow without limit, so keep iterating, or unsubscribe.
    /// Not for fast notifications.
    case unbounded
    /// Keep every value, but never more than `limit` waiting: a loop that falls that far behind
    /// ends with ``BluetoothError/bufferOverflow(_:)`` (after the values already buffered)
    /// instead of losing a value silently or growing without bound. What a subscription to an
    /// indicating characteristic uses by default (``lossless``).
    case lossless(limit: Int)

    /// Keep the newest 64 values.
    public static let `default` = UpdateBuffering.newest(64)

    /// Every indication kept, up to 4096 waiting: the default for characteristics that indicate
    /// rather than notify (``PeripheralConnection/subscribe(_:buffering:onDecodingFailure:timeout:)``
    /// uses it in place of ``default``).
    public static let lossless = UpdateBuffering.lossless(limit: 4096)

    /// How many values the buffer holds; nil when it has no bound.
    var limit: Int? {
        switch self {
        case let .newest(count), let .oldest(count), let .lossless(count): max(1, count)
        case .unbounded: nil
        }
    }

    /// True when a full buffer ends the stream instead of dropping a value.
    var failsWhenFull: Bool {
        if case .lossless = self { return true }
        return false
    }

    /// True when a full buffer drops its oldest value for the new one.
    var keepsNewest: Bool {
        if case .newest = self { return true }
        return false
    }
}

/// Raw values notified or indicated for one characteristic, with a visible count of values
/// dropped by the buffering policy. Ends when the subscription or the connection ends.
///
/// Behaves like an `AsyncStream` with one consumer (the same buffering, termination and
/// cancellation rules), written out for `[UInt8]` so a delivered value costs no generic
/// type-metadata lookups: yielding hands the value straight to a waiting consumer.
public struct ValueUpdates: AsyncSequence, Sendable {
    /// A characteristic value as the peer sent it, the raw bytes of one notification or indication.
    public typealias Element = [UInt8]

    private let queue: UpdateQueue
    /// Shared by every copy of the sequence and its iterators: when the last one goes away, the
    /// stream ends as if the consumer had stopped (``Continuation/yield(_:)`` returns false).
    private let consumer: UpdateConsumer

    /// Values dropped so far because the buffer was full: with ``UpdateBuffering/newest(_:)``
    /// the older values displaced, with ``UpdateBuffering/oldest(_:)`` the new values refused;
    /// always 0 with ``UpdateBuffering/unbounded``.
    public var droppedCount: Int { queue.droppedCount }

    /// A stream and the continuation a backend feeds it through.
    public static func makeStream(buffering: UpdateBuffering) -> (updates: ValueUpdates, continuation: Continuation) {
        let queue = UpdateQueue(limit: buffering.limit ?? .max, keepsNewest: buffering.keepsNewest, failsWhenFull: buffering.failsWhenFull)
        return (ValueUpdates(queue: queue, consumer: UpdateConsumer(queue)), Continuation(queue: queue))
    }

    /// The producing end, used by backends.
    public struct Continuation: Sendable {
        let queue: UpdateQueue

        /// Delivers a value; counts it (or the value it displaced) as dropped when the buffer is
        /// full. Returns false once the consumer has gone away.
        @discardableResult
        public func yield(_ value: [UInt8]) -> Bool { queue.yield(value) }

        /// Ends the stream normally (the value source went away, the connection stays).
        public func finish() { queue.finish(throwing: nil) }

        /// Ends the stream because of `error` (usually ``BluetoothError/disconnected(_:)``); a
        /// subscription's loop then throws it.
        public func finish(throwing error: BluetoothError) { queue.finish(throwing: error) }

        /// Runs `handler` once when the stream ends: the consumer stopped, or ``finish()`` was called.
        public func onTermination(_ handler: @escaping @Sendable () -> Void) { queue.addEndHandler(handler) }
    }

    /// Takes the values in the order they arrived, less any the buffering policy dropped.
    public struct AsyncIterator: AsyncIteratorProtocol {
        @usableFromInline let queue: UpdateQueue
        let consumer: UpdateConsumer
        /// The next value, waiting for one if none is buffered; nil once the stream has ended.
        public mutating func next() async -> [UInt8]? { await queue.nextOffActor() }

        /// The next value, resumed on the caller's actor: a loop on an actor (the main actor in
        /// an app) waits for values without hopping off its actor and back for each one.
        ///
        /// Inlinable so that a loop calls the queue directly: one async frame and one executor
        /// check fewer per value.
        @inlinable
        public mutating func next(isolation actor: isolated (any Actor)?) async -> [UInt8]? {
            await queue.next()
        }
    }

    /// The loop over the values; the stream has one consumer at a time.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(queue: queue, consumer: consumer) }

    /// Ends the stream from the consuming side (unsubscribing).
    func finish() { queue.finish(throwing: nil) }

    /// Slots the underlying buffer holds now, taken values included (tests check it stays near
    /// the number of values waiting).
    var heldSlotCount: Int { queue.heldSlotCount }

    /// Why the producer ended the stream, when it said.
    @usableFromInline
    var endError: BluetoothError? { queue.endError }

    /// Runs `handler` once when the stream ends, whoever ends it.
    func onEnd(_ handler: @escaping @Sendable () -> Void) { queue.addEndHandler(handler) }

    /// Ends the stream from outside without keeping its consumer alive (a connection handle
    /// holds one per open subscription).
    struct Ender: Sendable {
        let queue: UpdateQueue
        func finish(throwing error: BluetoothError) { queue.finish(throwing: error) }
        /// Ends the stream normally.
        func finish() { queue.finish(throwing: nil) }
        /// Why the producer ended the stream, when it said.
        var endError: BluetoothError? { queue.endError }
    }

    var ender: Ender { Ender(queue: queue) }

    /// True once a second loop waited on the stream while another was already waiting.
    @usableFromInline
    var hadConcurrentConsumers: Bool { queue.hadConcurrentConsumers }
}

/// Ends its queue when the last copy of a ``ValueUpdates`` (and of its iterators) is released.
final class UpdateConsumer: Sendable {
    let queue: UpdateQueue
    init(_ queue: UpdateQueue) { self.queue = queue }
    deinit { queue.terminate() }
}

/// The buffer between a backend and one subscription loop.
///
/// Only values go into the bounded buffer. The end of the stream — finished, and why (the
/// disconnection a subscription loop and the flows above it wait for) — is state beside it, so
/// no flood of values and no buffering policy can drop it: the consumer gets the buffered values,
/// then the end.
@usableFromInline
final class UpdateQueue: Sendable {
    // The waiting consumer's continuation is taken out (set to nil) under the lock before it is
    // resumed, so it is resumed exactly once; continuations are resumed and end handlers run
    // after the lock is released.
    private struct State {
        var buffer: [[UInt8]] = []
        var head = 0
        var waiter: UnsafeContinuation<[UInt8]?, Never>?
        /// The producer finished the stream (buffered values are still delivered).
        var finished = false
        /// The consumer stopped (cancelled or released): buffered values are discarded.
        var terminated = false
        var dropped = 0
        var endError: BluetoothError?
        var handlers: [@Sendable () -> Void] = []
        var ended = false
        /// A second consumer tried to wait while one was waiting (two loops over one stream).
        var concurrentConsumers = false

        /// Releases the slots before `head` once they are most of the array (amortized O(1)):
        /// values taken or displaced must not stay in memory while the consumer keeps a few
        /// values behind and the buffer never runs empty.
        mutating func compact() {
            if head > 64, head * 2 > buffer.count {
                buffer.removeFirst(head)
                head = 0
            }
        }

        mutating func poll() -> Poll {
            if head < buffer.count {
                let value = buffer[head]
                head += 1
                if head == buffer.count {
                    buffer.removeAllKeepingStorage()
                    head = 0
                } else {
                    compact()
                }
                return .value(value)
            }
            return finished || terminated ? .end : .empty
        }

        /// Marks the end; returns the waiting consumer and the end handlers, to be resumed and
        /// run once the lock is released.
        mutating func end() -> Ending {
            let ending = Ending(waiter: waiter, handlers: handlers)
            waiter = nil
            ended = true
            handlers.removeAll()
            return ending
        }
    }

    /// What ending the stream wakes, run outside the lock.
    private struct Ending {
        var waiter: UnsafeContinuation<[UInt8]?, Never>?
        var handlers: [@Sendable () -> Void] = []

        func run() {
            waiter?.resume(returning: nil)
            for handler in handlers { handler() }
        }
    }

    private enum Poll {
        case value([UInt8])
        case end
        case empty
    }

    private let state = Locked(State())
    private let limit: Int
    private let keepsNewest: Bool
    private let failsWhenFull: Bool

    init(limit: Int, keepsNewest: Bool, failsWhenFull: Bool = false) {
        self.limit = limit
        self.keepsNewest = keepsNewest
        self.failsWhenFull = failsWhenFull
    }

    var droppedCount: Int { state.withLock { $0.dropped } }

    var endError: BluetoothError? { state.withLock { $0.endError } }

    var hadConcurrentConsumers: Bool { state.withLock { $0.concurrentConsumers } }

    /// Slots the buffer array holds, values already taken included (for tests of its memory).
    var heldSlotCount: Int { state.withLock { $0.buffer.count } }

    func yield(_ value: [UInt8]) -> Bool {
        enum Outcome {
            case taken(UnsafeContinuation<[UInt8]?, Never>)
            case queued
            case refused(Ending?)
        }
        let outcome = state.withLock { state -> Outcome in
            if state.finished || state.terminated { return .refused(nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return .taken(waiter)
            }
            if state.buffer.count - state.head < limit {
                state.buffer.append(value)
            } else if failsWhenFull {
                // Lossless: end the stream (the waiting values are still delivered) rather than drop.
                if state.endError == nil { state.endError = .bufferOverflow(limit) }
                state.finished = true
                return .refused(state.end())
            } else {
                state.dropped += 1
                if keepsNewest {
                    state.head += 1
                    state.buffer.append(value)
                    state.compact()
                }
            }
            return .queued
        }
        switch outcome {
        case .taken(let waiter):
            waiter.resume(returning: value)
            return true
        case .queued:
            return true
        case .refused(let ending):
            ending?.run()
            return false
        }
    }

    /// Ends the stream from the producing side (or on unsubscribe): buffered values are still
    /// delivered, then nil. `error` is kept for the loop to throw (the first one given).
    func finish(throwing error: BluetoothError?) {
        let ending = state.withLock { state -> Ending? in
            if let error, state.endError == nil { state.endError = error }
            if state.finished || state.terminated { return nil }
            state.finished = true
            return state.end()
        }
        ending?.run()
    }

    /// Ends the stream from the consuming side (cancelled or released): what is buffered is lost.
    func terminate() {
        let ending = state.withLock { state -> Ending? in
            state.buffer.removeAll()
            state.head = 0
            if state.finished || state.terminated { return nil }
            state.terminated = true
            return state.end()
        }
        ending?.run()
    }

    func addEndHandler(_ handler: @escaping @Sendable () -> Void) {
        let ended = state.withLock { state in
            if !state.ended { state.handlers.append(handler) }
            return state.ended
        }
        if ended { handler() }
    }

    /// The next value, waiting for one; nil once the stream has ended and is drained. Cancelling
    /// the waiting task ends the stream.
    /// ``next()`` on the generic executor, for the plain `next()` of an iterator.
    @concurrent
    func nextOffActor() async -> [UInt8]? { await next() }

    // Runs on the caller's executor (no hop in or out), so the loop above it resumes where it
    // waits: on its actor, or on its task's executor.
    @usableFromInline
    nonisolated(nonsending) func next() async -> [UInt8]? {
        switch state.withLock({ $0.poll() }) {
        case .value(let value): return value
        case .end: return nil
        case .empty: break
        }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<[UInt8]?, Never>) in
                let now = state.withLock { state -> Poll? in
                    let polled = state.poll()
                    guard case .empty = polled else { return polled }
                    guard state.waiter == nil else {
                        // Two loops over one stream: the second one is refused (it gets the
                        // end of the stream, and its subscription throws a misuse error)
                        // instead of silently replacing — and stranding — the first.
                        state.concurrentConsumers = true
                        return .end
                    }
                    state.waiter = continuation
                    return nil
                }
                switch now {
                case .value(let value)?: continuation.resume(returning: value)
                case .end?, .empty?: continuation.resume(returning: nil)
                case nil: break
                }
            }
        } onCancel: {
            terminate()
        }
    }
}

extension Array {
    /// Empties the array and keeps its storage. For the few elements a drained queue holds this
    /// costs a fraction of `removeAll(keepingCapacity: true)`, which goes through the generic
    /// `replaceSubrange`.
    mutating func removeAllKeepingStorage() {
        while !isEmpty { removeLast() }
    }
}
