import HaraldATT
import Testing

@Suite("ATT event inbox")
struct EventInboxTests {
    @Test func aLimitedYieldRefusesPDUsBeyondTheLimitUntilTheConsumerCatchesUp() async {
        let inbox = ATTEventInbox()
        #expect(inbox.yield(.received([0x01]), limit: 2))
        #expect(inbox.yield(.received([0x02]), limit: 2))
        #expect(!inbox.yield(.received([0x03]), limit: 2))
        #expect(await inbox.next() == .received([0x01]))
        #expect(inbox.yield(.received([0x04]), limit: 2))
        inbox.finish()
        #expect(inbox.yield(.received([0x05]), limit: 2))  // ignored after finish, not a drop
        #expect(await inbox.next() == .received([0x02]))
        #expect(await inbox.next() == .received([0x04]))
        #expect(await inbox.next() == nil)
    }
}
