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

    /// The actor on whose executor the bearer always yields into its inbox, if there is one (the
    /// HCI host, for the ATT channel over HCI). An engine that runs on the same executor may take
    /// events synchronously as they arrive (`ATTEventInbox.handleDirectly(with:)`). Nil, the
    /// default, when events come from more than one place.
    var deliveryDomain: (any Actor)? { get }
}

extension ATTInboxBearer {
    public var deliveryDomain: (any Actor)? { nil }
}

/// The events of one bearer waiting for its engine: a queue with one consumer that suspends
/// while the queue is empty (HaraldCore's `Inbox`, with the GATT client's notification router
/// in front).
///
/// The producer calls ``yield(_:)`` and ``finish()`` from any thread; the consumer calls
/// ``next(isolation:)`` from one task at a time and ``handled()`` after each event. The GATT
/// client's inbox hands notifications to its subscribers at once, in ``yield(_:)``, so they cost
/// no executor job at all; and when the bearer yields on the client's own executor, the client
/// takes responses there too (`handleDirectly(with:)`), so a response costs only the job that
/// resumes the caller waiting for it.
public final class ATTEventInbox: Sendable {
    private let queue = Inbox<ATTBearerEvent, Never>(capacity: .max)
    /// Takes notification PDUs as they arrive, ahead of the queue (see ``GATTNotificationRouter``).
    private let router: GATTNotificationRouter?
    /// The consumer's synchronous receive entry, and how many events the consumer has been given
    /// (queued or handed over) and not yet handled: the entry is used only while that is zero, so
    /// an event never overtakes one the consumer has still to handle.
    private struct Direct {
        var handler: (@Sendable (ATTBearerEvent) -> Bool)?
        var unhandled = 0
    }
    private let direct = Locked(Direct())

    /// An empty inbox, routing nothing until a client attaches.
    public init() { router = nil }

    init(router: GATTNotificationRouter) { self.router = router }

    /// Queues `event` for the consumer (or hands it over if the consumer waits). Ignored after
    /// ``finish()``.
    public func yield(_ event: ATTBearerEvent) {
        _ = yield(event, limit: .max)
    }

    /// Like ``yield(_:)``, but refuses (drops, returning false) an event when `limit` events are
    /// already queued for the consumer, so a bearer can bound what a peer makes it hold.
    /// Notifications routed to subscribers never count against the limit (their streams have
    /// their own bounds); after ``finish()`` the event is ignored and true is returned.
    public func yield(_ event: ATTBearerEvent, limit: Int) -> Bool {
        if let router, case .received(let bytes) = event, router.route(bytes) { return true }
        let handler = direct.withLock { direct -> (@Sendable (ATTBearerEvent) -> Bool)? in
            // Counted before the queue sees it, so the consumer never counts below zero.
            guard direct.unhandled == 0, let handler = direct.handler else {
                direct.unhandled += 1
                return nil
            }
            return handler
        }
        if let handler {
            if handler(event) { return true }
            direct.withLock { $0.unhandled += 1 }
        }
        let result = queue.yield(event, limit: limit)
        if result != .accepted { direct.withLock { $0.unhandled -= 1 } }
        return result != .full
    }

    /// Sets the consumer's synchronous receive entry: from now on, while the consumer has no
    /// event left to handle, ``yield(_:)`` offers it each event (after the router) on the
    /// producer's thread, and queues the event only when `handler` returns false.
    ///
    /// Only for a consumer that runs on the executor the producer always yields on
    /// (``ATTInboxBearer/deliveryDomain``): the handler runs there, between the consumer's jobs.
    package func handleDirectly(with handler: @escaping @Sendable (ATTBearerEvent) -> Bool) {
        direct.withLock { $0.handler = handler }
    }

    /// Called by the consumer when it has handled an event it took with ``next(isolation:)``.
    public func handled() {
        direct.withLock { $0.unhandled -= 1 }
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
