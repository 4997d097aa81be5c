import Foundation
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
final class GATTNotificationRouter: @unchecked Sendable {
    // @unchecked Sendable: every stored `var` is only touched with `lock` held. Under the lock
    // only sinks' `deliver` and stream `yield`s run (they hand a value over and never call back
    // into the client); streams and sinks are finished after the lock is released.
    private struct Subscriber {
        let continuation: AsyncStream<GATTNotification>.Continuation
        var dropped = 0
    }

    private let lock = NSLock()
    private var subscribers: [UInt16: [UInt64: Subscriber]] = [:]
    private var sinks: [UInt16: [UInt64: GATTClient.ValueSink]] = [:]
    private var closeReason: ATTCloseReason?
    /// The longest PDU the server may send now (the client's ``GATTClient/receiveLimit``): a
    /// longer notification is left to the actor, which treats it as a protocol violation.
    private var receiveLimit = ATT.defaultMTU
    // Counters of the PDUs routed here.
    private var notifications = 0
    private var multipleNotifications = 0
    private var bytesReceived = 0
    private var ignored = 0
    private var dropped = 0

    /// Decodes and delivers `bytes` if it is a notification PDU (true); false for any other PDU.
    func route(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first,
            first == ATTOpcode.handleValueNotification.rawValue || first == ATTOpcode.multipleHandleValueNotification.rawValue
        else { return false }
        lock.lock()
        defer { lock.unlock() }
        guard bytes.count <= receiveLimit else { return false }
        if first == ATTOpcode.handleValueNotification.rawValue { notifications += 1 } else { multipleNotifications += 1 }
        bytesReceived += bytes.count
        guard let pdu = try? ATTPDU(decoding: bytes) else {
            ignored += 1
            return true
        }
        switch pdu {
        case .handleValueNotification(let notification):
            deliverLocked(GATTNotification(handle: notification.handle, value: notification.value, isIndication: false))
        case .multipleHandleValueNotification(let multiple):
            for entry in multiple.values {
                deliverLocked(GATTNotification(handle: entry.handle, value: entry.value, isIndication: false))
            }
        default: break
        }
        return true
    }

    /// Sets the longest notification PDU routed here.
    func setReceiveLimit(_ limit: Int) {
        lock.lock()
        receiveLimit = limit
        lock.unlock()
    }

    /// Delivers a value to every subscriber and sink of its handle.
    func deliver(_ notification: GATTNotification) {
        lock.lock()
        deliverLocked(notification)
        lock.unlock()
    }

    private func deliverLocked(_ notification: GATTNotification) {
        guard closeReason == nil else { return }
        if let targets = sinks[notification.handle] {
            for (id, sink) in targets where !sink.deliver(notification) { removeSinkLocked(id, handle: notification.handle) }
        }
        guard let targets = subscribers[notification.handle] else { return }
        for (id, subscriber) in targets {
            if case .dropped = subscriber.continuation.yield(notification) {
                subscribers[notification.handle]?[id]?.dropped += 1
                dropped += 1
            }
        }
    }

    /// `counters` with what was routed here added.
    func adding(to counters: ATTCounters) -> ATTCounters {
        lock.lock()
        let (single, multiple, bytes, ignored, dropped) = (notifications, multipleNotifications, bytesReceived, ignored, dropped)
        lock.unlock()
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
        lock.lock()
        defer { lock.unlock() }
        guard closeReason == nil else { return false }
        subscribers[handle, default: [:]][id] = Subscriber(continuation: continuation)
        return true
    }

    /// Removes a stream, returning it (to finish) if it was there.
    func removeSubscriber(handle: UInt16, id: UInt64) -> AsyncStream<GATTNotification>.Continuation? {
        lock.lock()
        defer { lock.unlock() }
        let removed = subscribers[handle]?.removeValue(forKey: id)
        if subscribers[handle]?.isEmpty == true { subscribers[handle] = nil }
        return removed?.continuation
    }

    func droppedCount(handle: UInt16, id: UInt64) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return subscribers[handle]?[id]?.dropped ?? 0
    }

    var subscriberCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return subscribers.values.reduce(0) { $0 + $1.count }
    }

    // MARK: Sinks

    /// Adds a sink; returns the close reason instead when the bearer has closed.
    func addSink(_ sink: GATTClient.ValueSink, handle: UInt16, id: UInt64) -> ATTCloseReason? {
        lock.lock()
        defer { lock.unlock() }
        if let closeReason { return closeReason }
        sinks[handle, default: [:]][id] = sink
        return nil
    }

    func removeSink(_ id: UInt64, handle: UInt16) {
        lock.lock()
        removeSinkLocked(id, handle: handle)
        lock.unlock()
    }

    private func removeSinkLocked(_ id: UInt64, handle: UInt16) {
        sinks[handle]?[id] = nil
        if sinks[handle]?.isEmpty == true { sinks[handle] = nil }
    }

    // MARK: Close

    /// Stops routing and finishes every stream and sink (outside the lock). Idempotent.
    func close(_ reason: ATTCloseReason) {
        lock.lock()
        guard closeReason == nil else {
            lock.unlock()
            return
        }
        closeReason = reason
        let streams = subscribers.values.flatMap { $0.values.map(\.continuation) }
        subscribers.removeAll()
        let ended = sinks.values.flatMap { $0.values.map(\.finish) }
        sinks.removeAll()
        lock.unlock()
        for stream in streams { stream.finish() }
        for finish in ended { finish(.closed(reason)) }
    }

    // MARK: Service Changed

    /// Ends every stream and sink whose handle lies in `range` (outside the lock): the
    /// attributes there are not what they were, so nothing may be routed to them any longer.
    func invalidate(_ range: ATTHandleRange) {
        lock.lock()
        var streams: [AsyncStream<GATTNotification>.Continuation] = []
        var ended: [@Sendable (GATTClient.ValueSink.End) -> Void] = []
        for handle in subscribers.keys.filter(range.contains) {
            streams += subscribers.removeValue(forKey: handle)?.values.map(\.continuation) ?? []
        }
        for handle in sinks.keys.filter(range.contains) {
            ended += sinks.removeValue(forKey: handle)?.values.map(\.finish) ?? []
        }
        lock.unlock()
        for stream in streams { stream.finish() }
        for finish in ended { finish(.attributesChanged(range)) }
    }
}
