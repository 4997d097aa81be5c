import HaraldCodec
import Testing

@testable import HaraldL2CAP

@Suite("L2CAP credit-based channels: PDUs, K-frames and credits (Core Vol 3 Part A)")
struct CreditBasedChannelRulesTests {
    @Test func anLECreditBasedConnectionRequestIsTenLittleEndianOctets() throws {
        let request = LECreditBasedConnectionRequest(spsm: 0x0080, sourceCID: 0x0040, mtu: 1024, mps: 251, initialCredits: 16)
        let bytes = try request.encodedBytes()
        #expect(bytes == [0x80, 0x00, 0x40, 0x00, 0x00, 0x04, 0xFB, 0x00, 0x10, 0x00])
        #expect(try LECreditBasedConnectionRequest(decoding: bytes) == request)
    }

    @Test func aShortConnectionRequestIsATypedErrorNamingTheField() {
        #expect(throws: ByteDecodingError.self) { try LECreditBasedConnectionRequest(decoding: [0x80, 0x00, 0x40, 0x00]) }
    }

    @Test func aRefusalCarriesOnlyTheResult() throws {
        let bytes = try LECreditBasedConnectionResponse.refusal(.spsmNotSupported).encodedBytes()
        #expect(bytes == [0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x00])
        #expect(try LECreditBasedConnectionResponse(decoding: bytes).result == .spsmNotSupported)
    }

    @Test func anEnhancedRequestOpensOneToFiveChannels() throws {
        let request = CreditBasedConnectionRequest(spsm: 0x0027, mtu: 64, mps: 64, initialCredits: 5, sourceCIDs: [0x40, 0x41])
        let bytes = try request.encodedBytes()
        #expect(bytes.count == 12)
        #expect(try CreditBasedConnectionRequest(decoding: bytes) == request)
        #expect(throws: ByteDecodingError.self) { try CreditBasedConnectionRequest(decoding: Array(bytes.prefix(8))) }
        #expect(throws: ByteDecodingError.self) { try CreditBasedConnectionRequest(decoding: bytes.prefix(8) + Array(repeating: 0x40, count: 12)) }
        #expect(throws: ByteEncodingError.self) {
            try CreditBasedConnectionRequest(spsm: 0x27, mtu: 64, mps: 64, initialCredits: 1, sourceCIDs: Array(0x40...0x45)).encodedBytes()
        }
    }

    @Test func anSDUIsSplitIntoKFramesOfAtMostTheMPSTheFirstCarryingItsLength() throws {
        let sdu = Array(UInt8(0)..<UInt8(100))
        let frames = try KFrameSegmenter.segment(sdu, mps: 23, mtu: 1024)
        #expect(frames.map(\.count) == [23, 23, 23, 23, 10])
        #expect(Array(frames[0].prefix(2)) == [100, 0])
        #expect(Array(frames.joined().dropFirst(2)) == sdu)
    }

    @Test func reassemblyGivesBackTheSDU() throws {
        let sdu = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        var reassembler = KFrameReassembler(mtu: 1024, mps: 100)
        var out: [[UInt8]] = []
        for frame in try KFrameSegmenter.segment(sdu, mps: 100, mtu: 1024) {
            if let complete = try reassembler.take(frame) { out.append(complete) }
        }
        #expect(out == [sdu])
        #expect(!reassembler.isMidSDU)
    }

    @Test func anSDULongerThanTheMTUIsRefusedAtBothEnds() throws {
        #expect(throws: KFrameError.sduTooLong(30, mtu: 23)) { try KFrameSegmenter.segment(Array(repeating: 1, count: 30), mps: 23, mtu: 23) }
        var reassembler = KFrameReassembler(mtu: 23, mps: 50)
        let refused = refusal { () throws(KFrameError) -> [UInt8]? in try reassembler.take([30, 0] + Array(repeating: 1, count: 10)) }
        #expect(refused == .sduTooLong(30, mtu: 23))
    }

    @Test func aKFrameLongerThanTheMPSIsRefused() {
        var reassembler = KFrameReassembler(mtu: 1024, mps: 23)
        let refused = refusal { () throws(KFrameError) -> [UInt8]? in try reassembler.take([22, 0] + Array(repeating: 1, count: 22)) }
        #expect(refused == .frameTooLong(24, mps: 23))
    }

    @Test func kFramesCarryingMoreThanTheSDULengthAreRefused() throws {
        var reassembler = KFrameReassembler(mtu: 1024, mps: 23)
        let first = try reassembler.take([30, 0] + Array(repeating: 1, count: 21))
        #expect(first == nil)
        let refused = refusal { () throws(KFrameError) -> [UInt8]? in try reassembler.take(Array(repeating: 2, count: 12)) }
        #expect(refused == .sduOverrun(expected: 30, received: 33))
    }

    @Test func creditsPastSixtyFiveThousandFiveHundredThirtyFiveAreAnOverflow() throws {
        var credits = ChannelCredits(initial: 65_000)
        try credits.grant(535)
        #expect(credits.available == 65_535)
        do {
            try credits.grant(1)
            Issue.record("a grant past 65,535 was taken")
        } catch {
            #expect(error == CreditOverflow(held: 65_535, granted: 1))
        }
        #expect(credits.available == 65_535)
    }

    @Test func aKFrameCostsOneCreditAndNoneIsSpentWithoutOne() {
        var credits = ChannelCredits(initial: 1)
        let spent = credits.spend()
        let spentWithoutCredit = credits.spend()
        #expect(spent)
        #expect(!spentWithoutCredit)
        #expect(credits.available == 0)
    }
}

/// The error `body` throws, or nil when it returns.
private func refusal(_ body: () throws(KFrameError) -> [UInt8]?) -> KFrameError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
