import DequeModule
import HaraldCore

/// An LE connection between two simulated devices, carrying L2CAP payloads with the timing of
/// ``LinkParameters``, on a ``VirtualClock``: ATT PDUs on the ATT channel, and the LE signaling
/// commands and K-frames of connection-oriented channels (`channelFrames(on:_:)`) in the same
/// connection events, so both share the link's capacity as they do on air.
///
/// Sending never blocks on the receiver: a PDU is scheduled onto the sender's next free
/// link-layer packets and becomes visible to the receiver at the instant its last packet has
/// been sent. A sender waits only when its transmit buffer is full. Nothing runs while a link is
/// idle — no timer ticks between events — so a simulation of many idle links costs nothing.
///
/// A side takes what arrives by pulling (``receive(on:)``) or by having it pushed at each delivery
/// instant (``SimulatedATTBearer``). Deliveries are timers of the ``VirtualClock``, run in place by
/// whatever advances it (inside a ``Simulation``, its one thread): no task per PDU.
///
/// Faults (``LinkFault``) drop, delay, corrupt or truncate chosen PDUs, or drop the link.
public final class SimulatedLink: Sendable {
    // Every mutable part of the link (the two `Direction`s and what they hold, the faults, the
    // close reason, the counters) lives in `state` and is touched only inside `state.withLock`.
    // Under the lock the link calls only the clock's `now`, `schedule` and `cancelWake` (which
    // take the clock's own lock and never call back: the clock runs timer actions from
    // `advance…`, outside its lock) and a side's push receiver, which must not call the link (see
    // `deliverEvents(on:to:)`). Parked receivers are woken after the lock is released. So the
    // lock order is link, then clock, and nothing can deadlock on it.

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
        /// The L2CAP channel it is on (ATT, 0x0004, unless a channel frame).
        var cid: UInt16 = SimulatedLink.attributeProtocol
    }

    /// The ATT channel identifier: PDUs on it are ATT's (``Event/pdu(_:)``); any other goes to the
    /// side's channel frame receiver.
    public static let attributeProtocol: UInt16 = 0x0004

    /// Something a side's connection-oriented channels receive.
    public enum ChannelFrame: Hashable, Sendable {
        /// An L2CAP payload on channel `cid` (the LE signaling channel or a dynamic channel).
        case frame(cid: UInt16, [UInt8])
        /// The link closed.
        case closed
    }

    /// One side's state: what it receives (its direction, named after the receiving side) and
    /// its transmit state. A value inside `LinkState`, changed in place through
    /// `LinkState.withLane(_:_:)` (a class would cost a run-time exclusivity check on every field
    /// access).
    private struct Direction {
        let side: LinkSide
        /// PDUs in flight to this side, in sending order (a delayed head holds back the rest).
        var queue = Deque<Scheduled>()
        /// The clock timer at the head PDU's delivery instant, armed while `queue` has PDUs.
        var deliveryTimer: VirtualClock.Timer?
        /// Delivered PDUs not taken yet by ``SimulatedLink/receive(on:)`` (pull mode).
        var arrived = Deque<[UInt8]>()
        /// Push mode: called with each delivered PDU and the close event, under the link's lock.
        var pushReceiver: (@Sendable (Event) -> Void)?
        /// Called with each delivered frame of another channel than ATT, and the close, under the
        /// link's lock; frames of such channels are dropped while there is none.
        var channelReceiver: (@Sendable (ChannelFrame) -> Void)?
        /// A task parked in ``SimulatedLink/receive(on:)``.
        var receiver: ParkingSpot?
        var closeDelivered = false
        // This side's transmit state.
        /// End times of packets this side scheduled but has not sent yet (transmit buffer),
        /// oldest first.
        var bufferedPacketEnds = Deque<VirtualInstant>()
        /// This side's next free packet slot: event index and slot within the event.
        var nextEvent: Int64 = 0
        var nextSlot = 0
        /// PDUs this side has sent (numbering for faults).
        var pduCount = 0
        var pdusSent = 0
        var bytesSent = 0
        var packetsSent = 0

        init(side: LinkSide) { self.side = side }

        /// Packets this side has queued and not yet sent by `now`.
        mutating func bufferedPackets(now: VirtualInstant) -> Int {
            while let first = bufferedPacketEnds.first, first <= now { bufferedPacketEnds.removeFirst() }
            return bufferedPacketEnds.count
        }
    }

    /// What the timing model counts across both sides.
    private struct Timing {
        /// Connection events that carried data and that a side may still send in (rising per side).
        var recentDataEvents: [Int64] = []
        var eventsWithData = 0
        var eventsElapsed = 0
        var airTime = Duration.zero
    }

    /// The link's mutable state; only ever reached through `state.withLock`, so every helper
    /// that takes it runs with the lock held.
    private struct LinkState {
        var central = Direction(side: .central)
        var peripheral = Direction(side: .peripheral)
        var timing = Timing()
        var faults: [LinkFault] = []
        var closeReason: LinkCloseReason?
        /// The clock's ``VirtualClock/atEnd(_:)`` registration that closes the link if it is
        /// still open when the simulation ends; removed when it closes.
        var endAction: UInt64?
        var pdusDropped = 0

        /// Runs `body` on `side`'s state (the direction it receives on and its transmit state),
        /// changed in place.
        mutating func withLane<R>(_ side: LinkSide, _ body: (inout Direction) -> R) -> R {
            switch side {
            case .central: body(&central)
            case .peripheral: body(&peripheral)
            }
        }

        /// ``withLane(_:_:)`` with the timing counters too.
        mutating func withLaneAndTiming<R>(_ side: LinkSide, _ body: (inout Direction, inout Timing) -> R) -> R {
            switch side {
            case .central: body(&central, &timing)
            case .peripheral: body(&peripheral, &timing)
            }
        }
    }

    /// The timing the link models.
    public let parameters: LinkParameters
    /// The virtual clock deliveries are scheduled on.
    public let clock: VirtualClock
    private let anchor: VirtualInstant
    private let state = Locked(LinkState())
    // Constants of the timing model, computed once (Duration arithmetic is not free).
    private let perEvent: Int
    private let interval: Duration
    private let exchange: Duration
    private let packetAirTime: Duration
    /// `interval` and `exchange` in nanoseconds when both are whole numbers of them (every
    /// standard PHY's timing is), for integer arithmetic on the send path; nil otherwise.
    private let intervalNanoseconds: Int64?
    private let exchangeNanoseconds: Int64?

    /// A link whose first connection event is now.
    public init(parameters: LinkParameters = .typical, clock: VirtualClock) {
        self.parameters = parameters
        self.clock = clock
        self.anchor = clock.now
        self.perEvent = parameters.effectivePacketsPerEvent
        self.interval = parameters.connectionInterval
        self.exchange = parameters.exchangeTime
        self.packetAirTime = parameters.exchangeTime - .microseconds(300)
        if let interval = wholeNanoseconds(parameters.connectionInterval), let exchange = wholeNanoseconds(parameters.exchangeTime), interval > 0, exchange > 0
        {
            self.intervalNanoseconds = interval
            self.exchangeNanoseconds = exchange
        } else {
            self.intervalNanoseconds = nil
            self.exchangeNanoseconds = nil
        }
        // A link still open when its simulation ends closes then (the clock holds it until).
        let endAction = clock.atEnd { [self] in
            let woken = state.withLock { close(&$0, .failure("the simulation ended"), now: clock.now) }
            for spot in woken { spot.wake() }
        }
        state.withLock { $0.endAction = endAction }
    }

    /// Counters of what the link has carried so far.
    public var statistics: LinkStatistics {
        get async {
            state.withLock { state in
                var stats = LinkStatistics()
                for lane in [state.central, state.peripheral] {
                    stats.pdusSent[lane.side] = lane.pdusSent
                    stats.bytesSent[lane.side] = lane.bytesSent
                    stats.packetsSent[lane.side] = lane.packetsSent
                }
                stats.eventsWithData = state.timing.eventsWithData
                stats.eventsElapsed = state.timing.eventsElapsed
                stats.airTime = state.timing.airTime
                stats.pdusDropped = state.pdusDropped
                return stats
            }
        }
    }

    /// Why the link closed, or nil while it is open.
    public var closedReason: LinkCloseReason? {
        get async { state.withLock { $0.closeReason } }
    }

    /// True until the link closes.
    public var isOpen: Bool { state.withLock { $0.closeReason == nil } }

    /// Adds a fault to apply to a future PDU.
    nonisolated(nonsending) public func inject(_ fault: LinkFault) async {
        state.withLock { $0.faults.append(fault) }
    }

    /// True when `side` has room in its transmit buffer for a PDU of `length` bytes right now.
    nonisolated(nonsending) public func canSend(length: Int, from side: LinkSide) async -> Bool {
        let now = clock.now
        return state.withLock { state in
            guard state.closeReason == nil else { return false }
            let needed = min(parameters.packetCount(sduLength: length), parameters.transmitBufferPackets)
            return state.withLane(side) { $0.bufferedPackets(now: now) } + needed <= parameters.transmitBufferPackets
        }
    }

    /// Queues `pdu` for the peer; waits while the transmit buffer is full.
    ///
    /// Runs on the caller's executor (no hop): when there is room it returns without suspending.
    /// Throws ``SimulatedLinkClosed`` if the link is closed (before or while waiting), and
    /// `CancellationError` if the task is cancelled while waiting for room.
    nonisolated(nonsending) public func send(_ pdu: [UInt8], from side: LinkSide, cid: UInt16 = SimulatedLink.attributeProtocol) async throws {
        let packets = parameters.packetCount(sduLength: pdu.count)
        let needed = min(packets, parameters.transmitBufferPackets)
        while true {
            switch enqueue(pdu, packets: packets, needed: needed, from: side, cid: cid) {
            case .sent: return
            case .closed(let reason): throw SimulatedLinkClosed(reason: reason)
            case .wait(let oldest): try await clock.sleep(until: oldest)
            }
        }
    }

    /// Queues `pdu` for the peer if the transmit buffer has room right now; never waits. True
    /// when queued; false when the buffer is full or the link closed.
    package func sendWithoutWaiting(_ pdu: [UInt8], from side: LinkSide) -> (sent: Bool, closed: Bool) {
        let packets = parameters.packetCount(sduLength: pdu.count)
        switch enqueue(pdu, packets: packets, needed: min(packets, parameters.transmitBufferPackets), from: side) {
        case .sent: return (true, false)
        case .closed: return (false, true)
        case .wait: return (false, false)
        }
    }

    private enum SendOutcome {
        case sent
        case closed(LinkCloseReason)
        /// No room: retry once the oldest buffered packet has gone out.
        case wait(VirtualInstant)
    }

    /// The synchronous part of ``send(_:from:cid:)``: schedules the PDU if there is room.
    private func enqueue(_ pdu: [UInt8], packets: Int, needed: Int, from side: LinkSide, cid: UInt16 = SimulatedLink.attributeProtocol)
        -> SendOutcome
    {
        let now = clock.now
        let (outcome, woken) = state.withLock { state -> (SendOutcome, [ParkingSpot]) in
            if let reason = state.closeReason { return (.closed(reason), []) }
            let limit = parameters.transmitBufferPackets
            // The PDU's number on this side, or the instant its oldest buffered packet goes out.
            let admitted = state.withLane(side) { lane -> (number: Int, blockedUntil: VirtualInstant?) in
                if lane.bufferedPackets(now: now) + needed > limit, let oldest = lane.bufferedPacketEnds.first {
                    return (0, oldest)
                }
                lane.pduCount += 1
                return (lane.pduCount, nil)
            }
            if let oldest = admitted.blockedUntil { return (.wait(oldest), []) }
            let number = admitted.number
            var bytes = pdu
            var extraDelay = Duration.zero
            for fault in state.faults where fault.from == side && fault.pduNumber == number {
                switch fault.action {
                case .drop:
                    state.pdusDropped += 1
                    return (.sent, [])
                case let .delay(duration):
                    extraDelay += duration
                case let .corrupt(index, mask):
                    if bytes.indices.contains(index) { bytes[index] ^= mask }
                case let .truncate(length):
                    bytes = Array(bytes.prefix(max(0, length)))
                case .dropLink:
                    return (.sent, close(&state, .connectionTimeout, now: now))
                }
            }
            let lastPacketEnd = schedulePackets(packets, bytes: pdu.count, from: side, now: now, in: &state)
            let deliverAt = extraDelay == .zero ? lastPacketEnd : lastPacketEnd.advanced(by: extraDelay)
            let peer = side.peer
            // The head of an idle direction gets a timer; later PDUs wait for the head's to fire.
            let armsTimer = state.withLane(peer) { lane -> Bool in
                lane.queue.append(Scheduled(bytes: bytes, deliverAt: deliverAt, cid: cid))
                return lane.deliveryTimer == nil && lane.queue.count == 1
            }
            guard armsTimer, let spot = Self.armDelivery(peer, at: deliverAt, in: &state, box: self.state, clock: clock) else {
                return (.sent, [])
            }
            return (.sent, [spot])
        }
        for spot in woken { spot.wake() }
        return outcome
    }

    /// The next event for `side`: a PDU once its delivery time has come, or the close event.
    /// Returns nil after the close event has been delivered, and when the waiting task is
    /// cancelled (with the close event instead if the link has closed). For a side whose
    /// PDUs go to a push receiver (``SimulatedATTBearer``), nothing arrives here.
    nonisolated(nonsending) public func receive(on side: LinkSide) async -> Event? {
        while true {
            switch nextArrival(side, cancelled: Task.isCancelled) {
            case .event(let event): return event
            case .park(let spot):
                await spot.wait()
                state.withLock { state in
                    state.withLane(side) { lane in
                        if lane.receiver === spot { lane.receiver = nil }
                    }
                }
            }
        }
    }

    private enum Arrival {
        case event(Event?)
        case park(ParkingSpot)
    }

    /// The synchronous part of ``receive(on:)``: an arrived PDU, the close event, or a spot to
    /// park on until something arrives.
    private func nextArrival(_ side: LinkSide, cancelled: Bool) -> Arrival {
        state.withLock { state in
            let taken = state.withLane(side) { $0.arrived.popFirst() }
            if let taken { return .event(.pdu(taken)) }
            if state.closeReason != nil || cancelled { return .event(closeEvent(side, in: &state)) }
            let spot = ParkingSpot()
            state.withLane(side) { $0.receiver = spot }
            return .park(spot)
        }
    }

    /// Sends `side`'s deliveries to `receiver` from now on instead of keeping them for
    /// ``receive(on:)``: each PDU at its delivery instant, then the close event. PDUs delivered
    /// and not taken yet go first. `receiver` runs with the link's lock held, on the thread that
    /// advances the clock (or that closes the link): it must be quick and must not call the link.
    internal func deliverEvents(on side: LinkSide, to receiver: @escaping @Sendable (Event) -> Void) {
        state.withLock { state in
            state.withLane(side) { lane in
                lane.pushReceiver = receiver
                for bytes in lane.arrived { receiver(.pdu(bytes)) }
                lane.arrived.removeAll()
            }
            if state.closeReason != nil, let event = closeEvent(side, in: &state) {
                receiver(event)
                state.withLane(side) { $0.pushReceiver = nil }
            }
        }
    }

    /// Sends `side`'s frames of every channel but ATT to `receiver` from now on, each at its
    /// delivery instant, then ``ChannelFrame/closed`` once. `receiver` runs with the link's lock
    /// held, on the thread that advances the clock: it must be quick and must not call the link.
    package func channelFrames(on side: LinkSide, _ receiver: @escaping @Sendable (ChannelFrame) -> Void) {
        state.withLock { state in
            if state.closeReason != nil {
                receiver(.closed)
            } else {
                state.withLane(side) { $0.channelReceiver = receiver }
            }
        }
    }

    /// Closes the link. PDUs already delivered stay delivered; PDUs still in flight are lost, as
    /// on a real link. Both sides then receive ``Event/closed(_:)``. Closing twice keeps the
    /// first reason.
    nonisolated(nonsending) public func close(reason: LinkCloseReason) async {
        let now = clock.now
        let woken = state.withLock { close(&$0, reason, now: now) }
        for spot in woken { spot.wake() }
    }

    // MARK: Internals (each takes the state, so runs with the lock held)

    /// Records the close and pushes the close event. Returns the parked receivers to wake once
    /// the lock is released.
    private func close(_ state: inout LinkState, _ reason: LinkCloseReason, now: VirtualInstant) -> [ParkingSpot] {
        guard state.closeReason == nil else { return [] }
        if let endAction = state.endAction {
            state.endAction = nil
            clock.removeEndAction(endAction)
        }
        var woken: [ParkingSpot] = []
        for side in [LinkSide.central, .peripheral] {
            // What has arrived stays delivered (also PDUs held back behind a delayed one whose
            // time has come); what is still in flight is lost.
            if let spot = Self.deliverDue(side, now: now, rearm: false, in: &state, box: self.state, clock: clock) { woken.append(spot) }
            let timer = state.withLane(side) { lane -> VirtualClock.Timer? in
                defer { lane.deliveryTimer = nil }
                lane.queue.removeAll()
                lane.bufferedPacketEnds.removeAll()
                return lane.deliveryTimer
            }
            if let timer { clock.cancelWake(timer) }
        }
        state.closeReason = reason
        for side in [LinkSide.central, .peripheral] {
            if let channels = state.withLane(side, { $0.channelReceiver }) {
                channels(.closed)
                state.withLane(side) { $0.channelReceiver = nil }
            }
            if let push = state.withLane(side, { $0.pushReceiver }), let event = closeEvent(side, in: &state) {
                push(event)
                state.withLane(side) { $0.pushReceiver = nil }
            }
            let receiver = state.withLane(side) { lane -> ParkingSpot? in
                defer { lane.receiver = nil }
                return lane.receiver
            }
            if let receiver, !woken.contains(where: { $0 === receiver }) { woken.append(receiver) }
        }
        return woken
    }

    /// The close event, once per side.
    private func closeEvent(_ side: LinkSide, in state: inout LinkState) -> Event? {
        guard let reason = state.closeReason else { return nil }
        let first = state.withLane(side) { lane -> Bool in
            defer { lane.closeDelivered = true }
            return !lane.closeDelivered
        }
        return first ? .closed(reason) : nil
    }

    /// Sets `side`'s delivery timer for `instant` (or delivers at once when that has come).
    /// Returns a parked receiver to wake. The timer holds the link's state and clock, never the
    /// link: a weak reference to the link would give it a side table, which slows every retain
    /// and release of it, and a strong one would keep a dropped link alive until its timer fired.
    private static func armDelivery(
        _ side: LinkSide, at instant: VirtualInstant, in state: inout LinkState, box: Locked<LinkState>, clock: VirtualClock
    ) -> ParkingSpot? {
        // `unowned` clock: only the clock runs the action, so it is alive then; a strong
        // reference would make every pending timer a cycle through the clock.
        if let token = clock.schedule(at: instant, { [unowned clock] now in deliveryTimerFired(side, now: now, box: box, clock: clock) }) {
            state.withLane(side) { $0.deliveryTimer = token }
            return nil
        }
        return deliverDue(side, now: clock.now, rearm: true, in: &state, box: box, clock: clock)
    }

    private static func deliveryTimerFired(_ side: LinkSide, now: VirtualInstant, box: Locked<LinkState>, clock: VirtualClock) {
        let woken = box.withLock { state in
            state.withLane(side) { $0.deliveryTimer = nil }
            return deliverDue(side, now: now, rearm: true, in: &state, box: box, clock: clock)
        }
        woken?.wake()
    }

    /// Hands over every PDU for `side` whose time has come, in order (to the push receiver, or
    /// to the pull queue), and when `rearm` sets the timer for the next one. Returns a parked
    /// receiver to wake.
    private static func deliverDue(
        _ side: LinkSide, now: VirtualInstant, rearm: Bool, in state: inout LinkState, box: Locked<LinkState>, clock: VirtualClock
    ) -> ParkingSpot? {
        let (woken, next) = state.withLane(side) { lane -> (ParkingSpot?, VirtualInstant?) in
            var woken: ParkingSpot?
            // The push receiver does not call the link (see `deliverEvents(on:to:)`).
            let push = lane.pushReceiver
            while let first = lane.queue.first, first.deliverAt <= now {
                let scheduled = lane.queue.removeFirst()
                let bytes = scheduled.bytes
                if scheduled.cid != SimulatedLink.attributeProtocol {
                    lane.channelReceiver?(.frame(cid: scheduled.cid, bytes))
                } else if let push {
                    push(.pdu(bytes))
                } else {
                    lane.arrived.append(bytes)
                    if woken == nil, let receiver = lane.receiver {
                        lane.receiver = nil
                        woken = receiver
                    }
                }
            }
            guard let next = lane.queue.first, rearm, lane.deliveryTimer == nil else { return (woken, nil) }
            return (woken, next.deliverAt)
        }
        guard let next else { return woken }
        let later = armDelivery(side, at: next, in: &state, box: box, clock: clock)
        return woken ?? later
    }

    /// Assigns `count` packets to the side's next free slots and counts a PDU of `bytes` bytes
    /// sent; returns when the last packet ends.
    private func schedulePackets(_ count: Int, bytes: Int, from side: LinkSide, now: VirtualInstant, in state: inout LinkState) -> VirtualInstant {
        // The first slot that starts at or after now: later in the current event if the
        // event still has slots, else the first slot of the next event.
        let (currentEvent, firstFreeSlot) = eventAndSlot(at: now)
        var earliestEvent = currentEvent
        var earliestSlot = firstFreeSlot
        if earliestSlot >= perEvent {
            earliestEvent += 1
            earliestSlot = 0
        }
        let end = state.withLaneAndTiming(side) { lane, timing -> VirtualInstant in
            if (lane.nextEvent, lane.nextSlot) < (earliestEvent, earliestSlot) {
                lane.nextEvent = earliestEvent
                lane.nextSlot = earliestSlot
            }
            var end = now
            for _ in 0..<count {
                let event = lane.nextEvent
                end = slotEnd(event: event, slot: lane.nextSlot)
                lane.bufferedPacketEnds.append(end)
                // Events come in rising order per side, so a repeat is found near the end.
                if !timing.recentDataEvents.reversed().contains(event) {
                    timing.recentDataEvents.append(event)
                    timing.eventsWithData += 1
                }
                timing.eventsElapsed = max(timing.eventsElapsed, Int(event) + 1)
                lane.packetsSent += 1
                timing.airTime += packetAirTime
                lane.nextSlot += 1
                if lane.nextSlot == perEvent {
                    lane.nextSlot = 0
                    lane.nextEvent += 1
                }
            }
            lane.pdusSent += 1
            lane.bytesSent += bytes
            return end
        }
        // Events that both sides have passed can never carry data again: a side's next packet goes
        // no earlier than its next free slot, and never into an event that has already begun. (A
        // side that stays silent must not hold the floor back, or the list grows with every event.)
        if state.timing.recentDataEvents.count > 64 {
            let floor = min(max(state.central.nextEvent, currentEvent), max(state.peripheral.nextEvent, currentEvent))
            state.timing.recentDataEvents.removeAll { $0 < floor }
        }
        return end
    }

    /// The connection event under way at `instant` (counted from the anchor) and the first slot
    /// of it that starts at or after `instant` (which may be past the event's last slot).
    private func eventAndSlot(at instant: VirtualInstant) -> (event: Int64, slot: Int) {
        let sinceAnchor = max(anchor.duration(to: instant), .zero)
        if let intervalNanoseconds, let exchangeNanoseconds {
            // Whole nanoseconds, plus whether a fraction of one is left over (slot starts are
            // whole nanoseconds from the anchor, so a fraction only matters for rounding up).
            let (seconds, attoseconds) = sinceAnchor.components
            let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
            let fraction = attoseconds % 1_000_000_000 != 0
            let event = nanoseconds / intervalNanoseconds
            let intoEvent = nanoseconds - event * intervalNanoseconds
            let slot = intoEvent / exchangeNanoseconds + (intoEvent % exchangeNanoseconds != 0 || fraction ? 1 : 0)
            return (event, Int(slot))
        }
        // Timing constants that are not whole nanoseconds: Duration arithmetic (slower).
        let event = Int64((sinceAnchor / interval).rounded(.down))
        let intoEvent = sinceAnchor - interval * Int(event)
        return (event, Int((intoEvent / exchange).rounded(.up)))
    }

    /// When packet slot `slot` of connection event `event` ends.
    private func slotEnd(event: Int64, slot: Int) -> VirtualInstant {
        if let intervalNanoseconds, let exchangeNanoseconds {
            return anchor.advanced(by: .nanoseconds(intervalNanoseconds * event + exchangeNanoseconds * Int64(slot + 1)))
        }
        return anchor.advanced(by: interval * Int(event) + exchange * (slot + 1))
    }
}

/// `duration` in nanoseconds, or nil when it is not a whole number of them (or out of range).
private func wholeNanoseconds(_ duration: Duration) -> Int64? {
    let (seconds, attoseconds) = duration.components
    guard attoseconds % 1_000_000_000 == 0, seconds >= 0, seconds < 1_000_000 else { return nil }
    return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
}
