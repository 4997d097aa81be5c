import HaraldCodec
import HaraldL2CAP
import PropertyBased
import Testing

/// Enhanced Credit Based Flow Control Mode (Core spec Vol 3 Part A §4.25–4.28): several channels
/// per request, reconfiguration; and the data path under random sizes.
@Suite("Enhanced credit-based channels")
struct EnhancedCreditBasedChannelsTests {
    static func enhancedAnswer(to request: CreditBasedConnectionRequest, server: CreditBasedReceiveLimits = CreditBasedReceiveLimits())
        -> CreditBasedConnectionResponse?
    {
        var engine = CreditBasedChannels()
        engine.register(CreditBasedChannels.Server(spsm: 0x27, limits: server))
        var events = engine.receive(SignalingCommand(code: LESignalingCode.creditBasedConnectionRequest, identifier: 4, request)) ?? []
        if case let .incomingRequest(incoming) = events.first { events = engine.accept(incoming) }
        guard let signal = events.compactMap(\.signal).first, signal.code == LESignalingCode.creditBasedConnectionResponse else { return nil }
        return try? CreditBasedConnectionResponse(decoding: signal.data)
    }

    @Test func fiveChannelsOpenWithOneRequest() throws {
        var pair = ChannelPair(spsm: 0x27)
        let cids = try pair.open(spsm: 0x27, mode: .enhancedCreditBased, count: 5)
        #expect(cids.count == 5)
        #expect(pair.centralSignals.filter { $0.code == LESignalingCode.creditBasedConnectionRequest }.count == 1)
        #expect(Set(cids.compactMap { pair.peripheralCID(of: $0) }).count == 5)
        #expect(pair.peripheral.openChannelCount == 5)
    }

    @Test func aSixthChannelInOneRequestIsNotAsked() {
        var engine = CreditBasedChannels()
        #expect(throws: ChannelRequestError.invalidChannelCount(6)) { try engine.connect(spsm: 0x27, mode: .enhancedCreditBased, count: 6) }
    }

    @Test func aBadSourceCIDRefusesThatChannelAndOpensTheOthers() throws {
        let response = try #require(
            Self.enhancedAnswer(to: CreditBasedConnectionRequest(spsm: 0x27, mtu: 100, mps: 100, initialCredits: 4, sourceCIDs: [0x40, 0x03, 0x41])))
        #expect(response.result == .invalidSourceCID)
        #expect(response.destinationCIDs.count == 3)
        #expect(response.destinationCIDs[1] == 0 && response.destinationCIDs[0] != 0 && response.destinationCIDs[2] != 0)
    }

    @Test func theSameSourceCIDTwiceInARequestIsRefusedTheSecondTime() throws {
        let response = try #require(
            Self.enhancedAnswer(to: CreditBasedConnectionRequest(spsm: 0x27, mtu: 100, mps: 100, initialCredits: 4, sourceCIDs: [0x40, 0x40])))
        #expect(response.result == .sourceCIDAlreadyAllocated)
        #expect(response.destinationCIDs[0] != 0 && response.destinationCIDs[1] == 0)
    }

    @Test(arguments: [(63, 100), (100, 63)])
    func anMTUOrMPSUnder64RefusesEveryChannel(mtu: Int, mps: Int) throws {
        let response = try #require(
            Self.enhancedAnswer(
                to: CreditBasedConnectionRequest(spsm: 0x27, mtu: UInt16(mtu), mps: UInt16(mps), initialCredits: 4, sourceCIDs: [0x40, 0x41])))
        #expect(response.result == .invalidParameters)
        #expect(response.destinationCIDs == [0, 0])
    }

    @Test func anEnhancedRequestForAnUnservedSPSMRefusesEveryChannel() throws {
        var engine = CreditBasedChannels()
        let events =
            engine.receive(
                SignalingCommand(
                    code: LESignalingCode.creditBasedConnectionRequest, identifier: 4,
                    CreditBasedConnectionRequest(spsm: 0x99, mtu: 100, mps: 100, initialCredits: 4, sourceCIDs: [0x40, 0x41]))) ?? []
        let response = try CreditBasedConnectionResponse(decoding: try #require(events.compactMap(\.signal).first).data)
        #expect(response.result == .spsmNotSupported && response.destinationCIDs == [0, 0])
    }

    /// Two open enhanced channels between a pair; returns the pair and the central's CIDs.
    static func twoChannels() throws -> (ChannelPair, [UInt16]) {
        var pair = ChannelPair(spsm: 0x27, serverLimits: CreditBasedReceiveLimits(mtu: 200, mps: 100))
        let cids = try pair.open(spsm: 0x27, mode: .enhancedCreditBased, count: 2, limits: CreditBasedReceiveLimits(mtu: 200, mps: 100))
        return (pair, cids)
    }

    static func reconfigureResults(_ pair: ChannelPair) -> [CreditBasedReconfigureResult?] {
        pair.centralEvents.compactMap { if case let .reconfigured(_, result) = $0 { result } else { nil } }
    }

    @Test func aLargerMTUIsReconfiguredOnBothEnds() throws {
        var (pair, cids) = try Self.twoChannels()
        let (_, events) = try pair.central.reconfigure(cids, mtu: 400, mps: 100)
        pair.carry(events, from: .central)
        #expect(Self.reconfigureResults(pair) == [.successful])
        #expect(cids.allSatisfy { pair.central.channel($0)?.mtu == 400 })
        let peerCIDs = cids.compactMap { pair.peripheralCID(of: $0) }
        #expect(peerCIDs.allSatisfy { pair.peripheral.channel($0)?.peerMTU == 400 })
        try pair.send([UInt8](repeating: 7, count: 400), on: peerCIDs[0], from: .peripheral)
        #expect(pair.centralInbox[cids[0]]?.first?.count == 400)
    }

    /// What the peripheral answers when the central's engine is made to send a reconfigure request
    /// by hand.
    static func peerAnswer(to request: CreditBasedReconfigureRequest, in pair: inout ChannelPair) throws -> CreditBasedReconfigureResult {
        let events = pair.peripheral.receive(SignalingCommand(code: LESignalingCode.creditBasedReconfigureRequest, identifier: 0x33, request)) ?? []
        return try CreditBasedReconfigureResult(decoding: try #require(events.compactMap(\.signal).first).data)
    }

    @Test func aSmallerMTUIsRefused() throws {
        var (pair, cids) = try Self.twoChannels()
        #expect(try Self.peerAnswer(to: CreditBasedReconfigureRequest(mtu: 199, mps: 100, cids: cids), in: &pair) == .mtuReductionNotAllowed)
    }

    @Test func aSmallerMPSForTwoChannelsAtOnceIsRefused() throws {
        var (pair, cids) = try Self.twoChannels()
        #expect(try Self.peerAnswer(to: CreditBasedReconfigureRequest(mtu: 200, mps: 80, cids: cids), in: &pair) == .mpsReductionNotAllowed)
        #expect(try Self.peerAnswer(to: CreditBasedReconfigureRequest(mtu: 200, mps: 80, cids: [cids[0]]), in: &pair) == .successful)
    }

    @Test func aReconfigurationOfAChannelThatIsNotOpenIsRefused() throws {
        var (pair, _) = try Self.twoChannels()
        #expect(try Self.peerAnswer(to: CreditBasedReconfigureRequest(mtu: 300, mps: 100, cids: [0x7F]), in: &pair) == .invalidDestinationCIDs)
    }

    @Test func aReconfigurationUnder64IsRefusedAsUnacceptable() throws {
        var (pair, cids) = try Self.twoChannels()
        #expect(try Self.peerAnswer(to: CreditBasedReconfigureRequest(mtu: 300, mps: 63, cids: cids), in: &pair) == .unacceptableParameters)
    }

    /// Any SDU sizes, MTU, MPS and room, with a reader that reads at random moments: every SDU
    /// arrives whole and in order, the sender never sends without credit (the receiver would close
    /// the channel), and the receiver never holds more K-frames than its window.
    @Test func sdusOfAnySizeArriveWholeAndInOrderWithinTheWindow() async {
        let sizes = Gen.int(in: 0...600).array(of: 1...40)
        await propertyCheck(input: sizes, Gen.int(in: 23...300), Gen.int(in: 0...3000), Gen.bool.array(of: 40...40)) { sizes, mps, room, reads in
            var pair = ChannelPair(serverLimits: CreditBasedReceiveLimits(mtu: 600, mps: mps, bufferCapacity: room))
            pair.readsAtOnce = false
            let cid = try #require(pair.open(limits: CreditBasedReceiveLimits(mtu: 600, mps: 64)).first)
            let peerCID = try #require(pair.peripheralCID(of: cid))
            let sdus = sizes.enumerated().map { index, size in (0..<size).map { UInt8(truncatingIfNeeded: $0 &+ index) } }
            for (index, sdu) in sdus.enumerated() {
                try pair.send(sdu, on: cid, from: .central, id: UInt64(index))
                if reads[index] { pair.read(pair.peripheralInbox[peerCID, default: []].count, on: peerCID, at: .peripheral) }
                let window = try #require(pair.peripheral.receiveWindow(on: peerCID))
                #expect(window.heldFrames + window.peerCredits <= window.window)
            }
            for _ in 0..<sdus.count { pair.read(1, on: peerCID, at: .peripheral) }
            #expect(pair.peripheralInbox[peerCID] == sdus)
            #expect(pair.peripheralEvents.compactMap(\.closeReason).isEmpty)
        }
    }
}

extension EnhancedCreditBasedChannelsTests {
    /// Found by the fuzzer: K-frames queued before the peer lowered its MPS went out at the old size.
    @Test func kFramesQueuedBeforeThePeerLowersItsMPSAreCutToTheNewOne() throws {
        var (pair, cids) = try Self.twoChannels()
        let cid = cids[0]
        let peerCID = try #require(pair.peripheralCID(of: cid))
        // The central's window for the peripheral: spend it, so the next SDU waits in the queue.
        pair.readsAtOnce = false
        let credits = pair.peripheral.sendCredits(on: peerCID)
        for _ in 0..<credits { try pair.send([1], on: peerCID, from: .peripheral) }
        try pair.send([UInt8](repeating: 7, count: 200), on: peerCID, from: .peripheral)  // 2 K-frames of ≤ 100, queued
        #expect(pair.peripheral.queuedSDUs(on: peerCID) == 1)
        // The central lowers its MPS from 100 to 64 on that one channel.
        let events =
            pair.peripheral.receive(
                SignalingCommand(
                    code: LESignalingCode.creditBasedReconfigureRequest, identifier: 0x44, CreditBasedReconfigureRequest(mtu: 200, mps: 64, cids: [cid]))) ?? []
        #expect(events.contains(.peerReconfigured(cid: peerCID, mtu: 200, mps: 64)))
        pair.peripheralEvents = []
        pair.read(credits, on: cid, at: .central)  // credits come back, the queued SDU goes
        let frames = pair.peripheralEvents.compactMap { if case let .kFrame(_, payload) = $0 { payload } else { nil } }
        #expect(!frames.isEmpty && frames.allSatisfy { $0.count <= 64 })
        #expect(pair.centralInbox[cid]?.last == [UInt8](repeating: 7, count: 200))
    }
}
