import HaraldCodec
import Testing

@testable import HaraldHCI
import HaraldCore
import HaraldTestSupport

@Suite("Host: scanning")
struct HostScanningTests {
    static let report = bytes("3e2b020100010100000000c01f02010605030d180f18090941636d652048524d0319410307ffffff41434d45ce")

    @Test func legacyScanDeliversParsedAdvertisementsAndStopsWhenTheReaderStops() async throws {
        let controller = FakeController()
        let host = HCIHost(transport: controller, clock: ManualClock())
        try await host.start()
        let stream = try await host.scan(ScanOptions(active: true))
        #expect(
            controller.sentCommands.suffix(2) == [
                .leSetScanParameters(active: true, interval: 0x60, window: 0x30, ownAddressType: .random), .leSetScanEnable(true),
            ])
        controller.inject(FakeController.event(0x3E, Array(Self.report.dropFirst(2))))
        var iterator = stream.makeAsyncIterator()
        let advertisement = try #require(await iterator.next())
        #expect(advertisement.address.description == "C0:00:00:00:00:01/random")
        #expect(advertisement.rssi == -50 && advertisement.isConnectable)
        #expect(advertisement.data.localName == "Acme HRM")
        #expect(advertisement.data.serviceUUIDs == ["180D", "180F"])
        await host.stopScanning()
        #expect(controller.sentCommands.last == .leSetScanEnable(false))
        #expect(await iterator.next() == nil)
        await host.close()
    }

    @Test func aScanAmongManyAdvertisersRemembersAtMostTheConfiguredNumber() async throws {
        let controller = FakeController()
        let host = HCIHost(transport: controller, clock: ManualClock())
        try await host.start()
        let stream = try await host.scan(ScanOptions(active: true, rememberedAdvertisers: 32))
        let addresses = (0..<2_000).map { BluetoothAddress(value: 0x4000_0000_0000 | UInt64($0), kind: .random)! }
        for address in addresses {
            controller.inject(ControllerEvents.advertisingReport(eventType: 0x00, address: address, data: [0x02, 0x01, 0x06], rssi: -60))
        }
        // The stream keeps the newest reports, so the last one always arrives: once it has, the
        // host has handled every report before it.
        for await advertisement in stream where advertisement.address == addresses.last { break }
        #expect(await host.rememberedAdvertiserCount <= 32)
        #expect(await host.rememberedAdvertiserCount > 0)
        await host.close()
    }

    @Test func extendedScanIsUsedWhenTheControllerHasExtendedAdvertising() async throws {
        let controller = FakeController(leFeatures: 1 << 12)
        let host = HCIHost(transport: controller, clock: ManualClock())
        try await host.start()
        _ = try await host.scan()
        #expect(controller.sentCommands.last == .leSetExtendedScanEnable(true))
        await #expect(throws: HCIError.busy("a scan is already running")) { _ = try await host.scan() }
        await host.close()
    }

    @Test func extendedCreateConnectionIsUsedWithExtendedAdvertising() async throws {
        let controller = FakeController(leFeatures: 1 << 12)
        let host = HCIHost(transport: controller, clock: ManualClock())
        try await host.start()
        let peer = BluetoothAddress("C0:00:00:00:00:01", kind: .random)!
        controller.answer { controller, command in
            var replies = controller.standardAnswer(command)
            if command.opcode == .leExtendedCreateConnection {
                replies.append(FakeController.connectionComplete(handle: 1, peer: peer))
            }
            return replies
        }
        let connection = try await host.connect(to: peer)
        #expect(connection.handle == 1)
        #expect(controller.sentCommands.contains { $0.opcode == .leExtendedCreateConnection })
        await host.close()
    }

    @Test func scanLeftRunningByAnotherHostIsStoppedAndRestarted() async throws {
        let controller = FakeController()
        let host = HCIHost(transport: controller, clock: ManualClock())
        try await host.start()
        let refusals = Locked(1)
        controller.answer { controller, command in
            if command.opcode == .leSetScanParameters,
                refusals.withLock({ count in
                    defer { count -= 1 }; return count > 0
                })
            {
                return [FakeController.complete(command.opcode, [HCIStatus.commandDisallowed.rawValue])]
            }
            return controller.standardAnswer(command)
        }
        _ = try await host.scan()
        #expect(controller.sentCommands.suffix(4).map(\.opcode) == [.leSetScanParameters, .leSetScanEnable, .leSetScanParameters, .leSetScanEnable])
        #expect(controller.sentCommands.suffix(3).first == .leSetScanEnable(false))
        await host.close()
    }

    @Test func closingTheHostFinishesTheScanStream() async throws {
        let controller = FakeController()
        let host = HCIHost(transport: controller, clock: ManualClock())
        try await host.start()
        let stream = try await host.scan()
        await host.close()
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }
}
