import Testing

import HaraldHCI

/// The L2CAP channel manager, fed ACL fragments by hand: no host, no transport.
@Suite("L2CAP: the channel manager routes, answers and bounds")
struct L2CAPChannelManagerTests {
    static func manager(role: LERole = .central, deliversSMP: Bool = false) -> L2CAPChannelManager {
        var manager = L2CAPChannelManager(maximumPDUSize: 4096, deliversSecurityManagerPDUs: deliversSMP)
        manager.linkOpened(0x40, role: role)
        return manager
    }

    /// One whole PDU on `cid` in one fragment.
    static func pdu(_ cid: UInt16, _ payload: [UInt8], handle: UInt16 = 0x40) -> ACLDataPacket {
        let length = UInt16(payload.count)
        return ACLDataPacket(
            handle: handle, packetBoundary: .firstFlushable,
            data: [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(cid & 0xFF), UInt8(cid >> 8)] + payload)
    }

    static func unknownSignalingCommand(identifier: UInt8) -> ACLDataPacket { pdu(0x0005, [0x7F, identifier, 0, 0]) }

    /// The reply the manager makes to `fragment`; nil (and a recorded issue) when it makes none.
    static func reply(of manager: inout L2CAPChannelManager, to fragment: ACLDataPacket, sourceLocation: SourceLocation = #_sourceLocation)
        -> L2CAPReply?
    {
        guard case let .reply(reply) = manager.receive(fragment) else {
            Issue.record("no reply", sourceLocation: sourceLocation)
            return nil
        }
        return reply
    }

    /// The one signaling command the link's channels answer `fragment` with, as a PDU.
    static func channelReply(of manager: inout L2CAPChannelManager, to fragment: ACLDataPacket, sourceLocation: SourceLocation = #_sourceLocation)
        -> [UInt8]?
    {
        guard case let .channelEvents(_, events) = manager.receive(fragment), events.count == 1, case let .signal(command) = events[0] else {
            Issue.record("no channel reply", sourceLocation: sourceLocation)
            return nil
        }
        return command.pdu
    }

    // MARK: Routing

    @Test func attDataInSeveralFragmentsGoesUpAsOneSDU() {
        var manager = Self.manager()
        let fragments = fragmentL2CAP(cid: 0x0004, sdu: Array(0..<60), handle: 0x40, maximumDataLength: 27)
        var results = fragments.map { manager.receive($0) }
        #expect(results.removeLast() == .sdu(cid: 0x0004, Array(0..<60)))
        #expect(results.allSatisfy { $0 == .none })
    }

    @Test func dataForAConnectionItDoesNotKnowIsUnrouted() {
        var manager = Self.manager()
        #expect(manager.receive(Self.pdu(0x0004, [1], handle: 0x41)) == .unrouted)
    }

    @Test func aPDUOnAChannelNobodyOpenedGoesNowhere() {
        var manager = Self.manager()
        #expect(manager.receive(Self.pdu(0x0040, [1, 2, 3])) == .none)
    }

    @Test func smpGoesUpWhenASecurityManagerRunsAboveTheHost() {
        var manager = Self.manager(deliversSMP: true)
        #expect(
            manager.receive(Self.pdu(0x0006, [0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07])) == .sdu(cid: 0x0006, [0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07]))
    }

    @Test func withoutASecurityManagerAPairingRequestIsAnsweredPairingNotSupported() {
        var manager = Self.manager()
        guard let reply = Self.reply(of: &manager, to: Self.pdu(0x0006, [0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07])) else { return }
        #expect(reply.cid == 0x0006 && reply.sdu == [0x05, 0x05] && reply.update == nil)
    }

    // MARK: The signaling channel

    @Test func anUnknownSignalingCommandIsRejectedAsNotUnderstood() {
        var manager = Self.manager()
        guard let reply = Self.reply(of: &manager, to: Self.unknownSignalingCommand(identifier: 9)) else { return }
        #expect(reply.cid == 0x0005 && reply.sdu == [0x01, 0x09, 0x02, 0x00, 0x00, 0x00])
    }

    @Test func aResponseNobodyAskedForIsNeverAnswered() {
        var manager = Self.manager()
        #expect(manager.receive(Self.pdu(0x0005, [0x13, 0x09, 0x02, 0x00, 0x00, 0x00])) == .none)
        #expect(manager.receive(Self.pdu(0x0005, [0x01, 0x09, 0x02, 0x00, 0x00, 0x00])) == .none)
    }

    @Test func aCentralAcceptsValidParametersAndAsksTheLinkLayerToApplyThem() {
        var manager = Self.manager(role: .central)
        let request = Self.pdu(0x0005, [0x12, 0x01, 0x08, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0xF4, 0x01])
        guard let reply = Self.reply(of: &manager, to: request) else { return }
        #expect(reply.sdu == [0x13, 0x01, 0x02, 0x00, 0x00, 0x00])
        #expect(reply.update == LEConnectionParameters(intervalMin: 0x18, intervalMax: 0x28, latency: 0, supervisionTimeout: 0x1F4))
    }

    @Test func aPeripheralRejectsAParameterRequestAsNotUnderstood() {
        var manager = Self.manager(role: .peripheral)
        let request = Self.pdu(0x0005, [0x12, 0x01, 0x08, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0xF4, 0x01])
        guard let reply = Self.reply(of: &manager, to: request) else { return }
        #expect(reply.sdu == [0x01, 0x01, 0x02, 0x00, 0x00, 0x00] && reply.update == nil)
    }

    // MARK: Credit-based channels, none served yet

    @Test func anLECreditBasedConnectionRequestIsRefusedSPSMNotSupported() {
        var manager = Self.manager()
        // SPSM 0x0080, Source CID 0x0040, MTU 512, MPS 251, 10 credits.
        let request = Self.pdu(0x0005, [0x14, 0x07, 0x0A, 0x00, 0x80, 0x00, 0x40, 0x00, 0x00, 0x02, 0xFB, 0x00, 0x0A, 0x00])
        guard let reply = Self.channelReply(of: &manager, to: request) else { return }
        #expect(reply == [0x15, 0x07, 0x0A, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x00])
    }

    @Test func aCreditBasedConnectionRequestIsRefusedForEveryChannelItAsksFor() {
        var manager = Self.manager()
        // SPSM 0x0027 (EATT), MTU 64, MPS 64, 5 credits, Source CIDs 0x0040 and 0x0041.
        let request = Self.pdu(0x0005, [0x17, 0x03, 0x0C, 0x00, 0x27, 0x00, 0x40, 0x00, 0x40, 0x00, 0x05, 0x00, 0x40, 0x00, 0x41, 0x00])
        guard let reply = Self.channelReply(of: &manager, to: request) else { return }
        #expect(reply == [0x18, 0x03, 0x0C, 0x00, 0, 0, 0, 0, 0, 0, 0x02, 0x00, 0, 0, 0, 0])
    }

    @Test func aCreditBasedConnectionRequestForMoreThanFiveChannelsIsNotUnderstood() {
        var manager = Self.manager()
        let body: [UInt8] = [0x27, 0x00, 0x40, 0x00, 0x40, 0x00, 0x05, 0x00] + (0..<6).flatMap { [UInt8(0x40 + $0), 0x00] }
        let request = Self.pdu(0x0005, [0x17, 0x04, UInt8(body.count), 0x00] + body)
        guard let reply = Self.channelReply(of: &manager, to: request) else { return }
        #expect(reply == [0x01, 0x04, 0x02, 0x00, 0x00, 0x00])
    }

    @Test func aReconfigureRequestNamesInvalidDestinationCIDs() {
        var manager = Self.manager()
        // MTU 100, MPS 100, Destination CID 0x0040.
        let request = Self.pdu(0x0005, [0x19, 0x05, 0x06, 0x00, 0x64, 0x00, 0x64, 0x00, 0x40, 0x00])
        guard let reply = Self.channelReply(of: &manager, to: request) else { return }
        #expect(reply == [0x1A, 0x05, 0x02, 0x00, 0x03, 0x00])
    }

    @Test func aDisconnectionRequestForNoChannelIsRejectedNamingItsCIDs() {
        var manager = Self.manager()
        // Destination CID 0x0041 (ours, it claims), Source CID 0x0077.
        let request = Self.pdu(0x0005, [0x06, 0x09, 0x04, 0x00, 0x41, 0x00, 0x77, 0x00])
        guard let reply = Self.channelReply(of: &manager, to: request) else { return }
        #expect(reply == [0x01, 0x09, 0x06, 0x00, 0x02, 0x00, 0x41, 0x00, 0x77, 0x00])
    }

    @Test func aCreditIndicationForNoChannelIsNeverAnswered() {
        var manager = Self.manager()
        #expect(manager.receive(Self.pdu(0x0005, [0x16, 0x0A, 0x04, 0x00, 0x40, 0x00, 0x10, 0x00])) == .none)
    }

    // MARK: The bound on replies

    @Test func aLinkQueuesAtMostTheLimitOfRepliesAndTellsTheFirstDropOfAFlood() {
        var manager = Self.manager()
        let limit = L2CAPChannelManager.maximumQueuedReplies
        var replies: [L2CAPReply] = []
        for identifier in 1...limit {
            if case let .reply(reply) = manager.receive(Self.unknownSignalingCommand(identifier: UInt8(identifier))) { replies.append(reply) }
        }
        #expect(replies.count == limit && manager.queuedReplies(on: 0x40) == limit)
        #expect(
            manager.receive(Self.unknownSignalingCommand(identifier: 100))
                == .replyDropped(handle: 0x40, cid: 0x0005, waiting: limit, firstOfFlood: true))
        #expect(
            manager.receive(Self.unknownSignalingCommand(identifier: 101))
                == .replyDropped(handle: 0x40, cid: 0x0005, waiting: limit, firstOfFlood: false))
        for reply in replies { manager.replyLeftQueue(reply) }
        #expect(manager.queuedReplyCount == 0)
        for identifier in 1...limit { _ = manager.receive(Self.unknownSignalingCommand(identifier: UInt8(identifier))) }
        #expect(
            manager.receive(Self.unknownSignalingCommand(identifier: 102))
                == .replyDropped(handle: 0x40, cid: 0x0005, waiting: limit, firstOfFlood: true))
    }

    @Test func aReplyOfAnEndedLinkNeverFreesRoomOnANewLinkWithTheSameHandle() {
        var manager = Self.manager()
        guard let old = Self.reply(of: &manager, to: Self.unknownSignalingCommand(identifier: 1)) else { return }
        _ = manager.linkClosed(0x40)
        manager.linkOpened(0x40, role: .central)
        _ = manager.receive(Self.unknownSignalingCommand(identifier: 2))
        manager.replyLeftQueue(old)
        #expect(manager.queuedReplies(on: 0x40) == 1)
    }

    // MARK: Our own requests

    @Test func ourRequestsGetDistinctNonZeroIdentifiersAndTheirResponsesAreMatched() throws {
        var manager = Self.manager(role: .peripheral)
        let beganfirst = manager.beginRequest(on: 0x40)
        let first = try #require(beganfirst)
        let begansecond = manager.beginRequest(on: 0x40)
        let second = try #require(begansecond)
        #expect(first.identifier != 0 && second.identifier != 0 && first != second)
        #expect(manager.receive(Self.pdu(0x0005, [0x13, second.identifier, 0x02, 0x00, 0x00, 0x00])) == .response(second, accepted: true))
        #expect(manager.receive(Self.pdu(0x0005, [0x13, first.identifier, 0x02, 0x00, 0x01, 0x00])) == .response(first, accepted: false))
        #expect(manager.pendingRequestCount == 0)
    }

    @Test func aCommandRejectAnswersOurRequestAsRefused() throws {
        var manager = Self.manager(role: .peripheral)
        let beganrequest = manager.beginRequest(on: 0x40)
        let request = try #require(beganrequest)
        #expect(manager.receive(Self.pdu(0x0005, [0x01, request.identifier, 0x02, 0x00, 0x00, 0x00])) == .response(request, accepted: false))
    }

    @Test func aSecondResponseToTheSameRequestIsIgnored() throws {
        var manager = Self.manager(role: .peripheral)
        let beganrequest = manager.beginRequest(on: 0x40)
        let request = try #require(beganrequest)
        let response = Self.pdu(0x0005, [0x13, request.identifier, 0x02, 0x00, 0x00, 0x00])
        #expect(manager.receive(response) == .response(request, accepted: true))
        #expect(manager.receive(response) == .none)
    }

    @Test func aLinkThatEndsReturnsTheRequestsStillWaiting() throws {
        var manager = Self.manager(role: .peripheral)
        let beganrequest = manager.beginRequest(on: 0x40)
        let request = try #require(beganrequest)
        let orphaned = manager.linkClosed(0x40).requests
        #expect(orphaned == [request])
        let afterClose = manager.beginRequest(on: 0x40)
        #expect(afterClose == nil)
    }

    @Test func whenEveryIdentifierWaitsNoRequestStarts() {
        var manager = Self.manager(role: .peripheral)
        var started = 0
        while manager.beginRequest(on: 0x40) != nil, started < 300 { started += 1 }
        #expect(started == 255)
        #expect(manager.pendingRequestCount == 255)
    }

    @Test func anAbandonedRequestsLateResponseIsIgnored() throws {
        var manager = Self.manager(role: .peripheral)
        let beganrequest = manager.beginRequest(on: 0x40)
        let request = try #require(beganrequest)
        let abandoned = manager.abandon(request)
        let abandonedAgain = manager.abandon(request)
        #expect(abandoned && !abandonedAgain)
        #expect(manager.receive(Self.pdu(0x0005, [0x13, request.identifier, 0x02, 0x00, 0x00, 0x00])) == .none)
    }
}
