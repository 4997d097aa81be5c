import HaraldCodec
import HaraldL2CAP
import Testing

/// The engine of LE Credit Based Flow Control Mode, two engines back to back or one fed a hostile
/// peer's bytes by hand (Core spec Vol 3 Part A §4.22–4.24, §10.1).
@Suite("LE credit-based channels")
struct CreditBasedChannelsTests {
    /// A command from the peer with `identifier`.
    static func command(_ code: UInt8, _ identifier: UInt8 = 7, _ value: some ByteEncodable) -> SignalingCommand {
        SignalingCommand(code: code, identifier: identifier, value)
    }

    /// An engine serving SPSM 0x80 with `limits`, and the one response it sends to an LE request.
    static func answer(
        _ request: LECreditBasedConnectionRequest, limits: CreditBasedReceiveLimits = CreditBasedReceiveLimits()
    ) throws -> LECreditBasedConnectionResponse {
        var engine = CreditBasedChannels()
        engine.register(CreditBasedChannels.Server(spsm: 0x80, limits: limits))
        var events = engine.receive(command(LESignalingCode.leCreditBasedConnectionRequest, 7, request)) ?? []
        if case let .incomingRequest(incoming) = events.first { events = engine.accept(incoming) }
        let response = try #require(events.compactMap(\.signal).first)
        #expect(response.code == LESignalingCode.leCreditBasedConnectionResponse)
        #expect(response.identifier == 7)
        return try LECreditBasedConnectionResponse(decoding: response.data)
    }

    @Test func aChannelOpensWithTheLimitsEachEndAnnounced() throws {
        var pair = ChannelPair(serverLimits: CreditBasedReceiveLimits(mtu: 512, mps: 100))
        let cids = try pair.open(limits: CreditBasedReceiveLimits(mtu: 1024, mps: 247))
        let cid = try #require(cids.first)
        let channel = try #require(pair.central.channel(cid))
        #expect(channel.mtu == 1024 && channel.mps == 247)
        #expect(channel.peerMTU == 512 && channel.peerMPS == 100)
        let peer = try #require(pair.peripheral.channel(channel.remoteCID))
        #expect(peer.remoteCID == cid && peer.peerMTU == 1024 && peer.peerMPS == 247 && peer.isIncoming)
        #expect(CreditBasedChannels.dynamicCIDs.contains(cid) && CreditBasedChannels.dynamicCIDs.contains(channel.remoteCID))
    }

    @Test func anSPSMNobodyServesIsRefusedWithSPSMNotSupported() throws {
        var pair = ChannelPair(spsm: 0x80)
        _ = try pair.open(spsm: 0x81)
        #expect(pair.centralEvents.compactMap(\.openFailure) == [.refused(.spsmNotSupported)])
        #expect(pair.central.openChannelCount == 0 && pair.peripheral.openChannelCount == 0)
    }

    @Test func theServersSecurityRefusalIsTheResultThePeerGets() throws {
        var pair = ChannelPair()
        pair.refusal = .insufficientAuthentication
        _ = try pair.open()
        #expect(pair.centralEvents.compactMap(\.openFailure) == [.refused(.insufficientAuthentication)])
        #expect(pair.peripheral.openChannelCount == 0)
    }

    @Test func aSourceCIDOutsideTheDynamicRangeIsRefusedAsInvalid() throws {
        let response = try Self.answer(LECreditBasedConnectionRequest(spsm: 0x80, sourceCID: 0x0004, mtu: 100, mps: 100, initialCredits: 1))
        #expect(response == .refusal(.invalidSourceCID))
    }

    @Test func aSourceCIDAlreadyInUseOnTheLinkIsRefused() throws {
        var engine = CreditBasedChannels()
        engine.register(CreditBasedChannels.Server(spsm: 0x80))
        let request = LECreditBasedConnectionRequest(spsm: 0x80, sourceCID: 0x0040, mtu: 100, mps: 100, initialCredits: 1)
        guard case let .incomingRequest(first) = engine.receive(Self.command(0x14, 1, request))?.first else { Issue.record("no request"); return }
        _ = engine.accept(first)
        let again = try #require(engine.receive(Self.command(0x14, 2, request))?.compactMap(\.signal).first)
        #expect(try LECreditBasedConnectionResponse(decoding: again.data) == .refusal(.sourceCIDAlreadyAllocated))
    }

    @Test(arguments: [(22, 100), (100, 22), (100, 65_534)])
    func anMTUOrMPSOutsideTheModesRangeIsRefusedAsUnacceptable(mtu: Int, mps: Int) throws {
        let response = try Self.answer(
            LECreditBasedConnectionRequest(spsm: 0x80, sourceCID: 0x0040, mtu: UInt16(mtu), mps: UInt16(mps), initialCredits: 1))
        #expect(response == .refusal(.unacceptableParameters))
    }

    @Test func aMalformedRequestIsRejectedAsNotUnderstood() throws {
        var engine = CreditBasedChannels()
        let events = engine.receive(SignalingCommand(code: 0x14, identifier: 3, data: [0x80, 0x00])) ?? []
        let reject = try #require(events.compactMap(\.signal).first)
        #expect(reject.code == LESignalingCode.commandReject && reject.identifier == 3)
        #expect(try CommandReject(decoding: reject.data).reason == CommandReject.commandNotUnderstood)
    }

    @Test func anSDUIsCutIntoKFramesOfThePeersMPSTheFirstCarryingItsLength() throws {
        var pair = ChannelPair(serverLimits: CreditBasedReceiveLimits(mtu: 2000, mps: 100))
        let cid = try #require(pair.open().first)
        let sdu = (0..<1000).map { UInt8($0 & 0xFF) }
        try pair.send(sdu, on: cid, from: .central, id: 9)
        let frames = pair.centralEvents.compactMap { if case let .kFrame(_, payload) = $0 { payload } else { nil } }
        #expect(frames.count == 11)  // (1000 + 2) / 100, rounded up
        #expect(frames.allSatisfy { $0.count <= 100 })
        #expect(Array(frames[0].prefix(2)) == [0xE8, 0x03])
        #expect(pair.peripheralInbox.values.first == [sdu])
        #expect(pair.count(.central) { $0 == .sent(cid: cid, id: 9) } == 1)
    }

    @Test func anSDULongerThanThePeersMTUIsNotSent() throws {
        var pair = ChannelPair(serverLimits: CreditBasedReceiveLimits(mtu: 100))
        let cid = try #require(pair.open().first)
        #expect(throws: ChannelRequestError.sduTooLong(101, peerMTU: 100)) { try pair.send([UInt8](repeating: 1, count: 101), on: cid, from: .central) }
        #expect(!pair.centralEvents.contains { $0.isKFrame })
    }

    @Test func theSenderStopsWhenItsCreditsRunOutAndGoesOnWhenMoreArrive() throws {
        // A server window of 4 K-frames of 23 bytes (the smallest room the limits allow).
        var pair = ChannelPair(serverLimits: CreditBasedReceiveLimits(mtu: 23, mps: 23, bufferCapacity: 0))
        let cid = try #require(pair.open().first)
        let peerCID = try #require(pair.peripheralCID(of: cid))
        let window = try #require(pair.peripheral.receiveWindow(on: peerCID)).window
        #expect(pair.central.sendCredits(on: cid) == window)
        pair.readsAtOnce = false
        for index in 0..<(window + 3) { try pair.send([UInt8(index)], on: cid, from: .central, id: UInt64(index)) }
        #expect(pair.count(.central) { $0.isKFrame } == window)
        #expect(pair.central.sendCredits(on: cid) == 0 && pair.central.queuedSDUs(on: cid) == 3)
        pair.read(window, on: peerCID, at: .peripheral)
        #expect(pair.count(.central) { $0.isKFrame } == window + 3)
        #expect(pair.central.queuedSDUs(on: cid) == 0)
    }

    @Test func creditsGoBackInBulkNeverOneKFrameAtATime() throws {
        var pair = ChannelPair(serverLimits: CreditBasedReceiveLimits(mtu: 2048, mps: 247, bufferCapacity: 64 * 1024))
        let cid = try #require(pair.open().first)
        let sdu = [UInt8](repeating: 0x5A, count: 2048)
        for index in 0..<512 { try pair.send(sdu, on: cid, from: .central, id: UInt64(index)) }  // 1 MiB
        let frames = pair.count(.central) { $0.isKFrame }
        let grants = pair.peripheralEvents.compactMap(\.creditGrant)
        let window = CreditBasedReceiveLimits(mtu: 2048, mps: 247, bufferCapacity: 64 * 1024).window
        #expect(frames == 512 * 9)
        #expect(grants.allSatisfy { Int($0.credits) >= (window + 1) / 2 })
        #expect(grants.count <= frames / ((window + 1) / 2) + 1)
        #expect(pair.peripheralInbox.values.first?.count == 512)
    }

    @Test func aReaderThatStopsBoundsWhatThePeerCanSendToTheWindow() throws {
        var pair = ChannelPair(serverLimits: CreditBasedReceiveLimits(mtu: 512, mps: 64, bufferCapacity: 4096))
        let cid = try #require(pair.open().first)
        pair.readsAtOnce = false
        for index in 0..<64 { try pair.send([UInt8](repeating: 1, count: 500), on: cid, from: .central, id: UInt64(index)) }
        let peerCID = try #require(pair.peripheralCID(of: cid))
        let window = try #require(pair.peripheral.receiveWindow(on: peerCID))
        #expect(window.heldFrames <= window.window)
        #expect(pair.count(.central) { $0.isKFrame } == window.window)
        #expect(pair.peripheralEvents.compactMap(\.creditGrant).isEmpty)
    }

    /// The peripheral's engine with one open channel from a peer that holds `credits`, for the
    /// hostile-peer tests: returns the engine and our CID.
    static func openedByPeer(mtu: UInt16 = 100, mps: UInt16 = 50, credits: UInt16 = 10, limits: CreditBasedReceiveLimits) throws
        -> (CreditBasedChannels, UInt16)
    {
        var engine = CreditBasedChannels()
        engine.register(CreditBasedChannels.Server(spsm: 0x80, limits: limits))
        let request = LECreditBasedConnectionRequest(spsm: 0x80, sourceCID: 0x0041, mtu: mtu, mps: mps, initialCredits: credits)
        guard case let .incomingRequest(incoming) = engine.receive(command(0x14, 1, request))?.first else { throw ScenarioError.noRequest }
        let events = engine.accept(incoming)
        guard case let .opened(info) = events.last else { throw ScenarioError.noRequest }
        return (engine, info.localCID)
    }

    enum ScenarioError: Error { case noRequest }

    @Test func aKFrameSentWithoutCreditClosesTheChannel() throws {
        var (engine, cid) = try Self.openedByPeer(limits: CreditBasedReceiveLimits(mtu: 23, mps: 23, bufferCapacity: 0))
        let window = try #require(engine.receiveWindow(on: cid)).window
        var events: [CreditBasedChannels.Event] = []
        for _ in 0...window { events += engine.receiveKFrame(cid: cid, payload: [1, 0, 0xAA]) }  // one too many, nothing read
        #expect(events.compactMap(\.closeReason) == [.protocolViolation(.frameWithoutCredit)])
        let disconnect = try #require(events.compactMap(\.signal).first { $0.code == LESignalingCode.disconnectionRequest })
        #expect(try DisconnectionCommand(decoding: disconnect.data) == DisconnectionCommand(destinationCID: 0x0041, sourceCID: cid))
        #expect(engine.channel(cid) == nil)
    }

    @Test func creditsPast65535CloseTheChannel() throws {
        var (engine, _) = try Self.openedByPeer(credits: 65_000, limits: CreditBasedReceiveLimits())
        let events = engine.receive(Self.command(LESignalingCode.flowControlCredit, 2, FlowControlCreditIndication(cid: 0x0041, credits: 536))) ?? []
        #expect(events.compactMap(\.closeReason) == [.protocolViolation(.creditOverflow(CreditOverflow(held: 65_000, granted: 536)))])
    }

    @Test func creditsUpTo65535AreTaken() throws {
        var (engine, cid) = try Self.openedByPeer(credits: 65_000, limits: CreditBasedReceiveLimits())
        _ = engine.receive(Self.command(LESignalingCode.flowControlCredit, 2, FlowControlCreditIndication(cid: 0x0041, credits: 535)))
        #expect(engine.sendCredits(on: cid) == 65_535)
    }

    @Test func anSDULongerThanOurMTUClosesTheChannel() throws {
        var (engine, cid) = try Self.openedByPeer(limits: CreditBasedReceiveLimits(mtu: 100, mps: 50))
        let events = engine.receiveKFrame(cid: cid, payload: [101, 0] + [UInt8](repeating: 0, count: 48))
        #expect(events.compactMap(\.closeReason) == [.protocolViolation(.kFrame(.sduTooLong(101, mtu: 100)))])
    }

    @Test func aKFrameLongerThanOurMPSClosesTheChannel() throws {
        var (engine, cid) = try Self.openedByPeer(limits: CreditBasedReceiveLimits(mtu: 100, mps: 50))
        let events = engine.receiveKFrame(cid: cid, payload: [60, 0] + [UInt8](repeating: 0, count: 49))
        #expect(events.compactMap(\.closeReason) == [.protocolViolation(.kFrame(.frameTooLong(51, mps: 50)))])
    }

    @Test func kFramesCarryingMoreThanTheirSDULengthCloseTheChannel() throws {
        var (engine, cid) = try Self.openedByPeer(limits: CreditBasedReceiveLimits(mtu: 100, mps: 50))
        _ = engine.receiveKFrame(cid: cid, payload: [60, 0] + [UInt8](repeating: 0, count: 48))
        let events = engine.receiveKFrame(cid: cid, payload: [UInt8](repeating: 0, count: 13))
        #expect(events.compactMap(\.closeReason) == [.protocolViolation(.kFrame(.sduOverrun(expected: 60, received: 61)))])
    }

    @Test func thePeersDisconnectionRequestIsAnsweredAndClosesTheChannel() throws {
        var (engine, cid) = try Self.openedByPeer(limits: CreditBasedReceiveLimits())
        let request = DisconnectionCommand(destinationCID: cid, sourceCID: 0x0041)
        let events = engine.receive(Self.command(LESignalingCode.disconnectionRequest, 9, request)) ?? []
        let response = try #require(events.compactMap(\.signal).first)
        #expect(response.code == LESignalingCode.disconnectionResponse && response.identifier == 9)
        #expect(try DisconnectionCommand(decoding: response.data) == request)
        #expect(events.compactMap(\.closeReason) == [.closedByPeer])
        #expect(engine.channel(cid) == nil)
    }

    @Test func aDisconnectionRequestForNoChannelIsRejectedNamingItsCIDs() throws {
        var engine = CreditBasedChannels()
        let events = engine.receive(Self.command(LESignalingCode.disconnectionRequest, 9, DisconnectionCommand(destinationCID: 0x40, sourceCID: 0x41))) ?? []
        let reject = try #require(events.compactMap(\.signal).first)
        #expect(reject.code == LESignalingCode.commandReject)
        #expect(try CommandReject(decoding: reject.data) == CommandReject(reason: CommandReject.invalidCIDInRequest, data: [0x40, 0, 0x41, 0]))
    }

    @Test func closingAChannelSendsADisconnectionRequestAndBothEndsForgetIt() throws {
        var pair = ChannelPair()
        let cid = try #require(pair.open().first)
        pair.carry(pair.central.disconnect(cid), from: .central)
        #expect(pair.centralEvents.compactMap(\.closeReason) == [.closedLocally])
        #expect(pair.peripheralEvents.compactMap(\.closeReason) == [.closedByPeer])
        #expect(pair.central.pendingRequestCount == 0)
        #expect(pair.central.openChannelCount == 0 && pair.peripheral.openChannelCount == 0)
    }

    @Test func aChannelClosedWhileOpeningIsDisconnectedWhenTheAnswerComes() throws {
        var pair = ChannelPair()
        let (request, events) = try pair.central.connect(spsm: 0x80)
        let cid = request.localCIDs[0]
        _ = pair.central.disconnect(cid)
        pair.carry(events, from: .central)
        #expect(pair.count(.central) { if case .opened = $0 { true } else { false } } == 0)
        #expect(pair.peripheralEvents.compactMap(\.closeReason) == [.closedByPeer])
        #expect(pair.central.openChannelCount == 0)
    }

    @Test func aRequestWithNoAnswerFailsWhenItTimesOutAndALateAnswerIsIgnored() throws {
        var pair = ChannelPair()
        let (request, events) = try pair.central.connect(spsm: 0x80)
        #expect(pair.central.requestTimedOut(request.identifier).compactMap(\.openFailure) == [.timedOut])
        pair.carry(events, from: .central)  // the answer comes after all
        #expect(pair.central.openChannelCount == 0)
    }

    @Test func aPeerThatRejectsTheCommandFailsTheOpen() throws {
        var engine = CreditBasedChannels()
        let (request, _) = try engine.connect(spsm: 0x80)
        let events = engine.receive(Self.command(LESignalingCode.commandReject, request.identifier, CommandReject(reason: 0))) ?? []
        #expect(events.compactMap(\.openFailure) == [.commandRejected(reason: 0)])
    }

    @Test func anAnswerWithAnMPSUnder23OpensNothing() throws {
        var engine = CreditBasedChannels()
        let (request, _) = try engine.connect(spsm: 0x80)
        let response = LECreditBasedConnectionResponse(destinationCID: 0x40, mtu: 100, mps: 22, initialCredits: 5, result: .successful)
        let events = engine.receive(Self.command(LESignalingCode.leCreditBasedConnectionResponse, request.identifier, response)) ?? []
        #expect(events.compactMap(\.openFailure) == [.invalidResponse])
        #expect(events.compactMap(\.signal).map(\.code) == [LESignalingCode.disconnectionRequest])
        #expect(engine.openChannelCount == 0)
    }

    @Test func losingTheLinkClosesEveryChannelAndFailsEveryOpen() throws {
        var pair = ChannelPair()
        let cid = try #require(pair.open().first)
        let (request, _) = try pair.central.connect(spsm: 0x80)
        let events = pair.central.linkClosed()
        #expect(events.contains(.closed(cid: cid, .linkLost)))
        #expect(events.contains(.openFailed(request, .linkLost)))
        #expect(pair.central.pendingRequestCount == 0)
    }

    @Test func commandsThatAreNotAboutChannelsAreLeftToTheOwner() {
        var engine = CreditBasedChannels()
        #expect(
            engine.receive(SignalingCommand(code: LESignalingCode.connectionParameterUpdateRequest, identifier: 1, data: [UInt8](repeating: 0, count: 8)))
                == nil)
        let identifier = engine.beginExternalRequest()!
        #expect(engine.receive(SignalingCommand(code: LESignalingCode.commandReject, identifier: identifier, data: [0, 0])) == nil)
    }
}

extension CreditBasedChannelsTests {
    /// Found by the fuzzer: a peer answering with a destination CID it already uses for a channel
    /// it opened to us would make two channels share one route.
    @Test func anAnswerNamingACIDThePeerAlreadyUsesOpensNothing() throws {
        var (engine, _) = try Self.openedByPeer(limits: CreditBasedReceiveLimits())  // the peer's CID 0x0041 is in use
        let (request, _) = try engine.connect(spsm: 0x80)
        let response = LECreditBasedConnectionResponse(destinationCID: 0x41, mtu: 100, mps: 100, initialCredits: 5, result: .successful)
        let events = engine.receive(Self.command(LESignalingCode.leCreditBasedConnectionResponse, request.identifier, response)) ?? []
        #expect(events.compactMap(\.openFailure) == [.invalidResponse])
        #expect(engine.openChannelCount == 1)
    }
}
