import HaraldTestSupport
import Testing

@testable import HaraldSMP

/// What a peer sends on the SMP channel faster than pairing takes it is bounded.
@Suite("SMP: the PDUs waiting to be taken are bounded")
struct SMPInboxBoundTests {
    static func pdu(_ index: Int) -> [UInt8] { [0x05, UInt8(truncatingIfNeeded: index)] }

    @Test func pendingPDUsKeepTheOldestUpToTheCapacityAndCountTheRest() {
        var pending = SMPPendingPDUs()
        for index in 0..<100 { pending.append(Self.pdu(index)) }
        #expect(pending.count == SMPPendingPDUs.capacity)
        #expect(pending.dropped == 100 - SMPPendingPDUs.capacity)
        for index in 0..<SMPPendingPDUs.capacity { #expect(pending.takeFirst() == Self.pdu(index)) }
        #expect(pending.takeFirst() == nil)
    }

    @Test func pendingPDUsTakeNewOnesOnceRoomIsMade() {
        var pending = SMPPendingPDUs()
        for index in 0..<SMPPendingPDUs.capacity { pending.append(Self.pdu(index)) }
        _ = pending.takeFirst()
        pending.append(Self.pdu(200))
        #expect(pending.count == SMPPendingPDUs.capacity)
        #expect(pending.dropped == 0)
    }

    @Test func aFloodWhileNobodyWaitsLeavesTheInboxAtItsCapacity() async {
        let clock = ManualClock()
        let inbox = SMPInbox(clock: clock)
        let (incoming, peer) = AsyncStream<[UInt8]>.makeStream()
        await inbox.start(incoming)
        let flood = 1_000
        for index in 0..<flood { peer.yield(Self.pdu(index)) }
        peer.finish()
        // The pump has drained the stream once the inbox is closed behind what it kept.
        var drained = false
        for _ in 0..<100_000 where !drained {
            drained = await inbox.queued.dropped + inbox.queued.count == flood
            await Task.yield()
        }
        #expect(drained)
        #expect(await inbox.queued.count == SMPPendingPDUs.capacity)
        guard case .pdu(let first) = await inbox.next(within: .seconds(30)) else {
            Issue.record("the oldest PDU was not kept")
            return
        }
        #expect(first == Self.pdu(0))
    }
}
