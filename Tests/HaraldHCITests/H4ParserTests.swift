import HaraldCodec
import PropertyBased
import Testing

@testable import HaraldHCI

@Suite("H4 framing")
struct H4ParserTests {
    /// Reset's Command Complete, an LE Advertising Report and an ACL packet, as captured from Bumble.
    static let stream: [UInt8] =
        bytes("040e0401030c00")
        + bytes("043e2b020100010100000000c01f02010605030d180f18090941636d652048524d0319410307ffffff41434d45ce")
        + bytes("020120070003000400030502")

    @Test func wholeStreamYieldsEachPacketWithoutItsIndicator() {
        var parser = H4Parser()
        let packets = parser.feed(Self.stream)
        #expect(packets.map(\.type) == [.event, .event, .acl])
        #expect(packets[0].payload == bytes("0e0401030c00"))
        #expect(packets.flatMap(\.h4Bytes) == Self.stream)
        #expect(parser.error == nil)
        #expect(parser.isAtPacketBoundary)
    }

    @Test func anySplitOfTheStreamYieldsTheSamePackets() async {
        await propertyCheck(input: Gen.int(in: 1...20).array(of: 1...30)) { cuts in
            var parser = H4Parser()
            var packets: [HCIPacket] = []
            var index = 0
            var cut = 0
            while index < Self.stream.count {
                let size = cuts.isEmpty ? 1 : cuts[cut % cuts.count]
                cut += 1
                let end = min(Self.stream.count, index + size)
                packets += parser.feed(Self.stream[index..<end])
                index = end
            }
            #expect(packets.flatMap(\.h4Bytes) == Self.stream)
        }
    }

    @Test func badIndicatorStopsTheParserAndKeepsEarlierPackets() {
        var parser = H4Parser()
        let packets = parser.feed(bytes("040e0401030c00") + [0x07, 0x04, 0x0e])
        #expect(packets.count == 1)
        #expect(parser.error == .invalidPacketIndicator(0x07, offset: 7))
        #expect(parser.feed(bytes("040e0401030c00")).isEmpty)
    }

    @Test func randomGarbageNeverTrapsAndEndsInPacketsOrAnError() async {
        await propertyCheck(input: Gen.uint8().array(of: 0...300)) { garbage in
            var parser = H4Parser()
            let packets = parser.feed(garbage)
            let consumed = packets.reduce(0) { $0 + $1.h4Bytes.count }
            #expect(consumed <= garbage.count)
            if parser.error == nil {
                #expect(parser.streamOffset == garbage.count)
            }
        }
    }

    @Test func zeroLengthEventCompletesWithItsHeader() {
        var parser = H4Parser()
        #expect(parser.feed([0x04, 0x1A, 0x00]) == [HCIPacket(type: .event, payload: [0x1A, 0x00])])
    }
}
