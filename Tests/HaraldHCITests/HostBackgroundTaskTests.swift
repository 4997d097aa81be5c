import HaraldCodec
import HaraldCore
import Logging
import HaraldTestSupport
import Testing

@testable import HaraldHCI

/// The work an HCI host does beside its callers (link set-up, signaling replies, timers, the
/// command sender): closing the host ends all of it, and a failure in it is reported, never
/// dropped.
@Suite("Host: background tasks are owned and their failures surface")
struct HostBackgroundTaskTests {
    static let peer = BluetoothAddress("C0:00:00:00:00:01", kind: .random)!
    static let secondPeer = BluetoothAddress("C0:00:00:00:00:02", kind: .random)!
    /// LE features: Data Length Extension (bit 5), so every new link gets LE Set Data Length.
    static let dataLengthExtension: UInt64 = 1 << 5

    /// A started host on a controller with Data Length Extension, connected to `peer` (handle
    /// 0x0040), before the link set-up command has necessarily gone out. The controller answers
    /// every command but those in `unanswered` (which get a credit and nothing else), and
    /// completes connections to `peer` only.
    static func connected(
        clock: ManualClock = ManualClock(), logger: Logger = LogRecords().logger, unanswered: Set<HCIOpcode> = []
    ) async throws -> (FakeController, HCIHost, LEConnection) {
        let (controller, host) = try await started(clock: clock, logger: logger)
        controller.answer { controller, command in
            guard !unanswered.contains(command.opcode) else { return [FakeController.complete(HCIOpcode(rawValue: 0), [])] }
            var replies = controller.standardAnswer(command)
            if command.opcode == .leCreateConnection, let peer = BluetoothAddress(bytes: command.parameters[6..<12].reversed(), kind: .random),
                peer == Self.peer
            {
                replies.append(FakeController.connectionComplete(handle: 0x40, peer: peer))
            }
            return replies
        }
        return (controller, host, try await host.connect(to: peer))
    }

    /// A started host on a controller with Data Length Extension, logging to `logger`.
    static func started(clock: ManualClock = ManualClock(), logger: Logger) async throws -> (FakeController, HCIHost) {
        let controller = FakeController(leFeatures: dataLengthExtension)
        var configuration = HCIHost.Configuration()
        configuration.logger = logger
        let host = HCIHost(transport: controller, clock: clock, configuration: configuration)
        try await host.start()
        return (controller, host)
    }

    static func isCommand(_ opcode: HCIOpcode) -> @Sendable (HCIPacket) -> Bool {
        { packet in packet.type == .command && (try? HCICommand(decoding: packet.payload))?.opcode == opcode }
    }

    @Test func closingTheHostCancelsEveryBackgroundTaskAndLeavesNothingWaiting() async throws {
        let clock = ManualClock()
        // The link set-up after connecting waits for an answer that never comes; the second
        // attempt waits for a Connection Complete that never comes.
        let (controller, host, connection) = try await Self.connected(clock: clock, unanswered: [.leSetDataLength])
        let attempt = Task { try await host.connect(to: Self.secondPeer, timeout: .seconds(30)) }
        await controller.waitForCommand(.leSetDataLength)
        await controller.waitForCommand(.leCreateConnection, count: 2)
        // The set-up command's timeout and the attempt's (or its command's) timeout, on the
        // host's one schedule with its one sleeper.
        await waitUntil { await host.deadlines.count >= 2 }
        await clock.waitForSleepers(atLeast: 1)
        #expect(await host.liveTaskCount >= 1)
        #expect(await host.liveContinuations >= 2)

        await host.close()

        #expect(await host.liveTaskCount == 0)
        #expect(await host.liveContinuations == 0)
        #expect(clock.sleeperCount == 0)
        await #expect(throws: HCIError.closed) { try await attempt.value }
        #expect(connection.disconnectReason == .connectionTerminatedByLocalHost)
    }

    @Test func aScanWhoseReaderLeftIsStoppedByAnOwnedTask() async throws {
        let controller = FakeController()
        let host = HCIHost(transport: controller, clock: ManualClock())
        try await host.start()
        let reader = Task {
            for await _ in try await host.scan() {}
        }
        await controller.waitForCommand(.leSetScanEnable)
        reader.cancel()
        try await reader.value
        await controller.waitForCommand(.leSetScanEnable, count: 2)  // the stop
        #expect(controller.sentCommands.last == .leSetScanEnable(false))
        // Nothing runs but, until the time it was set for, the sleeper of the host's timers
        // (the commands' deadlines were cancelled; it serves the next ones).
        #expect(await eventually { await host.liveTaskCount == (host.deadlines.hasSleeper ? 1 : 0) })
        await host.close()
        #expect(await host.liveTaskCount == 0)
    }

    @Test func aTransportWriteErrorDuringLinkSetUpEndsTheConnection() async throws {
        let records = LogRecords()
        let (controller, host) = try await Self.started(logger: records.logger)
        controller.answer { controller, command in
            var replies = controller.standardAnswer(command)
            if command.opcode == .leCreateConnection { replies.append(FakeController.connectionComplete(handle: 0x40, peer: Self.peer)) }
            return replies
        }
        let broken = HCITransportError.io(operation: "send", errno: 32)
        controller.failSends(with: broken, where: Self.isCommand(.leSetDataLength))
        let connection = try await host.connect(to: Self.peer)
        // The link set-up after connecting is nobody's call to await, yet its failure ends the link.
        #expect(await connection.waitUntilDisconnected() == .hardwareFailure)
        #expect(await host.closeReason == .transport(broken))
        await #expect(throws: HCIError.disconnected(reason: .hardwareFailure)) { try await connection.att.send([0x02, 0x17, 0x00]) }
        await #expect(throws: HCIError.transport(broken)) { try await host.execute(.readBDADDR) }
        await host.close()
        #expect(await host.liveTaskCount == 0)
        #expect(records.count(level: .error) == 1)  // reported once, where it happened
        #expect(records.contains(level: .error, "LE Set Data Length failed: the transport to the controller broke"))
    }

    @Test func aTransportWriteErrorWhileAnsweringSignalingEndsTheConnection() async throws {
        let records = LogRecords()
        let (controller, host, connection) = try await Self.connected(logger: records.logger)
        await controller.waitForCommand(.leSetDataLength)  // the link set-up has gone out
        let broken = HCITransportError.io(operation: "send", errno: 104)
        controller.failSends(with: broken) { $0.type == .acl }
        // An L2CAP signaling request the host must answer (Command Reject).
        controller.inject(ACLDataPacket(handle: 0x40, packetBoundary: .firstFlushable, data: [4, 0, 5, 0, 0x7F, 1, 0, 0]).packet)
        #expect(await connection.waitUntilDisconnected() == .hardwareFailure)
        #expect(await host.closeReason == .transport(broken))
        await host.close()
        #expect(records.count(level: .error) == 1)
    }

    @Test func aCommandTheControllerRefusesInTheBackgroundIsLoggedAndTheLinkStays() async throws {
        let records = LogRecords()
        let (controller, host) = try await Self.started(logger: records.logger)
        controller.answer { controller, command in
            switch command.opcode {
            case .leCreateConnection: return controller.standardAnswer(command) + [FakeController.connectionComplete(handle: 0x40, peer: Self.peer)]
            case .leSetDataLength: return [FakeController.complete(command.opcode, [HCIStatus.commandDisallowed.rawValue])]
            default: return controller.standardAnswer(command)
            }
        }
        let connection = try await host.connect(to: Self.peer)
        #expect(await eventually { records.contains(level: .notice, "LE Set Data Length failed") })
        #expect(connection.disconnectReason == nil)
        #expect(await host.closeReason == nil)
        await host.close()
    }
}
