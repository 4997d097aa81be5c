import HaraldCore

/// The GATT client's subscribers and sinks, by value handle, behind a lock: notifications are
/// decoded and delivered here without entering the client's actor.
///
/// A bearer that hands its events to an ``ATTEventInbox`` has its Handle Value Notifications
/// (and Multiple Handle Value Notifications) routed the moment they arrive, on the thread that
/// delivers them; every other PDU, indications included, goes to the actor in order. A
/// notification needs nothing the actor owns (no request, no confirmation), so this only moves
/// it ahead of PDUs the actor has not processed yet, never behind. Notifications routed here
/// are counted here and merged into ``GATTClient/counters``.
final class GATTNotificationRouter: Sendable {
    // Under the lock only sinks' `deliver` and stream `yield`s run (they hand a value over and
    // never call back into the client); streams and sinks are finished after the lock is released.
    private struct Subscriber {
        let continuation: AsyncStream<GATTNotification>.Continuation
        var dropped = 0
    }

    private struct State {
        var subscribers: [UInt16: [UInt64: Subscriber]] = [:]
        var sinks: [UInt16: [UInt64: GATTClient.ValueSink]] = [:]
        var closeReason: ATTCloseReason?
        /// The longest PDU the server may send now (the client's ``GATTClient/receiveLimit``): a
        /// longer notification is left to the actor, which treats it as a protocol violation.
        var receiveLimit = ATT.defaultMTU
        // Counters of the PDUs routed here.
        var notifications = 0
        var multipleNotifications = 0
        var bytesReceived = 0
        var ignored = 0
        var dropped = 0

        mutating func deliver(_ notification: GATTNotification) {
            guard closeReason == nil else { return }
            if let targets = sinks[notification.handle] {
                for (id, sink) in targets where !sink.deliver(notification) { removeSink(id, handle: notification.handle) }
            }
            guard let targets = subscribers[notification.handle] else { return }
            for (id, subscriber) in targets {
                if case .dropped = subscriber.continuation.yield(notification) {
                    subscribers[notification.handle]?[id]?.dropped += 1
                    dropped += 1
                }
            }
        }

        mutating func removeSink(_ id: UInt64, handle: UInt16) {
            sinks[handle]?[id] = nil
            if sinks[handle]?.isEmpty == true { sinks[handle] = nil }
        }
    }

    private let state = Locked(State())

    /// Decodes and delivers `bytes` if it is a notification PDU (true); false for any other PDU.
    func route(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first,
            first == ATTOpcode.handleValueNotification.rawValue || first == ATTOpcode.multipleHandleValueNotification.rawValue
        else { return false }
        return state.withLock { state in
            guard bytes.count <= state.receiveLimit else { return false }
            state.bytesReceived += bytes.count
            if first == ATTOpcode.handleValueNotification.rawValue {
                state.notifications += 1
                // Opcode and a 2-byte handle; the rest is the value (ATT, Vol 3 Part F 3.4.7.1).
                guard bytes.count >= 3 else {
                    state.ignored += 1
                    return true
                }
                let handle = UInt16(bytes[1]) | UInt16(bytes[2]) << 8
                state.deliver(GATTNotification(handle: handle, value: Array(bytes[3...]), isIndication: false))
                return true
            }
            state.multipleNotifications += 1
            guard case .multipleHandleValueNotification(let multiple)? = try? ATTPDU(decoding: bytes) else {
                state.ignored += 1
                return true
            }
            for entry in multiple.values {
                state.deliver(GATTNotification(handle: entry.handle, value: entry.value, isIndication: false))
            }
            return true
        }
    }

    /// Sets the longest notification PDU routed here.
    func setReceiveLimit(_ limit: Int) {
        state.withLock { $0.receiveLimit = limit }
    }

    /// Delivers a value to every subscriber and sink of its handle.
    func deliver(_ notification: GATTNotification) {
        state.withLock { $0.deliver(notification) }
    }

    /// `counters` with what was routed here added.
    func adding(to counters: ATTCounters) -> ATTCounters {
        let (single, multiple, bytes, ignored, dropped) = state.withLock {
            ($0.notifications, $0.multipleNotifications, $0.bytesReceived, $0.ignored, $0.dropped)
        }
        var result = counters
        if single > 0 { result.pdusReceived[.handleValueNotification, default: 0] += single }
        if multiple > 0 { result.pdusReceived[.multipleHandleValueNotification, default: 0] += multiple }
        result.bytesReceived += bytes
        result.ignoredPDUs += ignored
        result.droppedValues += dropped
        return result
    }

    // MARK: Subscribers

    /// Adds a stream; false when the bearer has closed (the caller finishes it).
    func addSubscriber(_ continuation: AsyncStream<GATTNotification>.Continuation, handle: UInt16, id: UInt64) -> Bool {
        state.withLock { state in
            guard state.closeReason == nil else { return false }
            state.subscribers[handle, default: [:]][id] = Subscriber(continuation: continuation)
            return true
        }
    }

    /// Removes a stream, returning it (to finish) if it was there.
    func removeSubscriber(handle: UInt16, id: UInt64) -> AsyncStream<GATTNotification>.Continuation? {
        state.withLock { state in
            let removed = state.subscribers[handle]?.removeValue(forKey: id)
            if state.subscribers[handle]?.isEmpty == true { state.subscribers[handle] = nil }
            return removed?.continuation
        }
    }

    func droppedCount(handle: UInt16, id: UInt64) -> Int {
        state.withLock { $0.subscribers[handle]?[id]?.dropped ?? 0 }
    }

    var subscriberCount: Int {
        state.withLock { $0.subscribers.values.reduce(0) { $0 + $1.count } }
    }

    // MARK: Sinks

    /// Adds a sink; returns the close reason instead when the bearer has closed.
    func addSink(_ sink: GATTClient.ValueSink, handle: UInt16, id: UInt64) -> ATTCloseReason? {
        state.withLock { state in
            if let closeReason = state.closeReason { return closeReason }
            state.sinks[handle, default: [:]][id] = sink
            return nil
        }
    }

    func removeSink(_ id: UInt64, handle: UInt16) {
        state.withLock { $0.removeSink(id, handle: handle) }
    }

    // MARK: Close

    /// Stops routing and finishes every stream and sink (outside the lock). Idempotent.
    func close(_ reason: ATTCloseReason) {
        let ending = state.withLock { state -> ([AsyncStream<GATTNotification>.Continuation], [@Sendable (GATTClient.ValueSink.End) -> Void])? in
            guard state.closeReason == nil else { return nil }
            state.closeReason = reason
            let streams = state.subscribers.values.flatMap { $0.values.map(\.continuation) }
            state.subscribers.removeAll()
            let ended = state.sinks.values.flatMap { $0.values.map(\.finish) }
            state.sinks.removeAll()
            return (streams, ended)
        }
        guard let (streams, ended) = ending else { return }
        for stream in streams { stream.finish() }
        for finish in ended { finish(.closed(reason)) }
    }

    // MARK: Service Changed

    /// Ends every stream and sink whose handle lies in `range` (outside the lock): the
    /// attributes there are not what they were, so nothing may be routed to them any longer.
    func invalidate(_ range: ATTHandleRange) {
        let (streams, ended) = state.withLock { state in
            var streams: [AsyncStream<GATTNotification>.Continuation] = []
            var ended: [@Sendable (GATTClient.ValueSink.End) -> Void] = []
            for handle in state.subscribers.keys.filter(range.contains) {
                streams += state.subscribers.removeValue(forKey: handle)?.values.map(\.continuation) ?? []
            }
            for handle in state.sinks.keys.filter(range.contains) {
                ended += state.sinks.removeValue(forKey: handle)?.values.map(\.finish) ?? []
            }
            return (streams, ended)
        }
        for stream in streams { stream.finish() }
        for finish in ended { finish(.attributesChanged(range)) }
    }
}
