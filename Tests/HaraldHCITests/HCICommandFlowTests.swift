import Testing

import HaraldHCI

/// Command flow control, fed answers by hand: no host, no transport.
@Suite("Host: command flow control")
struct HCICommandFlowTests {
    static func drain(_ flow: inout HCICommandFlow) -> [UInt64] {
        var sent: [UInt64] = []
        while let next = flow.nextCommand() { sent.append(next.id) }
        return sent
    }

    @Test func oneCommandGoesOutBeforeTheControllerFirstAnswers() {
        var flow = HCICommandFlow()
        flow.enqueue(.reset, id: 1)
        flow.enqueue(.readBDADDR, id: 2)
        #expect(Self.drain(&flow) == [1])
        #expect(flow.queuedCount == 1 && flow.outstandingCount == 1)
    }

    @Test func commandsGoOutInTheOrderAskedAsTheControllerGrantsCredits() {
        var flow = HCICommandFlow()
        for id: UInt64 in 1...4 { flow.enqueue(.readBDADDR, id: id) }
        #expect(Self.drain(&flow) == [1])
        #expect(flow.answered(opcode: .readBDADDR, credits: 2) == 1)
        #expect(Self.drain(&flow) == [2, 3])
        #expect(flow.answered(opcode: .readBDADDR, credits: 1) == 2)
        #expect(Self.drain(&flow) == [4])
    }

    @Test func anAnswerBelongsToTheOldestCommandSentWithItsOpcode() {
        var flow = HCICommandFlow()
        flow.enqueue(.readBDADDR, id: 1)
        flow.enqueue(.reset, id: 2)
        flow.enqueue(.readBDADDR, id: 3)
        _ = flow.answered(opcode: HCIOpcode(rawValue: 0), credits: 3)
        #expect(Self.drain(&flow) == [1, 2, 3])
        #expect(flow.answered(opcode: .reset, credits: 1) == 2)
        #expect(flow.answered(opcode: .readBDADDR, credits: 1) == 1)
        #expect(flow.answered(opcode: .readBDADDR, credits: 1) == 3)
    }

    @Test func anAnswerWithOpcodeZeroOnlyUpdatesTheCredit() {
        var flow = HCICommandFlow()
        flow.enqueue(.reset, id: 1)
        #expect(flow.answered(opcode: HCIOpcode(rawValue: 0), credits: 0) == nil)
        #expect(flow.nextCommand() == nil)
        #expect(flow.answered(opcode: HCIOpcode(rawValue: 0), credits: 1) == nil)
        let next = flow.nextCommand()
        #expect(next?.id == 1)
    }

    @Test func anAnswerToNothingWeSentBelongsToNobody() {
        var flow = HCICommandFlow()
        flow.enqueue(.reset, id: 1)
        _ = Self.drain(&flow)
        #expect(flow.answered(opcode: .readBDADDR, credits: 1) == nil)
        #expect(flow.outstandingCount == 1)
    }

    @Test func aLostAnswerGivesTheCreditBackOnceNothingElseIsOutstanding() {
        var flow = HCICommandFlow()
        flow.enqueue(.reset, id: 1)
        flow.enqueue(.readBDADDR, id: 2)
        _ = Self.drain(&flow)
        #expect(flow.credits == 0)
        let timedOut = flow.timedOut(1)
        #expect(timedOut)
        #expect(flow.credits == 1)
        #expect(Self.drain(&flow) == [2])
    }

    @Test func aCommandThatTimesOutWaitingForACreditLeavesTheQueue() {
        var flow = HCICommandFlow()
        flow.enqueue(.reset, id: 1)
        flow.enqueue(.readBDADDR, id: 2)
        _ = Self.drain(&flow)
        let first = flow.timedOut(2)
        let second = flow.timedOut(2)
        #expect(first && !second, "once only")
        #expect(flow.queuedCount == 0 && flow.credits == 0)
    }

    @Test func aCommandTheTransportRefusedWaitsForNoAnswerAndKeepsACredit() {
        var flow = HCICommandFlow()
        flow.enqueue(.reset, id: 1)
        _ = Self.drain(&flow)
        flow.sendFailed(1)
        #expect(flow.outstandingCount == 0 && flow.credits == 1)
        #expect(flow.answered(opcode: .reset, credits: 1) == nil)
    }

    @Test func removeAllReturnsTheQueuedThenTheOutstanding() {
        var flow = HCICommandFlow()
        flow.enqueue(.reset, id: 1)
        flow.enqueue(.readBDADDR, id: 2)
        _ = Self.drain(&flow)
        #expect(flow.removeAll() == [2, 1])
        #expect(flow.queuedCount == 0 && flow.outstandingCount == 0)
    }
}
