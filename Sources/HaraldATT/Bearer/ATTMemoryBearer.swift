/// One end of an in-memory ATT bearer pair: what one side sends arrives at once, in order, on
/// the other side's ``events``.
///
/// For tests and as the base of the simulator's link model. There is no timing, no loss and no
/// MTU limit beyond `localMTU` checks done by the engines. `close(reason)` delivers `.closed(reason)`
/// to this end and `.closed(.closedByPeer)` to the other (`.linkLost` to both), then finishes both
/// streams. An end released without a close is a lost link for its peer.
public final class ATTMemoryBearer: ATTBearer {
    public let events: AsyncStream<ATTBearerEvent>
    public let localMTU: Int
    private let inbound: AsyncStream<ATTBearerEvent>.Continuation
    private let peerInbound: AsyncStream<ATTBearerEvent>.Continuation
    private let record: MemoryBearerRecord

    private init(
        events: AsyncStream<ATTBearerEvent>, inbound: AsyncStream<ATTBearerEvent>.Continuation,
        peerInbound: AsyncStream<ATTBearerEvent>.Continuation, localMTU: Int
    ) {
        self.events = events
        self.inbound = inbound
        self.peerInbound = peerInbound
        self.localMTU = localMTU
        self.record = MemoryBearerRecord()
    }

    /// An end released without ``close(_:)`` is a link lost: its peer receives
    /// `.closed(.linkLost(code: nil))`, and both streams finish, so neither side's reader waits for ever.
    deinit {
        inbound.finish()
        peerInbound.yield(.closed(.linkLost(code: nil)))
        peerInbound.finish()
    }

    /// Two connected ends, such as (central, peripheral). `mtu` is each side's `localMTU`.
    public static func pair(mtu: Int = 517) -> (ATTMemoryBearer, ATTMemoryBearer) {
        pair(firstMTU: mtu, secondMTU: mtu)
    }

    /// Two connected ends with different receive MTUs.
    public static func pair(firstMTU: Int, secondMTU: Int) -> (ATTMemoryBearer, ATTMemoryBearer) {
        // Unbounded: the consumer is an engine that handles every PDU promptly; tests that flood a
        // bearer measure what the engine drops, not what the bearer drops.
        let (firstEvents, firstInbound) = AsyncStream<ATTBearerEvent>.makeStream(bufferingPolicy: .unbounded)
        let (secondEvents, secondInbound) = AsyncStream<ATTBearerEvent>.makeStream(bufferingPolicy: .unbounded)
        let first = ATTMemoryBearer(events: firstEvents, inbound: firstInbound, peerInbound: secondInbound, localMTU: max(ATT.defaultMTU, firstMTU))
        let second = ATTMemoryBearer(events: secondEvents, inbound: secondInbound, peerInbound: firstInbound, localMTU: max(ATT.defaultMTU, secondMTU))
        return (first, second)
    }

    nonisolated(nonsending) public func send(_ pdu: [UInt8]) async throws(ATTBearerError) {
        // A finished stream reports `.terminated`: that is the closed state, no flag needed.
        if case .terminated = peerInbound.yield(.received(pdu)) { throw .closed }
    }

    nonisolated(nonsending) public func close(_ reason: ATTCloseReason) async {
        // A lost link is lost for both ends; any other close is the peer's doing for the other end.
        let peerReason: ATTCloseReason
        if case .linkLost = reason { peerReason = reason } else { peerReason = .closedByPeer }
        inbound.yield(.closed(reason))
        inbound.finish()
        peerInbound.yield(.closed(peerReason))
        peerInbound.finish()
    }

    nonisolated(nonsending) public func didNegotiateMTU(_ mtu: Int) async {
        await record.setMTU(mtu)
    }

    /// The ATT_MTU an engine reported through ``didNegotiateMTU(_:)`` (23 until then).
    public var negotiatedMTU: Int {
        get async { await record.mtu }
    }
}

/// The mutable part of a memory bearer, kept in an actor so the bearer itself stays a plain
/// `Sendable` class of constants.
private actor MemoryBearerRecord {
    var mtu = ATT.defaultMTU
    func setMTU(_ value: Int) { mtu = value }
}
