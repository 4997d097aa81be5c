import Foundation
import HaraldCore

/// A bearer that can hand its events straight to the engine's ``ATTEventInbox`` instead of
/// through ``ATTBearer/events``.
///
/// `AsyncStream` is generic code the compiler cannot specialize for the element type, which
/// makes every yield and every `next()` pay for type-metadata lookups; an engine reading a bearer
/// that adopts this protocol reads a concrete inbox instead. The events and their order are the
/// same as on ``ATTBearer/events``, and the two are exclusive: a bearer delivers to the inbox or
/// to its stream, never both.
public protocol ATTInboxBearer: ATTBearer {
    /// Delivers every event from now on to `inbox` (PDUs in order, then `.closed`, after which
    /// the inbox is finished). Called once, by the engine, before it reads anything.
    func deliverEvents(to inbox: ATTEventInbox)
}

/// The events of one bearer waiting for its engine: a queue with one consumer that suspends
/// while the queue is empty.
///
/// The producer calls ``yield(_:)`` and ``finish()`` from any thread; the consumer calls
/// ``next(isolation:)`` from one task at a time. The GATT client's inbox hands notifications to
/// its subscribers at once, in ``yield(_:)``, so they cost no executor job at all.
public final class ATTEventInbox: @unchecked Sendable {
    // @unchecked Sendable: `events`, `head`, `waiter` and `finished` are only touched with
    // `lock` held; the waiter is taken out (set to nil) under the lock before it is resumed, so
    // it is resumed exactly once.
    private let lock = NSLock()
    private var events: [ATTBearerEvent] = []
    private var head = 0
    private var waiter: UnsafeContinuation<ATTBearerEvent?, Never>?
    private var finished = false
    /// Takes notification PDUs as they arrive, ahead of the queue (see ``GATTNotificationRouter``).
    private let router: GATTNotificationRouter?

    /// An empty inbox, routing nothing until a client attaches.
    public init() { router = nil }

    init(router: GATTNotificationRouter) { self.router = router }

    /// Queues `event` for the consumer (or hands it over if the consumer waits). Ignored after
    /// ``finish()``.
    public func yield(_ event: ATTBearerEvent) {
        if let router, case .received(let bytes) = event, router.route(bytes) { return }
        lock.lock()
        guard !finished else {
            lock.unlock()
            return
        }
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter.resume(returning: event)
            return
        }
        events.append(event)
        lock.unlock()
    }

    /// Like ``yield(_:)``, but refuses (drops, returning false) an event when `limit` events are
    /// already queued for the consumer, so a bearer can bound what a peer makes it hold.
    /// Notifications routed to subscribers never count against the limit (their streams have
    /// their own bounds); after ``finish()`` the event is ignored and true is returned.
    public func yield(_ event: ATTBearerEvent, limit: Int) -> Bool {
        if let router, case .received(let bytes) = event, router.route(bytes) { return true }
        lock.lock()
        guard !finished else {
            lock.unlock()
            return true
        }
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter.resume(returning: event)
            return true
        }
        guard events.count - head < limit else {
            lock.unlock()
            return false
        }
        events.append(event)
        lock.unlock()
        return true
    }

    /// Ends the queue: the consumer gets what is queued, then nil.
    public func finish() {
        lock.lock()
        finished = true
        let waiting = waiter
        waiter = nil
        lock.unlock()
        waiting?.resume(returning: nil)
    }

    /// The next event, waiting for one if none is queued; nil once the inbox is finished and
    /// drained. Not cancellable: an engine reads its bearer until the bearer closes.
    public func next(isolation actor: isolated (any Actor)? = #isolation) async -> ATTBearerEvent? {
        if let event = take() { return event }
        return await withUnsafeContinuation { (continuation: UnsafeContinuation<ATTBearerEvent?, Never>) in
            lock.lock()
            if head < events.count {
                let event = popLocked()
                lock.unlock()
                continuation.resume(returning: event)
            } else if finished {
                lock.unlock()
                continuation.resume(returning: nil)
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }

    /// A queued event, if any; nil when none is queued.
    private func take() -> ATTBearerEvent? {
        lock.lock()
        defer { lock.unlock() }
        return head < events.count ? popLocked() : nil
    }

    private func popLocked() -> ATTBearerEvent {
        let event = events[head]
        head += 1
        if head == events.count {
            events.removeAll(keepingCapacity: true)
            head = 0
        }
        return event
    }
}
