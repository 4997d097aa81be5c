import HaraldSMP
import Testing

@Suite("Security Manager basics")
struct ChannelTests {
    @Test func smpRunsOnFixedChannelSix() {
        #expect(SecurityManager.channel == 0x0006)
    }
}
