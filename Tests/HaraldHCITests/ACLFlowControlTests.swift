import Testing

import HaraldHCI

/// Host to controller ACL flow control, fed events by hand: no host, no transport.
@Suite("L2CAP: ACL data flow to the controller")
struct ACLFlowControlTests {
    static func pdu(_ id: UInt64, handle: UInt16 = 0x40, fragments: Int) -> OutboundPDU {
        OutboundPDU(
            id: id, handle: handle,
            fragments: (0..<fragments).map {
                ACLDataPacket(handle: handle, packetBoundary: $0 == 0 ? .firstNonFlushable : .continuing, data: [UInt8(id), UInt8($0)])
            })
    }

    static func flow(buffers: Int, links: [UInt16] = [0x40]) -> ACLFlowControl {
        var flow = ACLFlowControl()
        flow.controllerReset(bufferCount: buffers)
        for handle in links { flow.linkOpened(handle) }
        return flow
    }

    static func drain(_ flow: inout ACLFlowControl) -> [ACLTransmission] {
        var sent: [ACLTransmission] = []
        while let transmission = flow.nextTransmission() { sent.append(transmission) }
        return sent
    }

    @Test func nothingGoesOutBeforeTheControllerReportsItsBuffers() {
        var flow = ACLFlowControl()
        flow.linkOpened(0x40)
        flow.enqueue(Self.pdu(1, fragments: 1))
        #expect(flow.nextTransmission() == nil)
        #expect(flow.isQueued(1))
    }

    @Test func fragmentsGoOutOnlyWhileTheControllerHasFreeBuffers() {
        var flow = Self.flow(buffers: 2)
        flow.enqueue(Self.pdu(1, fragments: 4))
        #expect(Self.drain(&flow).count == 2)
        #expect(flow.credits == 0 && flow.packetsInFlight(on: 0x40) == 2)
        flow.packetsCompleted([CompletedPackets(handle: 0x40, count: 1)])
        #expect(Self.drain(&flow).count == 1)
        flow.packetsCompleted([CompletedPackets(handle: 0x40, count: 2)])
        #expect(Self.drain(&flow).count == 1)
        #expect(!flow.isQueued(1))
    }

    @Test func onlyThePDUsLastFragmentCompletesIt() {
        var flow = Self.flow(buffers: 8)
        flow.enqueue(Self.pdu(7, fragments: 3))
        #expect(Self.drain(&flow).map(\.completes) == [nil, nil, 7])
    }

    @Test func twoPDUsLeaveWholeAndInTheOrderTheyWereQueued() {
        var flow = Self.flow(buffers: 8, links: [0x40, 0x41])
        flow.enqueue(Self.pdu(1, handle: 0x40, fragments: 3))
        flow.enqueue(Self.pdu(2, handle: 0x41, fragments: 2))
        let sent = Self.drain(&flow).map { [$0.packet.data[0], $0.packet.data[1]] }
        #expect(sent == [[1, 0], [1, 1], [1, 2], [2, 0], [2, 1]])
    }

    @Test func completionsNeverGiveBackMoreThanALinkHoldsOrTheControllerHas() {
        var flow = Self.flow(buffers: 2)
        flow.enqueue(Self.pdu(1, fragments: 1))
        _ = Self.drain(&flow)
        flow.packetsCompleted([CompletedPackets(handle: 0x40, count: 50), CompletedPackets(handle: 0x77, count: 5)])
        #expect(flow.credits == 2)
        #expect(flow.packetsInFlight(on: 0x40) == 0)
    }

    @Test func completionsForAnUnknownHandleFreeNothing() {
        var flow = Self.flow(buffers: 1)
        flow.enqueue(Self.pdu(1, fragments: 2))
        _ = Self.drain(&flow)
        flow.packetsCompleted([CompletedPackets(handle: 0x77, count: 1)])
        #expect(flow.credits == 0)
        #expect(flow.nextTransmission() == nil)
    }

    @Test func aLinkThatEndsGivesBackItsBuffersAndItsQueuedPDUsFail() {
        var flow = Self.flow(buffers: 2, links: [0x40, 0x41])
        flow.enqueue(Self.pdu(1, handle: 0x40, fragments: 2))
        flow.enqueue(Self.pdu(2, handle: 0x40, fragments: 1))
        flow.enqueue(Self.pdu(3, handle: 0x41, fragments: 1))
        _ = Self.drain(&flow)
        #expect(flow.credits == 0)
        #expect(flow.linkClosed(0x40) == [2])
        #expect(flow.credits == 2)
        #expect(Self.drain(&flow).map(\.completes) == [3])
        #expect(flow.queuedPDUCount == 0)
    }

    @Test func aControllerResetFreesEveryBuffer() {
        var flow = Self.flow(buffers: 2)
        flow.enqueue(Self.pdu(1, fragments: 2))
        _ = Self.drain(&flow)
        flow.controllerReset(bufferCount: 3)
        #expect(flow.credits == 3 && flow.packetsInFlight(on: 0x40) == 0)
    }

    @Test func removeAllReturnsEveryWaitingPDU() {
        var flow = Self.flow(buffers: 0)
        flow.enqueue(Self.pdu(1, fragments: 1))
        flow.enqueue(Self.pdu(2, fragments: 1))
        #expect(flow.removeAll() == [1, 2])
        #expect(flow.queuedPDUCount == 0)
    }
}
