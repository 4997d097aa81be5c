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
/// while the queue is empty (HaraldCore's `Inbox`, with the GATT client's notification router
/// in front).
///
/// The producer calls ``yield(_:)`` and ``finish()`` from any thread; the consumer calls
/// ``next(isolation:)`` from one task at a time. The GATT client's inbox hands notifications to
/// its subscribers at once, in ``yield(_:)``, so they cost no executor job at all.
public final class ATTEventInbox: Sendable {
    private let queue = Inbox<ATTBearerEvent, Never>(capacity: .max)
    /// Takes notification PDUs as they arrive, ahead of the queue (see ``GATTNotificationRouter``).
    private let router: GATTNotificationRouter?

    /// An empty inbox, routing nothing until a client attaches.
    public init() { router = nil }

    init(router: GATTNotificationRouter) { self.router = router }

    /// Queues `event` for the consumer (or hands it over if the consumer waits). Ignored after
    /// ``finish()``.
    public func yield(_ event: ATTBearerEvent) {
        if let router, case .received(let bytes) = event, router.route(bytes) { return }
        queue.yield(event)
    }

    /// Like ``yield(_:)``, but refuses (drops, returning false) an event when `limit` events are
    /// already queued for the consumer, so a bearer can bound what a peer makes it hold.
    /// Notifications routed to subscribers never count against the limit (their streams have
    /// their own bounds); after ``finish()`` the event is ignored and true is returned.
    public func yield(_ event: ATTBearerEvent, limit: Int) -> Bool {
        if let router, case .received(let bytes) = event, router.route(bytes) { return true }
        return queue.yield(event, limit: limit) != .full
    }

    /// Ends the queue: the consumer gets what is queued, then nil.
    public func finish() {
        queue.finish()
    }

    /// The next event, waiting for one if none is queued; nil once the inbox is finished and
    /// drained, or when the waiting task is cancelled (an engine reads its bearer until the
    /// bearer closes, so only a reader being torn down sees that).
    public func next(isolation actor: isolated (any Actor)? = #isolation) async -> ATTBearerEvent? {
        await queue.next(isolation: actor)
    }
}
