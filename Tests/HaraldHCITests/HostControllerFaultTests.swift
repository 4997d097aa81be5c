import HaraldCodec
import HaraldCore
import HaraldTestSupport
import Logging
import Testing

@testable import HaraldHCI

/// Faults of the controller and of the transport to it, not of the peer: the link to the
/// controller breaking mid-operation, a Hardware Error, a Data Buffer Overflow, completions and
/// data for handles the host does not know, and connections nobody asked for. Each fails what
/// it must with a typed error and leaves everything else as it was; nothing waits forever.
@Suite("Host: faults of the controller and its transport")
struct HostControllerFaultTests {
    static let peer = BluetoothAddress("C0:00:00:00:00:01", kind: .random)!
    static let stranger = BluetoothAddress("C0:00:00:00:00:09", kind: .random)!

    /// A started host (logging to `logs`) whose controller completes connections to `peer` on
    /// handle 0x0040 and answers every other command, with `aclCount` buffers of 27 bytes.
    static func started(aclCount: UInt8 = 4, logs: LogRecords = LogRecords(), clock: ManualClock = ManualClock())
        async throws -> (FakeController, HCIHost)
    {
        let controller = FakeController(aclLength: 27, aclCount: aclCount)
        var configuration = HCIHost.Configuration()
        configuration.logger = logs.logger
        configuration.deliversSecurityManagerPDUs = true
        return (controller, try await startedHost(on: controller, completingConnectionsTo: peer, configuration: configuration, clock: clock))
    }

    static func connected(aclCount: UInt8 = 4, logs: LogRecords = LogRecords()) async throws -> (FakeController, HCIHost, LEConnection) {
        let (controller, host) = try await started(aclCount: aclCount, logs: logs)
        return (controller, host, try await host.connect(to: peer))
    }

    /// Sends a command and waits for its answer: every packet the controller sent before the
    /// answer has been handled by then (the host reads in order and handles one packet at a time).
    static func barrier(_ host: HCIHost) async throws {
        try await host.execute(.leReadBufferSize)
    }

    // MARK: The transport closing mid-operation

    @Test func aConnectionAttemptFailsWithTheTransportErrorWhenTheTransportCloses() async throws {
        let (controller, host) = try await Self.started()
        let attempt = Task { try await host.connect(to: Self.stranger, timeout: nil) }
        await controller.waitForCommand(.leCreateConnection)
        controller.fail(.io(operation: "read", errno: 104))
        await #expect(throws: HCIError.transport(.io(operation: "read", errno: 104))) { _ = try await attempt.value }
    }

    @Test func aScanEndsWhenTheTransportClosesAndTheHostSaysWhy() async throws {
        let (controller, host) = try await Self.started()
        let scan = try await host.scan()
        controller.fail(.closed)
        var iterator = scan.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        #expect(await host.closeReason == .transport(.closed))
    }

    @Test func anL2CAPSendWaitingForControllerBuffersFailsWithTheTransportError() async throws {
        let (controller, _, connection) = try await Self.connected(aclCount: 1)
        // 100 bytes need four 27-byte fragments; with one buffer, three wait for completions.
        let sending = Task { try await connection.att.send([UInt8](repeating: 0x0B, count: 100)) }
        await controller.waitForACL(count: 1)
        controller.fail(.closed)
        await #expect(throws: HCIError.transport(.closed)) { try await sending.value }
    }

    @Test func theLinksEndWithHardwareFailureAndTheirATTAndSMPChannelsFinishWhenTheTransportCloses() async throws {
        let (controller, host, connection) = try await Self.connected()
        controller.fail(.closed)
        #expect(await connection.att.waitUntilClosed() == .hardwareFailure)
        var att = connection.att.incoming.makeAsyncIterator()
        var smp = connection.securityManager.incoming.makeAsyncIterator()
        #expect(await att.next() == nil)
        #expect(await smp.next() == nil)
        #expect(await host.openConnections.isEmpty)
    }

    @Test func anEncryptionInProgressFailsWhenTheTransportCloses() async throws {
        let (controller, host, connection) = try await Self.connected()
        controller.answer { controller, command in command.opcode == .leEnableEncryption ? [FakeController.status(command.opcode, .success)] : nil }
        let key = SecretKey128(littleEndianBytes: [UInt8](repeating: 0x5A, count: 16))!
        let encrypting = Task { try await connection.encrypt(with: key) }
        await controller.waitForCommand(.leEnableEncryption)
        controller.fail(.closed)
        await #expect(throws: HCIError.disconnected(reason: .hardwareFailure)) { try await encrypting.value }
        #expect(await host.closeReason == .transport(.closed))
    }

    @Test func aLostTransportLeavesNoContinuationAndNoTaskBehind() async throws {
        let clock = ManualClock()
        let (controller, host) = try await Self.started(clock: clock)
        controller.answer { _ in nil }  // from now on the controller says nothing
        let command = Task { try await host.send(.readRSSI(handle: 0x40)) }
        let attempt = Task { try await host.connect(to: Self.stranger) }
        await controller.waitForCommand(.readRSSI)
        #expect(await eventually { await host.liveContinuations >= 2 })
        controller.fail(.closed)
        _ = await command.result
        _ = await attempt.result
        #expect(await eventually { await host.liveContinuations == 0 })
        #expect(await eventually { await host.liveTaskCount == 0 })
    }

    // MARK: A controller that does not answer

    @Test func afterACommandTimesOutTheNextCommandStillGoesOut() async throws {
        let clock = ManualClock()
        let (controller, host) = try await Self.started(clock: clock)
        controller.answer { controller, command in command.opcode == .readRSSI ? nil : controller.standardAnswer(command) }
        let lost = Task { try await host.send(.readRSSI(handle: 0x40)) }
        await controller.waitForCommand(.readRSSI)
        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: .seconds(5))
        await #expect(throws: HCIError.commandTimedOut(.readRSSI)) { _ = try await lost.value }
        // The lost command's credit is given back: the controller is asked again, and answers.
        try await host.execute(.leReadBufferSize)
        await host.close()
    }

    // MARK: Hardware Error

    @Test func aHardwareErrorClosesTheHostWithATypedError() async throws {
        let (controller, host) = try await Self.started()
        let closes = await host.closeEvents()
        controller.inject(FakeController.event(0x10, [0x42]))
        var events: [HCIError] = []
        for await event in closes { events.append(event) }
        #expect(events == [.controllerHardwareError(0x42)])
        await #expect(throws: HCIError.controllerHardwareError(0x42)) { try await host.send(.reset) }
    }

    @Test func aHardwareErrorFailsThePendingCommandAndEndsTheLinksWithHardwareFailure() async throws {
        let (controller, host, connection) = try await Self.connected()
        controller.answer { controller, command in command.opcode == .readRSSI ? [FakeController.event(0x10, [0x01])] : nil }
        await #expect(throws: HCIError.controllerHardwareError(0x01)) { _ = try await host.send(.readRSSI(handle: 0x40)) }
        #expect(await connection.waitUntilDisconnected() == .hardwareFailure)
        #expect(await host.openConnections.isEmpty)
    }

    // MARK: Data Buffer Overflow

    @Test func aDataBufferOverflowIsCountedAndLoggedAndTheLinkStays() async throws {
        let logs = LogRecords()
        let (controller, host, connection) = try await Self.connected(logs: logs)
        controller.inject(FakeController.event(0x1A, [0x01]))
        try await Self.barrier(host)
        #expect(await host.dataBufferOverflows == 1)
        #expect(logs.contains(level: .error, "Data Buffer Overflow"))
        #expect(connection.disconnectReason == nil)
        #expect(await host.closeReason == nil)
        try await connection.att.send([0x02, 0x17, 0x00])
        await host.close()
    }

    // MARK: Number Of Completed Packets that do not add up

    @Test func completionsForAnUnknownHandleGiveNoBuffers() async throws {
        let (controller, host, connection) = try await Self.connected(aclCount: 2)
        let sending = Task { try await connection.att.send([UInt8](repeating: 0x0B, count: 100)) }  // four fragments
        await controller.waitForACL(count: 2)
        controller.inject(FakeController.completedPackets(handle: 0x0077, count: 5))
        try await Self.barrier(host)
        #expect(controller.sentACL.count == 2)
        controller.inject(FakeController.completedPackets(handle: 0x40, count: 2))
        await controller.waitForACL(count: 4)
        controller.inject(FakeController.completedPackets(handle: 0x40, count: 2))
        try await sending.value
        await host.close()
    }

    @Test func moreCompletionsThanPacketsSentNeverGiveMoreBuffersThanTheControllerHas() async throws {
        let (controller, host, connection) = try await Self.connected(aclCount: 2)
        try await connection.att.send([0x02, 0x17, 0x00])  // one fragment
        controller.inject(FakeController.completedPackets(handle: 0x40, count: 50))
        try await Self.barrier(host)
        let sending = Task { try await connection.att.send([UInt8](repeating: 0x0B, count: 100)) }  // four fragments
        await controller.waitForACL(count: 3)
        try await Self.barrier(host)
        #expect(controller.sentACL.count == 3)  // the first, then only as many as the controller has buffers
        #expect(await host.aclFlow.credits == 0)
        controller.inject(FakeController.completedPackets(handle: 0x40, count: 2))
        try await sending.value
        await host.close()
    }

    // MARK: ACL data for an unknown handle

    @Test func aclDataForAnUnknownHandleIsDroppedAndLoggedAndTheLinkStillGetsItsOwn() async throws {
        let logs = LogRecords()
        let (controller, host, connection) = try await Self.connected(logs: logs)
        controller.inject(ACLDataPacket(handle: 0x0123, packetBoundary: .firstFlushable, data: [1, 0, 4, 0, 0xEE]).packet)
        controller.inject(ACLDataPacket(handle: 0x40, packetBoundary: .firstFlushable, data: [1, 0, 4, 0, 0x01]).packet)
        var iterator = connection.att.incoming.makeAsyncIterator()
        #expect(await iterator.next() == [0x01])
        #expect(await host.unroutedACLPackets == 1)
        #expect(logs.contains(level: .debug, "does not know"))
        await host.close()
    }

    // MARK: Connections nobody asked for

    @Test func aConnectionAsCentralThatNobodyAskedForIsDisconnected() async throws {
        let (controller, host) = try await Self.started()
        controller.inject(FakeController.connectionComplete(handle: 0x41, peer: Self.stranger))
        await controller.waitForCommand(.disconnect)
        #expect(controller.sentCommands.last == .disconnect(handle: 0x41, reason: .remoteUserTerminatedConnection))
        controller.inject(FakeController.disconnectionComplete(handle: 0x41, reason: .connectionTerminatedByLocalHost))
        try await Self.barrier(host)
        #expect(await host.openConnections.isEmpty)
        await host.close()
    }

    @Test func aLateConnectionAfterTheAttemptTimedOutIsDisconnectedNotLeftOpen() async throws {
        let clock = ManualClock()
        let (controller, host) = try await Self.started(clock: clock)
        // The controller neither connects nor confirms the cancel with a Connection Complete.
        let attempt = Task { try await host.connect(to: Self.stranger, timeout: .seconds(1)) }
        await letAttemptTimeOut(on: controller, host: host, clock: clock, after: .seconds(1))
        await #expect(throws: HCIError.connectionTimedOut(Self.stranger)) { _ = try await attempt.value }
        controller.inject(FakeController.connectionComplete(handle: 0x42, peer: Self.stranger))
        await controller.waitForCommand(.disconnect)
        #expect(controller.sentCommands.last == .disconnect(handle: 0x42, reason: .remoteUserTerminatedConnection))
        await host.close()
    }

    @Test func aConnectionAsPeripheralIsAcceptedWhileSomeoneListens() async throws {
        let (controller, host) = try await Self.started()
        let incoming = await host.incomingConnections()
        try await host.startAdvertising(LegacyAdvertising(data: AdvertisingData()))
        controller.inject(ControllerEvents.connectionComplete(handle: 0x43, peer: Self.stranger, role: 0x01))
        var iterator = incoming.makeAsyncIterator()
        let link = try #require(await iterator.next())
        #expect(link.handle == 0x43 && link.role == .peripheral)
        #expect(!controller.sentCommands.contains { $0.opcode == .disconnect })
        await host.close()
    }

    @Test func aConnectionAsPeripheralWithNobodyListeningIsDisconnected() async throws {
        let (controller, host) = try await Self.started()
        controller.inject(ControllerEvents.connectionComplete(handle: 0x44, peer: Self.stranger, role: 0x01))
        await controller.waitForCommand(.disconnect)
        #expect(controller.sentCommands.last == .disconnect(handle: 0x44, reason: .remoteUserTerminatedConnection))
        await host.close()
    }
}
