import HaraldCodec
import HaraldCore
import HaraldTestSupport
import Logging
import Testing

@testable import HaraldHCI

/// The replies a host sends on its own (signaling answers, Pairing Not Supported) are the part
/// of the outgoing ACL queue a peer fills: their number per connection is bounded.
@Suite("Host: replies a peer asks for are bounded while the controller holds its buffers")
struct HostReplyQueueTests {
    static let peer = BluetoothAddress("C0:00:00:00:00:01", kind: .random)!

    /// A started host on a controller with four ACL buffers and no Number Of Completed Packets
    /// unless a test injects one, connected to `peer` as handle 0x0040.
    static func connected(logger: Logger = LogRecords().logger) async throws -> (FakeController, HCIHost, LEConnection) {
        let controller = FakeController(aclCount: 4)
        var configuration = HCIHost.Configuration()
        configuration.logger = logger
        let host = try await startedHost(on: controller, completingConnectionsTo: peer, configuration: configuration)
        return (controller, host, try await host.connect(to: peer))
    }

    /// An LE signaling PDU with a code nobody defines: the host answers Command Reject.
    static func unknownSignalingRequest(identifier: UInt8) -> HCIPacket {
        ACLDataPacket(handle: 0x40, packetBoundary: .firstFlushable, data: [4, 0, 5, 0, 0x7F, identifier, 0, 0]).packet
    }

    /// A Pairing Request on the Security Manager channel of a host that does not pair.
    static let pairingRequest = ACLDataPacket(
        handle: 0x40, packetBoundary: .firstFlushable, data: [7, 0, 6, 0, 0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07]
    ).packet

    static func replies(_ controller: FakeController, cid: UInt16) -> Int {
        controller.sentACL.filter { $0.data.count >= 4 && UInt16($0.data[2]) | UInt16($0.data[3]) << 8 == cid }.count
    }

    @Test func aFloodOfSignalingRequestsQueuesAtMostTheLimitAndDropsTheRest() async throws {
        let records = LogRecords()
        let (controller, host, connection) = try await Self.connected(logger: records.logger)
        let flood = 200
        for identifier in 1...flood { controller.inject(Self.unknownSignalingRequest(identifier: UInt8(identifier))) }
        // Four buffers: four replies can leave, the rest wait or are dropped.
        let leastDropped = flood - 4 - L2CAPChannelManager.maximumQueuedReplies
        #expect(await eventually { await host.droppedReplies >= leastDropped })
        #expect(await host.aclFlow.queuedPDUCount <= L2CAPChannelManager.maximumQueuedReplies)
        #expect(await host.l2cap.queuedReplies(on: 0x40) <= L2CAPChannelManager.maximumQueuedReplies)
        #expect(await host.liveTaskCount <= L2CAPChannelManager.maximumQueuedReplies + 1)

        // The controller frees its buffers: every reply that waited goes out; nothing else does.
        // (Completions come only for packets the controller has: a controller never reports one
        // it was not given, and the host ignores completions beyond what it sent.)
        #expect(await eventually { Self.replies(controller, cid: 0x0005) == 4 })
        for _ in 0..<10 { controller.inject(FakeController.completedPackets(handle: 0x40, count: 4)) }
        #expect(await eventually { await host.l2cap.queuedReplyCount == 0 })
        let dropped = await host.droppedReplies
        #expect(Self.replies(controller, cid: 0x0005) == flood - dropped)
        #expect(Self.replies(controller, cid: 0x0005) <= 4 + L2CAPChannelManager.maximumQueuedReplies)
        #expect(connection.disconnectReason == nil)
        #expect(records.count(level: .notice) == 1)  // one notice for the flood, not one per reply
        await host.close()
    }

    @Test func aPeerThatWaitsForEachAnswerIsAlwaysAnswered() async throws {
        let (controller, host, _) = try await Self.connected()
        for identifier in 1...50 {
            controller.inject(Self.unknownSignalingRequest(identifier: UInt8(identifier)))
            #expect(await eventually { Self.replies(controller, cid: 0x0005) == identifier })
            controller.inject(FakeController.completedPackets(handle: 0x40, count: 1))
        }
        #expect(await host.droppedReplies == 0)
        await host.close()
    }

    @Test func pairingRequestsToAHostThatDoesNotPairShareTheSameBound() async throws {
        let (controller, host, _) = try await Self.connected()
        for _ in 0..<100 { controller.inject(Self.pairingRequest) }
        #expect(await eventually { await host.droppedReplies >= 100 - 4 - L2CAPChannelManager.maximumQueuedReplies })
        #expect(await eventually { Self.replies(controller, cid: 0x0006) == 4 })  // what the controller's buffers took
        for _ in 0..<10 { controller.inject(FakeController.completedPackets(handle: 0x40, count: 4)) }
        #expect(await eventually { await host.l2cap.queuedReplyCount == 0 })
        let dropped = await host.droppedReplies
        #expect(Self.replies(controller, cid: 0x0006) == 100 - dropped)
        #expect(controller.sentACL.allSatisfy { Array($0.data.suffix(2)) == [0x05, 0x05] })
        await host.close()
    }

    @Test func theRepliesOfALinkThatEndsLeaveTheCount() async throws {
        let (controller, host, connection) = try await Self.connected()
        for identifier in 1...30 { controller.inject(Self.unknownSignalingRequest(identifier: UInt8(identifier))) }
        #expect(await eventually { await host.droppedReplies >= 30 - 4 - L2CAPChannelManager.maximumQueuedReplies })
        controller.inject(FakeController.disconnectionComplete(handle: 0x40, reason: .remoteUserTerminatedConnection))
        #expect(await connection.waitUntilDisconnected() == .remoteUserTerminatedConnection)
        #expect(await eventually { await host.l2cap.queuedReplyCount == 0 })
        #expect(await eventually { await host.aclFlow.queuedPDUCount == 0 })
        await host.close()
    }
}
