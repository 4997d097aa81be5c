import HaraldCodec
import Testing

@testable import HaraldHCI
import HaraldCore
import HaraldTestSupport

enum RawBytes {
    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
}

/// Data Length Extension and PHY update on a new link, with the exact commands the host sends (stock
/// Bumble refuses both; the bench's emulation of them is exercised end to end by
/// `LinkParameterBumbleIntegrationTests`).
@Suite("Host: data length and PHY of a new link")
struct HostLinkParameterTests {
    static let peer = BluetoothAddress("C0:00:00:00:00:01", kind: .random)!
    /// LE features: Data Length Extension (bit 5) and LE 2M PHY (bit 8).
    static let features: UInt64 = 1 << 5 | 1 << 8

    /// A started host with one connection (handle 0x0040) on a controller with `features`.
    static func connected(features: UInt64, maximumTxOctets: UInt16 = 251, preferredPHY: UInt8? = nil) async throws
        -> (FakeController, HCIHost, LEConnection)
    {
        let controller = FakeController(leFeatures: features)
        controller.answer { controller, command in
            guard command.opcode == .leReadMaximumDataLength else { return controller.standardAnswer(command) }
            // supported max TX octets and time, RX octets and time
            return [FakeController.complete(command.opcode, [0x00] + RawBytes.le16(maximumTxOctets) + bytes("4808 fb00 4808"))]
        }
        var configuration = HCIHost.Configuration()
        configuration.preferredPHY = preferredPHY
        let host = HCIHost(transport: controller, clock: ManualClock(), configuration: configuration)
        try await host.start()
        controller.answer { controller, command in
            var replies = controller.standardAnswer(command)
            if command.opcode == .leCreateConnection || command.opcode == .leExtendedCreateConnection {
                replies.append(FakeController.connectionComplete(handle: 0x40, peer: peer))
            }
            return replies
        }
        return (controller, host, try await host.connect(to: peer))
    }

    /// Sends a command whose answer the controller queues behind everything injected before, so
    /// once it returns the host has handled those packets.
    static func drain(_ host: HCIHost) async throws {
        try await host.execute(.readBDADDR)
    }

    @Test func newLinkAsksForTheLongestPacketsWhenTheControllerHasDataLengthExtension() async throws {
        let (controller, host, _) = try await Self.connected(features: Self.features)
        await controller.waitForCommand(.leSetDataLength)
        let request = controller.sentCommands.first { $0.opcode == .leSetDataLength }
        #expect(request?.parameters == bytes("4000 fb00 4808"))  // handle 0x40, 251 octets, 2120 µs
        await host.close()
    }

    @Test func theAppsDataLengthRequestRightAfterConnectingIsSentAfterTheHostsOwn() async throws {
        let (controller, host, connection) = try await Self.connected(features: Self.features)
        try await connection.setDataLength(octets: 100, time: 1000)
        let requests = controller.sentCommands.filter { $0.opcode == .leSetDataLength }.map(\.parameters)
        #expect(requests == [bytes("4000 fb00 4808"), bytes("4000 6400 e803")], "the app's request must come last, so it wins")
        await host.close()
    }

    @Test func theAppsPHYRequestRightAfterConnectingIsSentAfterTheHostsOwn() async throws {
        let (controller, host, connection) = try await Self.connected(features: Self.features, preferredPHY: 0x02)
        try await connection.setPHY(tx: 0x01, rx: 0x01)
        let requests = controller.sentCommands.filter { $0.opcode == .leSetPHY }.map(\.parameters)
        #expect(requests.count == 2)
        #expect(requests.last.map { Array($0[3...4]) } == [0x01, 0x01], "the app's request (1M both ways) must come last, so it wins")
        await host.close()
    }

    @Test func newLinkLeavesTheDataLengthAloneWithoutDataLengthExtension() async throws {
        let (controller, host, _) = try await Self.connected(features: 0)
        try await Self.drain(host)
        #expect(!controller.sentCommands.contains { $0.opcode == .leSetDataLength })
        await host.close()
    }

    @Test func newLinkLeavesTheDataLengthAloneWhenTheControllerSendsNoMoreThan27Bytes() async throws {
        let (controller, host, _) = try await Self.connected(features: Self.features, maximumTxOctets: 27)
        try await Self.drain(host)
        #expect(await host.controller?.supportedMaxTxOctets == 27)
        #expect(!controller.sentCommands.contains { $0.opcode == .leSetDataLength })
        #expect(!controller.sentCommands.contains { $0.opcode == .leWriteSuggestedDefaultDataLength })
        await host.close()
    }

    @Test func dataLengthChangeShowsInTheLinkParameters() async throws {
        let (controller, host, connection) = try await Self.connected(features: Self.features)
        #expect(connection.parameters.maxTxOctets == 27 && connection.parameters.maxRxOctets == 27)
        controller.inject(FakeController.event(0x3E, bytes("07 4000 fb00 4808 fb00 4808")))
        try await Self.drain(host)
        #expect(connection.parameters.maxTxOctets == 251 && connection.parameters.maxRxOctets == 251)
        await host.close()
    }

    @Test func preferredPHYIsRequestedOnANewLink() async throws {
        let (controller, host, _) = try await Self.connected(features: Self.features, preferredPHY: 0x02)
        await controller.waitForCommand(.leSetPHY)
        let request = controller.sentCommands.first { $0.opcode == .leSetPHY }
        #expect(request.map { Array($0.parameters.prefix(5)) } == bytes("4000 00 02 02"))  // handle, all PHYs, tx 2M, rx 2M
        await host.close()
    }

    @Test func phyUpdateCompleteShowsInTheLinkParameters() async throws {
        let (controller, host, connection) = try await Self.connected(features: Self.features, preferredPHY: 0x02)
        controller.inject(FakeController.event(0x3E, bytes("0C 00 4000 02 02")))
        try await Self.drain(host)
        #expect(connection.parameters.txPHY == 2 && connection.parameters.rxPHY == 2)
        await host.close()
    }
}
