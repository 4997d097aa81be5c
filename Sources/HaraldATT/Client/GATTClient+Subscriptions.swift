import HaraldCore

// Subscribers and sinks of the values the server pushes: the router takes them on the host's
// (or the link's) thread without entering the actor; the actor only adds and removes them.
extension GATTClient {
    // MARK: Subscriptions

    /// A stream of the notifications and indications the server sends for one value handle.
    public struct Subscription: Sendable {
        /// Identifies the subscription for ``GATTClient/droppedValueCount(_:)`` and
        /// ``GATTClient/unsubscribe(_:)``.
        public let id: UInt64
        /// The characteristic value handle.
        public let handle: UInt16
        /// Values in arrival order; finishes on unsubscribe or disconnection.
        public let values: AsyncStream<GATTNotification>
    }

    /// Subscribes to values pushed for `handle`. This only routes; enabling the pushes on the
    /// server is a CCCD write (``configureNotifications(cccdHandle:_:timeout:)``).
    ///
    /// - Parameters:
    ///   - handle: the characteristic value handle the server names in its notifications.
    ///   - bufferingPolicy: what the stream keeps when the consumer is slow (default:
    ///     the newest 64 values); values it drops are counted (``droppedValueCount(_:)``).
    public func subscribe(
        handle: UInt16,
        bufferingPolicy: AsyncStream<GATTNotification>.Continuation.BufferingPolicy = .bufferingNewest(64)
    ) -> Subscription {
        let id = nextID
        nextID += 1
        let (stream, continuation) = AsyncStream<GATTNotification>.makeStream(bufferingPolicy: bufferingPolicy)
        if closeReason != nil || !router.addSubscriber(continuation, handle: handle, id: id) {
            continuation.finish()
        } else {
            continuation.onTermination = { [router] _ in _ = router.removeSubscriber(handle: handle, id: id) }
        }
        return Subscription(id: id, handle: handle, values: stream)
    }

    /// Ends a subscription's stream.
    public func unsubscribe(_ subscription: Subscription) {
        router.removeSubscriber(handle: subscription.handle, id: subscription.id)?.finish()
    }

    /// Values the subscription's stream dropped because its buffer was full (0 once it ended).
    public func droppedValueCount(_ subscription: Subscription) -> Int {
        router.droppedCount(handle: subscription.handle, id: subscription.id)
    }

    /// Number of live subscriber streams.
    public var subscriberCount: Int { router.subscriberCount }

    // MARK: Sinks

    /// A receiver of pushed values that is called directly instead of through a stream, for
    /// layers that keep their own buffers (the public API's subscriptions).
    public struct ValueSink: Sendable {
        /// Why a sink ended.
        public enum End: Sendable, Hashable {
            /// The bearer closed, for this reason.
            case closed(ATTCloseReason)
            /// The server's database changed over these handles, the sink's among them (a
            /// Service Changed indication, or Database Out Of Sync; see ``GATTClient/observeDatabaseChanges(_:)``).
            case attributesChanged(ATTHandleRange)
        }

        /// Receives each value; returns false once its consumer is gone (the sink is then removed).
        public var deliver: @Sendable (GATTNotification) -> Bool
        /// Called once when the sink ends, with why. The sink is removed first.
        public var finish: @Sendable (End) -> Void

        /// `deliver` takes each value and returns false when it had to drop it; `finish` runs once at the end.
        public init(deliver: @escaping @Sendable (GATTNotification) -> Bool, finish: @escaping @Sendable (End) -> Void) {
            self.deliver = deliver
            self.finish = finish
        }
    }

    /// Routes values pushed for `handle` to `sink`; returns an identifier for ``removeSink(_:handle:)``.
    /// If the bearer is already closed the sink is finished at once.
    public func addSink(_ sink: ValueSink, handle: UInt16) -> UInt64 {
        let id = nextID
        nextID += 1
        if let reason = closeReason ?? router.addSink(sink, handle: handle, id: id) { sink.finish(.closed(reason)) }
        return id
    }

    /// Stops routing values to a sink (without finishing it).
    public func removeSink(_ id: UInt64, handle: UInt16) {
        router.removeSink(id, handle: handle)
    }
}
