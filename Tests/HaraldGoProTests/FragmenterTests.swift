import HaraldCodec
import HaraldGoPro
import Testing

@Suite("Open GoPro fragmenter")
struct FragmenterTests {
    @Test(arguments: GoProVectors.fragmentation)
    func theSharedVectorsFragmentAsExpected(vector: FragmentationVector) throws {
        let packets = try GoProFragmenter.fragment(vector.messageBytes)
        #expect(packets.map(\.hexString) == vector.packets.map { $0.lowercased() })
    }

    @Test func theVectorsAreLoaded() {
        #expect(!GoProVectors.fragmentation.isEmpty)
        #expect(!GoProVectors.streams.isEmpty)
    }

    @Test func packetsAreAtMostTwentyBytesByDefault() throws {
        let packets = try GoProFragmenter.fragment([UInt8](repeating: 7, count: 1000))
        #expect(packets.allSatisfy { $0.count <= 20 })
        #expect(packets.count == GoProFragmenter.packetCount(messageLength: 1000))
    }

    @Test func aLargerATTMTUMakesLargerPackets() throws {
        let size = GoProFragmenter.packetSize(attMTU: 185)
        #expect(size == 182)
        let packets = try GoProFragmenter.fragment([UInt8](repeating: 1, count: 400), packetSize: size)
        #expect(packets.map(\.count) == [182, 182, 40])
    }

    @Test func theContinuationCounterWrapsAfterFifteen() throws {
        let packets = try GoProFragmenter.fragment([UInt8](repeating: 0, count: 18 + 19 * 17))
        #expect(packets.dropFirst().map { $0[0] } == (0..<17).map { 0x80 | UInt8($0 & 0x0F) })
    }

    @Test func theLargestSendableMessageUsesTheExtended13Header() throws {
        let packets = try GoProFragmenter.fragment([UInt8](repeating: 0, count: 8191))
        #expect(packets.first?.prefix(2) == [0x3F, 0xFF])
    }

    @Test func messagesAbove8191BytesAreRefused() {
        #expect(throws: GoProPacketError.messageTooLongToSend(length: 8192)) {
            try GoProFragmenter.fragment([UInt8](repeating: 0, count: 8192))
        }
    }

    @Test func packetSizesBelowThreeAreRefused() {
        #expect(throws: GoProPacketError.packetSizeTooSmall(2)) { try GoProFragmenter.fragment([1], packetSize: 2) }
    }

    @Test func anEmptyMessageIsOneHeaderOnlyPacket() throws {
        #expect(try GoProFragmenter.fragment([]) == [[0x20, 0x00]])
    }
}
