import HaraldCodec
import HaraldL2CAP
import Testing

/// The defaults of RELIABILITY.md's "Bounded resources" rows for credit-based channels, each
/// reached with the default the engine uses.
@Suite("L2CAP channels: default limits")
struct L2CAPDefaultLimitTests {
    @Test func aChannelWithTheDefaultLimitsOffers65536BytesOfRoomAsItsWindow() throws {
        let limits = CreditBasedReceiveLimits()
        #expect(limits.bufferCapacity == 65_536)
        var pair = ChannelPair()
        let cid = try #require(pair.open(limits: limits).first)
        // The peer may send 65,536 / 247 = 265 K-frames before the reader takes anything.
        #expect(pair.peripheral.sendCredits(on: try #require(pair.peripheralCID(of: cid))) == 65_536 / 247)
    }

    @Test func aChannelQueuesAtMost64SDUsToSend() throws {
        var (engine, cid) = try CreditBasedChannelsTests.openedByPeer(credits: 0, limits: CreditBasedReceiveLimits())
        for id in 0..<64 { _ = try engine.send([1], on: cid, id: UInt64(id)) }
        #expect(engine.queuedSDUs(on: cid) == 64)
        #expect(throws: ChannelRequestError.queueFull) { try engine.send([1], on: cid, id: 64) }
    }

    @Test func atMost4PeerRequestsWaitForTheAdmissionCheck() throws {
        var engine = CreditBasedChannels()
        engine.register(CreditBasedChannels.Server(spsm: 0x80))
        var answers: [CreditBasedChannels.Event] = []
        for index in 0..<5 {
            let request = LECreditBasedConnectionRequest(spsm: 0x80, sourceCID: 0x40 + UInt16(index), mtu: 100, mps: 100, initialCredits: 1)
            answers += engine.receive(SignalingCommand(code: 0x14, identifier: UInt8(index + 1), request)) ?? []
        }
        #expect(answers.filter { if case .incomingRequest = $0 { true } else { false } }.count == 4)
        let refusal = try #require(answers.compactMap(\.signal).first)
        #expect(try LECreditBasedConnectionResponse(decoding: refusal.data) == .refusal(.noResourcesAvailable))
    }

    @Test func aServerTakesAtMost8ChannelsPerLinkByDefault() throws {
        var pair = ChannelPair()
        for _ in 0..<8 { #expect(try pair.open().count == 1) }
        #expect(try pair.open().isEmpty)
        #expect(pair.centralEvents.compactMap(\.openFailure) == [.refused(.noResourcesAvailable)])
    }
}
