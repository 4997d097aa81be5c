import HaraldATT
import HaraldCore

/// The ATT bearer of one side of a ``SimulatedLink``: the fixed ATT channel of a simulated LE
/// connection.
///
/// - Each PDU reaches the engine at the virtual instant the link model delivers it: the link's
///   delivery timer hands it straight to the engine's `ATTEventInbox` (``deliverEvents(to:)``,
///   what the GATT client uses) or yields it into ``events`` — whichever is asked for first; no
///   task runs per PDU. A bearer with a peer fault layer instead pulls PDUs as its engine asks
///   for them, so the fault layer notes each request the moment the server takes it.
/// - ``send(_:)`` hands the PDU to the link, waiting while the side's transmit buffer is full —
///   the flow control a write without response observes. A send whose task is cancelled while
///   waiting still goes out: the engine has committed to it, as a host that queued it in the
///   controller would have.
/// - ``close(_:)`` closes the link: `.closedLocally` and `.transactionTimeout` as a termination by
///   this side, `.linkLost` as a connection timeout. The peer then sees `.closedByPeer` or
///   `.linkLost(code: 0x08)`.
public final class SimulatedATTBearer: ATTInboxBearer, Sendable {
    // Lock order: bearer (`receiver`), then link (the link's push receiver set here never takes
    // the bearer's locks).
    /// The simulated link it carries PDUs over.
    public let link: SimulatedLink
    /// Which end of the link this bearer is.
    public let side: LinkSide
    public let localMTU: Int
    /// The ATT_MTU the engine settled on.
    private let negotiated = Locked(ATT.defaultMTU)
    /// The reason this side gave when it closed the bearer, if it did.
    private let localClose = Locked<ATTCloseReason?>(nil)
    private let faults: PeerFaultState?

    /// Where this side's events go, once someone asked.
    private enum Receiver {
        case none
        case stream(AsyncStream<ATTBearerEvent>)
        case inbox
    }
    private let receiver = Locked(Receiver.none)

    /// The bearer of `side` on `link`; it offers the link's largest ATT_MTU.
    public convenience init(link: SimulatedLink, side: LinkSide) {
        self.init(link: link, side: side, faults: nil)
    }

    /// A bearer whose outgoing responses pass through `faults` (the peripheral side's fault layer).
    init(link: SimulatedLink, side: LinkSide, faults: PeerFaultState?) {
        self.link = link
        self.side = side
        self.faults = faults
        self.localMTU = link.parameters.maximumATTMTU
    }

    /// Inbound PDUs and the close event. Empty (finished at once) when the events go to an inbox.
    public var events: AsyncStream<ATTBearerEvent> {
        receiver.withLock { receiver in
            switch receiver {
            case .stream(let stream): return stream
            case .inbox: return AsyncStream { $0.finish() }
            case .none:
                let stream = makeEvents()
                receiver = .stream(stream)
                return stream
            }
        }
    }

    /// The stream of ``events``, made once (the caller holds the receiver lock).
    private func makeEvents() -> AsyncStream<ATTBearerEvent> {
        let (link, side, localClose) = (link, side, localClose)
        let stream: AsyncStream<ATTBearerEvent>
        if let faults {
            stream = AsyncStream(unfolding: {
                switch await link.receive(on: side) {
                case .pdu(let bytes)?:
                    faults.received(bytes)
                    return .received(bytes)
                case .closed(let reason)?: return .closed(Self.attReason(reason, side: side, localClose: localClose.value))
                case nil: return nil
                }
            })
        } else {
            // Unbounded like the link's own queue: the link model has no receive-side flow control.
            let (pushed, continuation) = AsyncStream<ATTBearerEvent>.makeStream(bufferingPolicy: .unbounded)
            stream = pushed
            link.deliverEvents(on: side) { event in
                switch event {
                case .pdu(let bytes): continuation.yield(.received(bytes))
                case .closed(let reason):
                    continuation.yield(.closed(Self.attReason(reason, side: side, localClose: localClose.value)))
                    continuation.finish()
                }
            }
        }
        return stream
    }

    /// Sends this side's events to `inbox` instead of ``events``.
    public func deliverEvents(to inbox: ATTEventInbox) {
        if faults != nil {
            // The fault layer pulls; feed the inbox from the pulled stream.
            let events = self.events
            taskStarter.start {
                for await event in events { inbox.yield(event) }
                inbox.finish()
            }
            return
        }
        receiver.withLock { receiver in
            guard case .none = receiver else {
                inbox.finish()
                return
            }
            receiver = .inbox
            let (side, localClose) = (side, localClose)
            link.deliverEvents(on: side) { event in
                switch event {
                case .pdu(let bytes): inbox.yield(.received(bytes))
                case .closed(let reason):
                    inbox.yield(.closed(Self.attReason(reason, side: side, localClose: localClose.value)))
                    inbox.finish()
                }
            }
        }
    }

    /// The simulation's (the link's clock's ``VirtualClock/taskStarter``): engines on this bearer
    /// run in the simulation.
    public var taskStarter: TaskStarter { link.clock.taskStarter }

    /// The ATT_MTU the engine on this side settled on (23 until Exchange MTU).
    public var negotiatedMTU: Int { negotiated.value }

    nonisolated(nonsending) public func send(_ pdu: [UInt8]) async throws(ATTBearerError) {
        guard pdu.count <= localMTU else { throw .pduTooLong(size: pdu.count, limit: localMTU) }
        guard let faults else { return try await transmit(pdu) }
        let (pdus, disconnect, delay) = faults.outgoing(pdu)
        if delay > .zero { try? await link.clock.sleep(for: delay) }
        if disconnect {
            await link.close(reason: .terminated(by: side))
            return
        }
        for pdu in pdus {
            faults.sending(pdu)
            try await transmit(pdu)
        }
    }

    /// Hands `pdu` to the link when its transmit buffer has room now. A response on a bearer
    /// with a peer fault layer cannot go this way (its faults may close the link, which waits):
    /// that says `ATTImmediateSend.unsupported`. The fault layer acts on responses only, so
    /// notifications and every other PDU pass.
    public func sendWithoutWaiting(_ pdu: [UInt8]) -> ATTImmediateSend {
        guard pdu.count <= localMTU, let first = pdu.first else { return .unsupported }
        if faults != nil, ATTOpcode(first).kind == .response { return .unsupported }
        let outcome = link.sendWithoutWaiting(pdu, from: side)
        return outcome.sent ? .sent : outcome.closed ? .closed : .full
    }

    nonisolated(nonsending) private func transmit(_ pdu: [UInt8]) async throws(ATTBearerError) {
        do {
            try await link.send(pdu, from: side)
        } catch is SimulatedLinkClosed {
            throw .closed
        } catch {
            // Cancelled while waiting for transmit-buffer room: finish the send on a task the
            // cancellation does not reach.
            let link = self.link
            let side = self.side
            let sent = await taskStarter.start { () -> Bool in
                do {
                    try await link.send(pdu, from: side)
                    return true
                } catch { return false }
            }.value
            if !sent { throw .closed }
        }
    }

    nonisolated(nonsending) public func close(_ reason: ATTCloseReason) async {
        localClose.withLock { if $0 == nil { $0 = reason } }
        switch reason {
        case .linkLost: await link.close(reason: .connectionTimeout)
        case .transactionTimeout: await link.close(reason: .failure("ATT transaction timeout (\(side))"))
        case .closedLocally, .closedByPeer, .protocolViolation: await link.close(reason: .terminated(by: side))
        }
    }

    nonisolated(nonsending) public func didNegotiateMTU(_ mtu: Int) async {
        negotiated.withLock { $0 = mtu }
    }

    /// How a link's close reason reads on `side`'s bearer.
    static func attReason(_ reason: LinkCloseReason, side: LinkSide, localClose: ATTCloseReason?) -> ATTCloseReason {
        if let localClose { return localClose }
        switch reason {
        case .terminated(let by): return by == side ? .closedLocally : .closedByPeer
        case .connectionTimeout: return .linkLost(code: 0x08)
        case .failure: return .closedByPeer
        }
    }
}
