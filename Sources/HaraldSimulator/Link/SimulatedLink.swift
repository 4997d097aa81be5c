import HaraldCore

/// An LE connection between two simulated devices, carrying L2CAP payloads (ATT PDUs) with the
/// timing of ``LinkParameters``, on a ``VirtualClock``.
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
    }

    /// One direction's state, named after the side that receives. A class, so that queue
    /// updates under the lock never copy the arrays.
    private final class Direction {
        let side: LinkSide
        /// PDUs in flight to this side, in sending order (a delayed head holds back the rest).
        var queue: [Scheduled] = []
        var head = 0
        /// The clock timer at the head PDU's delivery instant, armed while `queue` has PDUs.
        var deliveryTimer: VirtualClock.Timer?
        /// Delivered PDUs not taken yet by ``SimulatedLink/receive(on:)`` (pull mode).
        var arrived: [[UInt8]] = []
        var arrivedHead = 0
        /// Push mode: called with each delivered PDU and the close event, under the link's lock.
        var pushReceiver: (@Sendable (Event) -> Void)?
        /// A task parked in ``SimulatedLink/receive(on:)``.
        var receiver: ParkingSpot?
        var closeDelivered = false
        // Sending side of the opposite direction: this side's transmit state.
        /// End times of packets this side scheduled but has not sent yet (transmit buffer),
        /// oldest first, from `bufferedHead`.
        var bufferedPacketEnds: [VirtualInstant] = []
        var bufferedHead = 0
        /// This side's next free packet slot: event index and slot within the event.
        var nextEvent: Int64 = 0
        var nextSlot = 0
        /// PDUs this side has sent (numbering for faults).
        var pduCount = 0
        var pdusSent = 0
        var bytesSent = 0
        var packetsSent = 0

        init(side: LinkSide) { self.side = side }
    }

    /// The link's mutable state; only ever reached through `state.withLock`, so every helper
    /// that takes it runs with the lock held.
    private struct LinkState {
        let centralLane = Direction(side: .central)
        let peripheralLane = Direction(side: .peripheral)
        var faults: [LinkFault] = []
        var closeReason: LinkCloseReason?
        /// The clock's ``VirtualClock/atEnd(_:)`` registration that closes the link if it is
        /// still open when the simulation ends; removed when it closes.
        var endAction: UInt64?
        var recentDataEvents: Set<Int64> = []
        var eventsWithData = 0
        var eventsElapsed = 0
        var airTime = Duration.zero
        var pdusDropped = 0

        /// The direction `side` receives on.
        func receiving(_ side: LinkSide) -> Direction { side == .central ? centralLane : peripheralLane }
        /// The transmit state of `side` (kept with the direction it receives on).
        func sender(_ side: LinkSide) -> Direction { side == .central ? centralLane : peripheralLane }
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

    /// A link whose first connection event is now.
    public init(parameters: LinkParameters = .typical, clock: VirtualClock) {
        self.parameters = parameters
        self.clock = clock
        self.anchor = clock.now
        self.perEvent = parameters.effectivePacketsPerEvent
        self.interval = parameters.connectionInterval
        self.exchange = parameters.exchangeTime
        self.packetAirTime = parameters.exchangeTime - .microseconds(300)
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
                for lane in [state.centralLane, state.peripheralLane] {
                    stats.pdusSent[lane.side] = lane.pdusSent
                    stats.bytesSent[lane.side] = lane.bytesSent
                    stats.packetsSent[lane.side] = lane.packetsSent
                }
                stats.eventsWithData = state.eventsWithData
                stats.eventsElapsed = state.eventsElapsed
                stats.airTime = state.airTime
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
            return bufferedPackets(state.sender(side), now: now) + needed <= parameters.transmitBufferPackets
        }
    }

    /// Queues `pdu` for the peer; waits while the transmit buffer is full.
    ///
    /// Runs on the caller's executor (no hop): when there is room it returns without suspending.
    /// Throws ``SimulatedLinkClosed`` if the link is closed (before or while waiting), and
    /// `CancellationError` if the task is cancelled while waiting for room.
    nonisolated(nonsending) public func send(_ pdu: [UInt8], from side: LinkSide) async throws {
        let packets = parameters.packetCount(sduLength: pdu.count)
        let needed = min(packets, parameters.transmitBufferPackets)
        while true {
            switch enqueue(pdu, packets: packets, needed: needed, from: side) {
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

    /// The synchronous part of ``send(_:from:)``: schedules the PDU if there is room.
    private func enqueue(_ pdu: [UInt8], packets: Int, needed: Int, from side: LinkSide) -> SendOutcome {
        let now = clock.now
        let (outcome, woken) = state.withLock { state -> (SendOutcome, [ParkingSpot]) in
            if let reason = state.closeReason { return (.closed(reason), []) }
            let lane = state.sender(side)
            if bufferedPackets(lane, now: now) + needed > parameters.transmitBufferPackets, lane.bufferedHead < lane.bufferedPacketEnds.count {
                return (.wait(lane.bufferedPacketEnds[lane.bufferedHead]), [])
            }
            lane.pduCount += 1
            let number = lane.pduCount
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
            let lastPacketEnd = schedulePackets(packets, lane: lane, now: now, in: &state)
            lane.pdusSent += 1
            lane.bytesSent += pdu.count
            let deliverAt = extraDelay == .zero ? lastPacketEnd : lastPacketEnd.advanced(by: extraDelay)
            let peer = state.receiving(side.peer)
            peer.queue.append(Scheduled(bytes: bytes, deliverAt: deliverAt))
            // The head of an idle direction gets a timer; later PDUs wait for the head's to fire.
            guard peer.deliveryTimer == nil, peer.head == peer.queue.count - 1, let spot = armDelivery(peer, at: deliverAt, in: &state) else {
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
                    let direction = state.receiving(side)
                    if direction.receiver === spot { direction.receiver = nil }
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
            let direction = state.receiving(side)
            if direction.arrivedHead < direction.arrived.count {
                let bytes = direction.arrived[direction.arrivedHead]
                direction.arrivedHead += 1
                if direction.arrivedHead == direction.arrived.count {
                    direction.arrived.removeAll(keepingCapacity: true)
                    direction.arrivedHead = 0
                }
                return .event(.pdu(bytes))
            }
            if state.closeReason != nil || cancelled { return .event(closeEvent(direction, in: state)) }
            let spot = ParkingSpot()
            direction.receiver = spot
            return .park(spot)
        }
    }

    /// Sends `side`'s deliveries to `receiver` from now on instead of keeping them for
    /// ``receive(on:)``: each PDU at its delivery instant, then the close event. PDUs delivered
    /// and not taken yet go first. `receiver` runs with the link's lock held, on the thread that
    /// advances the clock (or that closes the link): it must be quick and must not call the link.
    internal func deliverEvents(on side: LinkSide, to receiver: @escaping @Sendable (Event) -> Void) {
        state.withLock { state in
            let direction = state.receiving(side)
            direction.pushReceiver = receiver
            for bytes in direction.arrived[direction.arrivedHead...] { receiver(.pdu(bytes)) }
            direction.arrived.removeAll()
            direction.arrivedHead = 0
            if state.closeReason != nil, let event = closeEvent(direction, in: state) {
                receiver(event)
                direction.pushReceiver = nil
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
        for direction in [state.centralLane, state.peripheralLane] {
            // What has arrived stays delivered (also PDUs held back behind a delayed one whose
            // time has come); what is still in flight is lost.
            if let spot = deliverDue(direction, now: now, rearm: false, in: &state) { woken.append(spot) }
            direction.queue.removeAll()
            direction.head = 0
            if let timer = direction.deliveryTimer {
                direction.deliveryTimer = nil
                clock.cancelWake(timer)
            }
            direction.bufferedPacketEnds.removeAll()
            direction.bufferedHead = 0
        }
        state.closeReason = reason
        for direction in [state.centralLane, state.peripheralLane] {
            if let push = direction.pushReceiver, let event = closeEvent(direction, in: state) {
                push(event)
                direction.pushReceiver = nil
            }
            if let receiver = direction.receiver {
                direction.receiver = nil
                if !woken.contains(where: { $0 === receiver }) { woken.append(receiver) }
            }
        }
        return woken
    }

    /// The close event, once per side.
    private func closeEvent(_ direction: Direction, in state: LinkState) -> Event? {
        guard let reason = state.closeReason, !direction.closeDelivered else { return nil }
        direction.closeDelivered = true
        return .closed(reason)
    }

    /// Sets the clock timer that delivers `direction`'s head PDU at `instant`, or delivers at
    /// once if that instant has come. Returns a parked receiver to wake.
    private func armDelivery(_ direction: Direction, at instant: VirtualInstant, in state: inout LinkState) -> ParkingSpot? {
        Self.armDelivery(direction, at: instant, in: &state, box: self.state, clock: clock)
    }

    /// Sets `direction`'s delivery timer for `instant` (or delivers at once when that has come).
    /// The timer holds the link's state and clock, never the link: a weak reference to the link
    /// would give it a side table, which slows every retain and release of it, and a strong one
    /// would keep a dropped link alive until its timer fired.
    private static func armDelivery(
        _ direction: Direction, at instant: VirtualInstant, in state: inout LinkState, box: Locked<LinkState>, clock: VirtualClock
    ) -> ParkingSpot? {
        // `unowned` clock: only the clock runs the action, so it is alive then; a strong
        // reference would make every pending timer a cycle through the clock.
        if let token = clock.schedule(at: instant, { [side = direction.side, unowned clock] in deliveryTimerFired(side, box: box, clock: clock) }) {
            direction.deliveryTimer = token
            return nil
        }
        return deliverDue(direction, now: clock.now, rearm: true, in: &state, box: box, clock: clock)
    }

    private static func deliveryTimerFired(_ side: LinkSide, box: Locked<LinkState>, clock: VirtualClock) {
        let now = clock.now
        let woken = box.withLock { state in
            let direction = state.receiving(side)
            direction.deliveryTimer = nil
            return deliverDue(direction, now: now, rearm: true, in: &state, box: box, clock: clock)
        }
        woken?.wake()
    }

    private func deliverDue(_ direction: Direction, now: VirtualInstant, rearm: Bool, in state: inout LinkState) -> ParkingSpot? {
        Self.deliverDue(direction, now: now, rearm: rearm, in: &state, box: self.state, clock: clock)
    }

    /// Hands over every PDU of `direction` whose time has come, in order (to the push receiver,
    /// or to the pull queue), and when `rearm` sets the timer for the next one. Returns a parked
    /// receiver to wake.
    private static func deliverDue(
        _ direction: Direction, now: VirtualInstant, rearm: Bool, in state: inout LinkState, box: Locked<LinkState>, clock: VirtualClock
    ) -> ParkingSpot? {
        var woken: ParkingSpot?
        while direction.head < direction.queue.count, direction.queue[direction.head].deliverAt <= now {
            let bytes = direction.queue[direction.head].bytes
            direction.head += 1
            if let push = direction.pushReceiver {
                push(.pdu(bytes))
            } else {
                direction.arrived.append(bytes)
                if woken == nil, let receiver = direction.receiver {
                    direction.receiver = nil
                    woken = receiver
                }
            }
        }
        if direction.head == direction.queue.count {
            direction.queue.removeAll(keepingCapacity: true)
            direction.head = 0
            return woken
        }
        if direction.head > 64, direction.head * 2 > direction.queue.count {
            direction.queue.removeFirst(direction.head)
            direction.head = 0
        }
        guard rearm, direction.deliveryTimer == nil else { return woken }
        let later = armDelivery(direction, at: direction.queue[direction.head].deliverAt, in: &state, box: box, clock: clock)
        return woken ?? later
    }

    /// Packets `lane`'s side has queued and not yet sent (`lane` comes from the locked state).
    private func bufferedPackets(_ lane: Direction, now: VirtualInstant) -> Int {
        while lane.bufferedHead < lane.bufferedPacketEnds.count, lane.bufferedPacketEnds[lane.bufferedHead] <= now {
            lane.bufferedHead += 1
        }
        if lane.bufferedHead == lane.bufferedPacketEnds.count {
            lane.bufferedPacketEnds.removeAll(keepingCapacity: true)
            lane.bufferedHead = 0
        }
        return lane.bufferedPacketEnds.count - lane.bufferedHead
    }

    /// Assigns `count` packets to the side's next free slots; returns when the last one ends.
    private func schedulePackets(_ count: Int, lane: Direction, now: VirtualInstant, in state: inout LinkState) -> VirtualInstant {
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
        if (lane.nextEvent, lane.nextSlot) < (earliestEvent, earliestSlot) {
            lane.nextEvent = earliestEvent
            lane.nextSlot = earliestSlot
        }
        var end = now
        for _ in 0..<count {
            let event = lane.nextEvent
            let slot = lane.nextSlot
            end = anchor.advanced(by: interval * Int(event) + exchange * (slot + 1))
            lane.bufferedPacketEnds.append(end)
            if state.recentDataEvents.insert(event).inserted { state.eventsWithData += 1 }
            state.eventsElapsed = max(state.eventsElapsed, Int(event) + 1)
            lane.packetsSent += 1
            state.airTime += packetAirTime
            lane.nextSlot += 1
            if lane.nextSlot == perEvent {
                lane.nextSlot = 0
                lane.nextEvent += 1
            }
        }
        // Events that both sides have passed can never carry data again: a side's next packet goes
        // no earlier than its next free slot, and never into an event that has already begun. (A
        // side that stays silent must not hold the floor back, or the set grows with every event.)
        let floor = min(max(state.centralLane.nextEvent, currentEvent), max(state.peripheralLane.nextEvent, currentEvent))
        if state.recentDataEvents.count > 64 { state.recentDataEvents = state.recentDataEvents.filter { $0 >= floor } }
        return end
    }
}
