import HaraldCore
import HaraldTestSupport
import Testing

@testable import HaraldHCI

/// A channel's receiver usually holds the connection that owns the channel; once the link ends
/// the channel must let go of it, or every connection would stay in memory for good.
@Suite("L2CAP fixed channels let go of their receiver when the link ends")
struct ChannelReleaseTests {
    final class Holder: Sendable {}

    @Test func aFinishedChannelNoLongerHoldsItsReceiver() async throws {
        let (controller, host, connection) = try await HostConnectionTests.connected()
        weak var weakHolder: Holder?
        do {
            let holder = Holder()
            weakHolder = holder
            #expect(
                connection.att.deliverSDUs(
                    to: L2CAPChannelReceiver(
                        receive: { _ in
                            _ = holder; return true
                        }, finish: { _ = holder })))
        }
        #expect(weakHolder != nil)  // held while the link is up
        controller.inject(FakeController.disconnectionComplete(handle: 0x40, reason: .connectionTimeout))
        #expect(await connection.att.waitUntilClosed() == .connectionTimeout)
        // The host ends the link in one step on its actor: once it answers, the channel is done.
        #expect(await host.openConnections.isEmpty)
        #expect(weakHolder == nil)
        await host.close()
    }
}
