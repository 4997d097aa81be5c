import Testing

@testable import HaraldMiBand

/// The Mi Band kit's subscription buffers RELIABILITY.md lists (scripts/check-limits ties the
/// figures here to the document).
@Suite("Mi Band kit: documented buffer sizes")
struct MiBandDefaultLimitTests {
    @Test func anActivityFetchHolds512DataPacketsAnd8ControlReplies() {
        #expect(MiBand2.dataBufferPackets == 512)
        #expect(MiBand2.controlBufferReplies == 8)
    }
}
