import Foundation
import HaraldATT
import HaraldCore

/// The ATT bearer of one side of a ``SimulatedLink``: the fixed ATT channel of a simulated LE
/// connection.
///
/// - Each PDU reaches the engine at the virtual instant the link model delivers it: the link's
///   delivery timer hands it straight to the engine's ``ATTEventInbox`` (``deliverEvents(to:)``,
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
public final class SimulatedATTBearer: ATTInboxBearer, @unchecked Sendable {
    // @unchecked Sendable: `negotiated` and `receiver` are only touched with `lock` held; the
    // other properties are immutable and Sendable. Lock order: bearer, then link (the link's
    // push receiver set here never takes the bearer's lock).
    public let link: SimulatedLink
    public let side: LinkSide
    public let localMTU: Int
    private let lock = NSLock()
    private var negotiated = ATT.defaultMTU
    private let closeBox: CloseReasonBox
    private let faults: PeerFaultState?

    /// Where this side's events go, once someone asked.
    private enum Receiver {
        case none
        case stream(AsyncStream<ATTBearerEvent>)
        case inbox
    }
    private var receiver = Receiver.none

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
        self.closeBox = CloseReasonBox()
    }

    /// Inbound PDUs and the close event. Empty (finished at once) when the events go to an inbox.
    public var events: AsyncStream<ATTBearerEvent> {
        lock.lock()
        defer { lock.unlock() }
        switch receiver {
        case .stream(let stream): return stream
        case .inbox: return AsyncStream { $0.finish() }
        case .none: break
        }
        let (link, side, closeBox) = (link, side, closeBox)
        let stream: AsyncStream<ATTBearerEvent>
        if let faults {
            stream = AsyncStream(unfolding: {
                switch await link.receive(on: side) {
                case .pdu(let bytes)?:
                    faults.received(bytes)
                    return .received(bytes)
                case .closed(let reason)?: return .closed(Self.attReason(reason, side: side, localClose: closeBox.value))
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
                    continuation.yield(.closed(Self.attReason(reason, side: side, localClose: closeBox.value)))
                    continuation.finish()
                }
            }
        }
        receiver = .stream(stream)
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
        lock.lock()
        defer { lock.unlock() }
        guard case .none = receiver else {
            inbox.finish()
            return
        }
        receiver = .inbox
        let (side, closeBox) = (side, closeBox)
        link.deliverEvents(on: side) { event in
            switch event {
            case .pdu(let bytes): inbox.yield(.received(bytes))
            case .closed(let reason):
                inbox.yield(.closed(Self.attReason(reason, side: side, localClose: closeBox.value)))
                inbox.finish()
            }
        }
    }

    /// The simulation's (the link's clock's ``VirtualClock/taskStarter``): engines on this bearer
    /// run in the simulation.
    public var taskStarter: TaskStarter { link.clock.taskStarter }

    /// The ATT_MTU the engine on this side settled on (23 until Exchange MTU).
    public var negotiatedMTU: Int { lock.withLock { negotiated } }

    nonisolated(nonsending) public func send(_ pdu: [UInt8]) async throws(ATTBearerError) {
        guard pdu.count <= localMTU else { throw .pduTooLong(size: pdu.count, limit: localMTU) }
        guard let faults else { return try await transmit(pdu) }
        let (pdus, disconnect) = faults.outgoing(pdu)
        if disconnect {
            await link.close(reason: .terminated(by: side))
            return
        }
        for pdu in pdus {
            faults.sending(pdu)
            try await transmit(pdu)
        }
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

    public func close(_ reason: ATTCloseReason) async {
        closeBox.setIfUnset(reason)
        switch reason {
        case .linkLost: await link.close(reason: .connectionTimeout)
        case .transactionTimeout: await link.close(reason: .failure("ATT transaction timeout (\(side))"))
        case .closedLocally, .closedByPeer: await link.close(reason: .terminated(by: side))
        }
    }

    public func didNegotiateMTU(_ mtu: Int) async {
        lock.withLock { negotiated = mtu }
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

/// The reason this side gave when it closed the bearer, if it did.
private final class CloseReasonBox: @unchecked Sendable {
    // @unchecked Sendable: `stored` is only touched with `lock` held.
    private let lock = NSLock()
    private var stored: ATTCloseReason?

    var value: ATTCloseReason? { lock.withLock { stored } }

    func setIfUnset(_ reason: ATTCloseReason) {
        lock.withLock { if stored == nil { stored = reason } }
    }
}
