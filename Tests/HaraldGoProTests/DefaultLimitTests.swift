import Testing

@testable import HaraldGoPro

/// The GoPro limits RELIABILITY.md lists (scripts/check-limits ties the figures here to the
/// document).
@Suite("GoPro: documented limits")
struct GoProDefaultLimitTests {
    @Test func aMessageOfTheLargestAnnounceableLength65535BytesIsAssembledAndOneByteMoreIsRejected() throws {
        #expect(GoProPacketHeader.maximumExtended16Length == 65535)
        var assembler = GoProMessageAssembler()
        // Extended 16-bit header: 65,535 bytes announced.
        #expect(try assembler.append([0x40, 0xFF, 0xFF]) == nil)
        #expect(assembler.announcedLength == 65535)
        #expect(try assembler.append([0x80] + Array(repeating: 7, count: 65_534)) == nil)
        let message = try assembler.append([0x80, 7])
        #expect(message?.count == 65535)

        var overflowing = GoProMessageAssembler()
        #expect(try overflowing.append([0x40, 0xFF, 0xFF]) == nil)
        #expect(try overflowing.append([0x80] + Array(repeating: 7, count: 65_534)) == nil)
        #expect(throws: GoProPacketError.moreBytesThanAnnounced(announced: 65535, received: 65_536)) {
            try overflowing.append([0x80, 7, 7])
        }
        #expect(!overflowing.isAssembling)
    }

    @Test func aCameraHolds256ResponsePacketsWhileItsReaderIsBusy() {
        #expect(GoProCamera.responseBufferPackets == 256)
    }
}
