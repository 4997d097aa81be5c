import Foundation

/// An LE connection between two simulated devices, carrying L2CAP payloads (ATT PDUs) with the
/// timing of ``LinkParameters``, on a ``VirtualClock``.
///
/// Sending never blocks on the receiver: a PDU is scheduled onto the sender's next free
/// link-layer packets and becomes visible to the receiver at the instant its last packet has
/// been sent. A sender waits only when its transmit buffer is full. Nothing runs while a link is
/// idle — no timer ticks between events — so a simulation of many idle links costs nothing.
///
/// Faults (``LinkFault``) drop, delay, corrupt or truncate chosen PDUs, or drop the link.
public actor SimulatedLink {
    /// Something a side receives.
    public enum Event: Hashable, Sendable {
        /// A PDU from the peer.
        case pdu([UInt8])
        /// The link closed; nothing follows.
        case closed(LinkCloseReason)
    }

    private struct Scheduled {
        var bytes: [UInt8]
        var deliverAt: VirtualInstant
    }

    /// One direction's state. A class, mutated in place inside the actor, so that queue updates
    /// never copy the arrays.
    private final class Direction {
        var queue: [Scheduled] = []
        var head = 0
        /// End times of packets scheduled but not yet sent, oldest first (transmit buffer).
        var bufferedPacketEnds: [VirtualInstant] = []
        /// Next free packet slot: event index and slot within the event.
        var nextEvent: Int64 = 0
        var nextSlot = 0
        var pduCount = 0
        var receiver: ParkingSpot?
        /// The clock wake-up of `receiver` at the delivery instant of the head PDU, if set.
        var receiverTimer: UInt64?
        var closeDelivered = false
    }

    public nonisolated let parameters: LinkParameters
    public nonisolated let clock: VirtualClock
    private let anchor: VirtualInstant
    private let centralLane = Direction()
    private let peripheralLane = Direction()
    private var faults: [LinkFault] = []
    private var closeReason: LinkCloseReason?
    private var recentDataEvents: Set<Int64> = []
    private var stats = LinkStatistics()

    /// A link whose first connection event is now.
    public init(parameters: LinkParameters = .typical, clock: VirtualClock) {
        self.parameters = parameters
        self.clock = clock
        self.anchor = clock.now
    }

    /// Counters of what the link has carried so far.
    public var statistics: LinkStatistics { stats }

    /// Why the link closed, or nil while it is open.
    public var closedReason: LinkCloseReason? { closeReason }

    /// True until the link closes; readable without a hop to the link (for scripts that poll).
    public nonisolated var isOpen: Bool { !closedFlag.isSet }
    private nonisolated let closedFlag = ClosedFlag()

    /// Adds a fault to apply to a future PDU.
    public func inject(_ fault: LinkFault) {
        faults.append(fault)
    }

    /// True when `side` has room in its transmit buffer for a PDU of `length` bytes right now.
    public func canSend(length: Int, from side: LinkSide) -> Bool {
        guard closeReason == nil else { return false }
        let needed = min(parameters.packetCount(sduLength: length), parameters.transmitBufferPackets)
        return bufferedPackets(side) + needed <= parameters.transmitBufferPackets
    }

    /// Queues `pdu` for the peer; waits while the transmit buffer is full.
    ///
    /// Throws ``SimulatedLinkClosed`` if the link is closed (before or while waiting), and
    /// `CancellationError` if the task is cancelled while waiting for room.
    public func send(_ pdu: [UInt8], from side: LinkSide) async throws {
        let packets = parameters.packetCount(sduLength: pdu.count)
        let needed = min(packets, parameters.transmitBufferPackets)
        while true {
            if let reason = closeReason { throw SimulatedLinkClosed(reason: reason) }
            if bufferedPackets(side) + needed <= parameters.transmitBufferPackets { break }
            // Wait until the oldest buffered packet has gone out.
            guard let oldest = lane(side).bufferedPacketEnds.first else { break }
            try await clock.sleep(until: oldest)
        }
        lane(side).pduCount += 1
        let number = lane(side).pduCount
        var bytes = pdu
        var extraDelay = Duration.zero
        for fault in faults where fault.from == side && fault.pduNumber == number {
            switch fault.action {
            case .drop:
                stats.pdusDropped += 1
                return
            case let .delay(duration):
                extraDelay += duration
            case let .corrupt(index, mask):
                if bytes.indices.contains(index) { bytes[index] ^= mask }
            case let .truncate(length):
                bytes = Array(bytes.prefix(max(0, length)))
            case .dropLink:
                close(reason: .connectionTimeout)
                return
            }
        }
        let lastPacketEnd = schedulePackets(packets, from: side)
        stats.pdusSent[side, default: 0] += 1
        stats.bytesSent[side, default: 0] += pdu.count
        let deliverAt = lastPacketEnd.advanced(by: extraDelay)
        let peer = lane(side.peer)
        peer.queue.append(Scheduled(bytes: bytes, deliverAt: deliverAt))
        // A receiver already timed for the head PDU needs nothing: this one is behind it. An
        // idle receiver is woken when the PDU arrives, not now, so it waits once per PDU.
        if let receiver = peer.receiver, peer.receiverTimer == nil {
            if deliverAt > clock.now, peer.head == peer.queue.count - 1 {
                peer.receiverTimer = clock.wake(receiver, at: deliverAt)
                if peer.receiverTimer == nil { peer.receiver = nil }
            } else {
                wakeReceiver(side.peer)
            }
        }
    }

    /// The next event for `side`: a PDU once its delivery time has come, or the close event.
    /// Returns nil after the close event has been delivered.
    public func receive(on side: LinkSide) async -> Event? {
        while true {
            let direction = lane(side)
            if direction.head < direction.queue.count {
                let item = direction.queue[direction.head]
                if item.deliverAt > clock.now {
                    // Wait until the delivery instant; a cancelled wait ends the stream (with the
                    // close event if the link closed), a close wakes it early.
                    if Task.isCancelled { return closeEvent(side) }
                    let spot = ParkingSpot()
                    direction.receiver = spot
                    direction.receiverTimer = clock.wake(spot, at: item.deliverAt)
                    await spot.wait()
                    stopWaiting(spot, side)
                    continue
                }
                direction.head += 1
                if direction.head == direction.queue.count {
                    direction.queue.removeAll(keepingCapacity: true)
                    direction.head = 0
                } else if direction.head > 64, direction.head * 2 > direction.queue.count {
                    // A stream that never drains: drop what was delivered.
                    direction.queue.removeFirst(direction.head)
                    direction.head = 0
                }
                return .pdu(item.bytes)
            }
            if closeReason != nil { return closeEvent(side) }
            if Task.isCancelled { return nil }
            let spot = ParkingSpot()
            lane(side).receiver = spot
            await spot.wait()
            stopWaiting(spot, side)
        }
    }

    /// Closes the link. PDUs already delivered stay delivered; PDUs still in flight are lost, as
    /// on a real link. Both sides then receive ``Event/closed(_:)``. Closing twice keeps the
    /// first reason.
    public func close(reason: LinkCloseReason) {
        guard closeReason == nil else { return }
        closeReason = reason
        closedFlag.set()
        for side in [LinkSide.central, .peripheral] {
            let now = clock.now
            // Keep what has already arrived; drop the rest.
            lane(side).queue.removeAll { $0.deliverAt > now }
            lane(side).head = min(lane(side).head, lane(side).queue.count)
            lane(side).bufferedPacketEnds.removeAll()
            wakeReceiver(side)
        }
    }

    // MARK: Internals

    private func lane(_ side: LinkSide) -> Direction { side == .central ? centralLane : peripheralLane }

    private func closeEvent(_ side: LinkSide) -> Event? {
        guard let reason = closeReason, !lane(side).closeDelivered else { return nil }
        lane(side).closeDelivered = true
        return .closed(reason)
    }

    private func wakeReceiver(_ side: LinkSide) {
        let direction = lane(side)
        if let timer = direction.receiverTimer {
            direction.receiverTimer = nil
            clock.cancelWake(timer)
        }
        if let receiver = direction.receiver {
            direction.receiver = nil
            receiver.wake()
        }
    }

    /// Clears the receiver's parking state after `spot`'s wait ended (woken, timed out or cancelled).
    private func stopWaiting(_ spot: ParkingSpot, _ side: LinkSide) {
        let direction = lane(side)
        guard direction.receiver === spot else { return }
        direction.receiver = nil
        if let timer = direction.receiverTimer {
            direction.receiverTimer = nil
            clock.cancelWake(timer)
        }
    }

    private func bufferedPackets(_ side: LinkSide) -> Int {
        let now = clock.now
        lane(side).bufferedPacketEnds.removeAll { $0 <= now }
        return lane(side).bufferedPacketEnds.count
    }

    /// Assigns `count` packets to the side's next free slots; returns when the last one ends.
    private func schedulePackets(_ count: Int, from side: LinkSide) -> VirtualInstant {
        let perEvent = parameters.effectivePacketsPerEvent
        let interval = parameters.connectionInterval
        let exchange = parameters.exchangeTime
        let now = clock.now
        // The first slot that starts at or after now: later in the current event if the
        // event still has slots, else the first slot of the next event.
        let sinceAnchor = max(anchor.duration(to: now), .zero)
        // The event under way now (Duration division is costly: done once per call).
        let currentEvent = Int64((sinceAnchor / interval).rounded(.down))
        var earliestEvent = currentEvent
        let intoEvent = sinceAnchor - interval * Int(earliestEvent)
        var earliestSlot = Int((intoEvent / exchange).rounded(.up))
        if earliestSlot >= perEvent {
            earliestEvent += 1
            earliestSlot = 0
        }
        let direction = lane(side)
        if (direction.nextEvent, direction.nextSlot) < (earliestEvent, earliestSlot) {
            direction.nextEvent = earliestEvent
            direction.nextSlot = earliestSlot
        }
        var end = now
        for _ in 0..<count {
            let event = direction.nextEvent
            let slot = direction.nextSlot
            end = anchor.advanced(by: interval * Int(event) + exchange * (slot + 1))
            direction.bufferedPacketEnds.append(end)
            if recentDataEvents.insert(event).inserted { stats.eventsWithData += 1 }
            stats.eventsElapsed = max(stats.eventsElapsed, Int(event) + 1)
            stats.packetsSent[side, default: 0] += 1
            stats.airTime += exchange - .microseconds(300)
            direction.nextSlot += 1
            if direction.nextSlot == perEvent {
                direction.nextSlot = 0
                direction.nextEvent += 1
            }
        }
        // Events that both sides have passed can never carry data again: a side's next packet goes
        // no earlier than its next free slot, and never into an event that has already begun. (A
        // side that stays silent must not hold the floor back, or the set grows with every event.)
        let floor = min(max(lane(.central).nextEvent, currentEvent), max(lane(.peripheral).nextEvent, currentEvent))
        if recentDataEvents.count > 64 { recentDataEvents = recentDataEvents.filter { $0 >= floor } }
        return end
    }
}

/// Set once when a link closes.
private final class ClosedFlag: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched with `lock` held.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
