import Foundation
import Harald
import HaraldCore
import HaraldCoreBluetooth
import Testing

@Suite("CoreBluetooth peripheral backend: L2CAP channels it serves", CoreBluetoothRules(), .timeLimit(.minutes(1)))
struct PeripheralChannelTests {
    func served() async throws -> (FakePeripheralManager, CoreBluetoothPeripheralBackend<FakePeripheralManager>, any ServingBackend) {
        let (manager, backend) = FakePeripheralManager.make()
        let serving = try await backend.serve(TestDevice.definition())
        return (manager, backend, serving)
    }

    @Test func servingPublishesAChannelAndGivesThePSMTheSystemChose() async throws {
        let (manager, _, serving) = try await served()
        let server = try await serving.serveL2CAPChannels(psm: nil, security: .encrypted, options: L2CAPChannelOptions())
        #expect(server.psm == 0x0081)
        #expect(manager.publishedChannels == [0x0081: true], "encrypted or better asks for an encrypted link")
        let open = try await serving.serveL2CAPChannels(psm: nil, security: .none, options: L2CAPChannelOptions())
        #expect(manager.publishedChannels[open.psm.rawValue] == false)
    }

    @Test func aFixedPSMIsUnsupportedBecauseCoreBluetoothPicks() async throws {
        let (manager, _, serving) = try await served()
        await #expect(throws: BluetoothError.self) {
            _ = try await serving.serveL2CAPChannels(psm: 0x0080, security: .none, options: L2CAPChannelOptions())
        }
        do {
            _ = try await serving.serveL2CAPChannels(psm: 0x0080, security: .none, options: L2CAPChannelOptions())
        } catch {
            guard case .unsupported = error else { throw error }
        }
        #expect(manager.publishedChannels.isEmpty)
    }

    @Test func aFailedPublishThrowsTheSystemsError() async throws {
        let (manager, backend, serving) = try await served()
        manager.lock.withLock { manager.publishError = cbError(4) }
        await #expect(throws: BluetoothError.self) {
            _ = try await serving.serveL2CAPChannels(psm: nil, security: .none, options: L2CAPChannelOptions())
        }
        #expect(backend.pendingOperationCount == 0)
    }

    @Test func aChannelACentralOpensArrivesWithThatCentral() async throws {
        let (manager, _, serving) = try await served()
        let server = try await serving.serveL2CAPChannels(psm: nil, security: .none, options: L2CAPChannelOptions())
        let central = UUID()
        let fake = manager.centralOpensChannel(psm: server.psm.rawValue, central: central)
        var channels = server.channels().makeAsyncIterator()
        let (who, channel) = try #require(await channels.next())
        #expect(who == CentralIdentifier(rawValue: central.uuidString))
        #expect(channel.psm == server.psm)
        fake.incoming.peerSends([4, 2])
        #expect(try await channel.receive() == [4, 2])
        try await channel.send([2, 4])
        #expect(fake.outgoing.peerTakes() == [2, 4])
        await channel.close()
    }

    @Test func stoppingTheServerUnpublishesItsPSMAndEndsItsChannels() async throws {
        let (manager, _, serving) = try await served()
        let server = try await serving.serveL2CAPChannels(psm: nil, security: .none, options: L2CAPChannelOptions())
        await server.stop()
        #expect(manager.unpublishedChannels == [server.psm.rawValue])
        #expect(manager.publishedChannels.isEmpty)
        var channels = server.channels().makeAsyncIterator()
        #expect(await channels.next() == nil)
        let late = manager.centralOpensChannel(psm: server.psm.rawValue)
        #expect(late.isClosed, "a channel on a PSM no longer served is closed")
    }

    @Test func stoppingTheServedPeripheralUnpublishesEveryPSM() async throws {
        let (manager, _, serving) = try await served()
        let first = try await serving.serveL2CAPChannels(psm: nil, security: .none, options: L2CAPChannelOptions())
        let second = try await serving.serveL2CAPChannels(psm: nil, security: .none, options: L2CAPChannelOptions())
        await serving.stop()
        #expect(Set(manager.unpublishedChannels) == [first.psm.rawValue, second.psm.rawValue])
        #expect(manager.publishedChannels.isEmpty)
    }
}
