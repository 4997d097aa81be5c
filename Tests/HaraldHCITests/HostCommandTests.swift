import HaraldCodec
import Testing

@testable import HaraldHCI
import HaraldCore
import HaraldTestSupport

@Suite("Host: commands, flow control, set-up")
struct HostCommandTests {
    @Test func setUpResetsReadsBuffersAndSetsARandomAddress() async throws {
        let controller = FakeController(aclLength: 251, aclCount: 64, leFeatures: 1 << 5)
        var configuration = HCIHost.Configuration()
        configuration.randomAddress = BluetoothAddress("C0:00:00:00:00:D1")
        let host = HCIHost(transport: controller, clock: ManualClock(), configuration: configuration)
        let info = try await host.start()
        #expect(
            controller.sentCommands.map(\.opcode) == [
                .reset, .readLocalSupportedCommands, .readLocalSupportedFeatures, .readBDADDR, .leReadLocalSupportedFeatures,
                .leReadBufferSize, .setEventMask, .leSetEventMask, .leSetRandomAddress, .leReadMaximumDataLength,
                .leWriteSuggestedDefaultDataLength,
            ])
        #expect(controller.sent.first?.h4Bytes == bytes("01030c00"))
        #expect(controller.sentCommands.first { $0.opcode == .leSetRandomAddress }?.parameters == bytes("d100000000c0"))
        #expect(info.aclDataLength == 251 && info.aclPacketCount == 64)
        #expect(info.publicAddress.description == "11:22:33:44:55:66/public")
        #expect(info.supports(.dataLengthExtension))
        await host.close()
    }

    @Test func leBufferSizeZeroFallsBackToTheSharedBuffers() async throws {
        let controller = FakeController(aclLength: 0, aclCount: 0)
        controller.answer { controller, command in
            if command.opcode == .readBufferSize {
                return [FakeController.complete(command.opcode, bytes("00 fd00 00 0800 0000"))]
            }
            return controller.standardAnswer(command)
        }
        let host = HCIHost(transport: controller, clock: ManualClock())
        let info = try await host.start()
        #expect(controller.sentCommands.map(\.opcode).contains(.readBufferSize))
        #expect(info.aclDataLength == 253 && info.aclPacketCount == 8)
        await host.close()
    }

    @Test func unansweredCommandTimesOutOnTheInjectedClock() async throws {
        let controller = FakeController()
        controller.answer { _ in nil }
        let clock = ManualClock()
        let host = HCIHost(transport: controller, clock: clock)
        await host.startReading()
        let result = Task { try await host.send(.reset) }
        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: .seconds(5))
        await #expect(throws: HCIError.commandTimedOut(.reset)) { try await result.value }
        await host.close()
    }

    @Test func commandWaitsForACreditBeforeItIsSent() async throws {
        let controller = FakeController()
        // The first answer leaves the host with no credits.
        controller.answer { controller, command in [FakeController.complete(command.opcode, [0x00], credits: 0)] }
        let host = HCIHost(transport: controller, clock: ManualClock())
        await host.startReading()
        _ = try await host.send(.reset)
        let second = Task { try await host.send(.readBDADDR) }
        while await host.commandFlow.queuedCount == 0 { await Task.yield() }  // queued, waiting for a credit
        #expect(controller.sentCommands.map(\.opcode) == [.reset])
        controller.answer { controller, command in [FakeController.complete(command.opcode, [0x00, 1, 2, 3, 4, 5, 6])] }
        controller.inject(FakeController.complete(HCIOpcode(rawValue: 0), [], credits: 1))  // credit update only
        let response = try await second.value
        #expect(response.status == .success)
        #expect(controller.sentCommands.map(\.opcode) == [.reset, .readBDADDR])
        await host.close()
    }

    @Test func answersAreMatchedToTheirCommandByOpcode() async throws {
        let controller = FakeController()
        controller.answer { _ in nil }
        let host = HCIHost(transport: controller, clock: ManualClock())
        await host.startReading()
        controller.inject(FakeController.complete(HCIOpcode(rawValue: 0), [], credits: 2))
        let first = Task { try await host.send(.readBDADDR) }
        let second = Task { try await host.send(.leReadBufferSize) }
        await controller.waitForCommand(.leReadBufferSize)
        await controller.waitForCommand(.readBDADDR)
        controller.inject(FakeController.complete(.leReadBufferSize, bytes("00 1b00 04")))
        controller.inject(FakeController.complete(.readBDADDR, bytes("00 010203040506")))
        guard case let .complete(buffer) = try await second.value, case let .complete(address) = try await first.value else {
            Issue.record("expected Command Complete answers"); return
        }
        #expect(buffer.returnParameters == bytes("00 1b00 04"))
        #expect(address.returnParameters == bytes("00 010203040506"))
        await host.close()
    }

    @Test func failedStatusThrowsCommandFailed() async throws {
        let controller = FakeController()
        controller.answer { controller, command in [FakeController.complete(command.opcode, [0x0C])] }
        let host = HCIHost(transport: controller, clock: ManualClock())
        await host.startReading()
        await #expect(throws: HCIError.commandFailed(.reset, .commandDisallowed)) { try await host.execute(.reset) }
        await host.close()
    }

    @Test func transportFailureFailsPendingCommands() async throws {
        let controller = FakeController()
        controller.answer { _ in nil }
        let host = HCIHost(transport: controller, clock: ManualClock())
        await host.startReading()
        let pending = Task { try await host.send(.reset) }
        await controller.waitForCommand(.reset)
        controller.fail(.closed)
        await #expect(throws: HCIError.transport(.closed)) { try await pending.value }
        await #expect(throws: HCIError.transport(.closed)) { try await host.send(.reset) }
    }

    @Test func aLostTransportIsReportedToCloseWatchers() async throws {
        let controller = FakeController()
        let host = HCIHost(transport: controller, clock: ManualClock())
        await host.startReading()
        let closes = await host.closeEvents()
        controller.fail(.closed)
        var events: [HCIError] = []
        for await event in closes { events.append(event) }
        #expect(events == [.transport(.closed)])
        #expect(await host.closeWatcherCount == 0)
    }

    @Test func aHostThatHasStoppedReportsItAtOnce() async throws {
        let controller = FakeController()
        let host = HCIHost(transport: controller, clock: ManualClock())
        await host.startReading()
        await host.close()
        var events: [HCIError] = []
        for await event in await host.closeEvents() { events.append(event) }
        #expect(events == [.closed])
    }

    @Test func aCloseWatcherThatStopsListeningIsUnregistered() async throws {
        let controller = FakeController()
        let host = HCIHost(transport: controller, clock: ManualClock())
        await host.startReading()
        let watcher = Task {
            for await _ in await host.closeEvents() {}
        }
        // Bounded waits (yields, not time): a watcher that is never removed fails, it does not hang.
        var attempts = 0
        while await host.closeWatcherCount == 0, attempts < 100_000 {
            attempts += 1
            await Task.yield()
        }
        #expect(await host.closeWatcherCount == 1)
        watcher.cancel()
        await watcher.value
        attempts = 0
        while await host.closeWatcherCount != 0, attempts < 100_000 {
            attempts += 1
            await Task.yield()
        }
        #expect(await host.closeWatcherCount == 0)
        await host.close()
    }
}
