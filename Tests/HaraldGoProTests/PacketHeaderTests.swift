import HaraldGoPro
import Testing

@Suite("Open GoPro packet headers")
struct PacketHeaderTests {
    @Test func aGeneralHeaderCarriesAFiveBitLength() throws {
        let parsed = try GoProPacketHeader.parse([0x1F, 0xAA])
        #expect(parsed.header == .general(length: 31))
        #expect(parsed.byteCount == 1)
    }

    @Test func anExtended13HeaderCarriesAThirteenBitLength() throws {
        let parsed = try GoProPacketHeader.parse([0x21, 0x72, 0x13])
        #expect(parsed.header == .extended13(length: 0x172))
        #expect(parsed.byteCount == 2)
    }

    @Test func anExtended16HeaderCarriesABigEndianLengthAndIgnoresItsLowBits() throws {
        let parsed = try GoProPacketHeader.parse([0x5F, 0xFF, 0xFE])
        #expect(parsed.header == .extended16(length: 0xFFFE))
        #expect(parsed.byteCount == 3)
    }

    @Test func aContinuationHeaderCarriesAFourBitCounterAndIgnoresReservedBits() throws {
        #expect(try GoProPacketHeader.parse([0xF5]).header == .continuation(counter: 5))
        #expect(try GoProPacketHeader.parse([0x8F]).header == .continuation(counter: 15))
    }

    @Test func theReservedHeaderTypeIsRejected() {
        #expect(throws: GoProPacketError.reservedHeader(0x60)) { try GoProPacketHeader.parse([0x60, 0x00, 0x00]) }
        #expect(throws: GoProPacketError.reservedHeader(0x7F)) { try GoProPacketHeader.parse([0x7F]) }
    }

    @Test func aCutShortExtendedHeaderIsRejected() {
        #expect(throws: GoProPacketError.truncatedHeader(needed: 2, available: 1)) { try GoProPacketHeader.parse([0x20]) }
        #expect(throws: GoProPacketError.truncatedHeader(needed: 3, available: 2)) { try GoProPacketHeader.parse([0x40, 0x01]) }
        #expect(throws: GoProPacketError.emptyPacket) { try GoProPacketHeader.parse([]) }
    }

    @Test(arguments: [
        GoProPacketHeader.general(length: 0), .general(length: 31), .extended13(length: 0), .extended13(length: 8191),
        .extended16(length: 0), .extended16(length: 65535), .continuation(counter: 0), .continuation(counter: 15),
    ])
    func everyHeaderReadsBackWhatItEncodes(header: GoProPacketHeader) throws {
        let bytes = try header.encoded()
        #expect(bytes.count == header.byteCount)
        let parsed = try GoProPacketHeader.parse(bytes)
        #expect(parsed.header == header)
        #expect(parsed.byteCount == bytes.count)
    }

    @Test func lengthsBeyondAHeadersFieldCannotBeEncoded() {
        #expect(throws: GoProPacketError.self) { try GoProPacketHeader.general(length: 32).encoded() }
        #expect(throws: GoProPacketError.self) { try GoProPacketHeader.extended13(length: 8192).encoded() }
        #expect(throws: GoProPacketError.self) { try GoProPacketHeader.extended16(length: 65536).encoded() }
        #expect(throws: GoProPacketError.self) { try GoProPacketHeader.continuation(counter: 16).encoded() }
    }
}
