import Foundation
import HaraldCodec
import Testing

@testable import HaraldHCI
import HaraldCore
import HaraldL2CAP
import HaraldTestSupport

@Suite("Host: connections, ACL and L2CAP fixed channels")
struct HostConnectionTests {
    static let peer = BluetoothAddress("C0:00:00:00:00:01", kind: .random)!

    /// A started host with one connection (handle 0x0040) to `peer`.
    static func connected(
        aclLength: UInt16 = 27, aclCount: UInt8 = 4, clock: ManualClock = ManualClock(),
        configuration: HCIHost.Configuration = HCIHost.Configuration()
    )
        async throws -> (FakeController, HCIHost, LEConnection)
    {
        let controller = FakeController(aclLength: aclLength, aclCount: aclCount)
        let host = HCIHost(transport: controller, clock: clock, configuration: configuration)
        try await host.start()
        controller.answer { controller, command in
            var replies = controller.standardAnswer(command)
            if command.opcode == .leCreateConnection {
                replies.append(FakeController.connectionComplete(handle: 0x40, peer: peer))
            }
            return replies
        }
        let connection = try await host.connect(to: peer)
        return (controller, host, connection)
    }

    @Test func connectSendsCreateConnectionAndReturnsTheLink() async throws {
        let (controller, host, connection) = try await Self.connected()
        #expect(connection.handle == 0x40 && connection.peer == Self.peer && connection.role == .central)
        let create = controller.sentCommands.first { $0.opcode == .leCreateConnection }
        #expect(create?.parameters == bytes("6000 6000 00 01 0100000000c0 01 1800 2800 0000 4800 0000 0000"))
        await host.close()
    }

    @Test func connectTimeoutCancelsAndFailsEvenIfTheControllerNeverConfirms() async throws {
        let controller = FakeController()
        let clock = ManualClock()
        let host = HCIHost(transport: controller, clock: clock)
        try await host.start()
        let attempt = Task { try await host.connect(to: Self.peer, timeout: .seconds(2)) }
        // The stock Bumble controller never sends Connection Complete after the cancel either.
        await letAttemptTimeOut(on: controller, host: host, clock: clock, after: .seconds(2))
        await #expect(throws: HCIError.connectionTimedOut(Self.peer)) { try await attempt.value }
        await host.close()
    }

    @Test func cancelledConnectionReportsTheControllersConfirmation() async throws {
        let controller = FakeController()
        controller.answer { controller, command in
            var replies = controller.standardAnswer(command)
            if command.opcode == .leCreateConnectionCancel {
                replies.append(FakeController.connectionComplete(handle: 0, peer: Self.peer, status: .unknownConnectionIdentifier))
            }
            return replies
        }
        let clock = ManualClock()
        let host = HCIHost(transport: controller, clock: clock)
        try await host.start()
        let attempt = Task { try await host.connect(to: Self.peer, timeout: .seconds(2)) }
        await controller.waitForCommand(.leCreateConnection)
        await clock.waitForSleepers(atLeast: 1)
        attempt.cancel()
        await #expect(throws: HCIError.cancelled) { try await attempt.value }
        await host.close()
    }

    @Test func refusedConnectionThrowsTheControllerStatus() async throws {
        let controller = FakeController()
        let host = HCIHost(transport: controller, clock: ManualClock())
        try await host.start()
        controller.answer { controller, command in
            command.opcode == .leCreateConnection ? [FakeController.status(command.opcode, .commandDisallowed)] : controller.standardAnswer(command)
        }
        await #expect(throws: HCIError.commandFailed(.leCreateConnection, .commandDisallowed)) {
            try await host.connect(to: Self.peer)
        }
        await host.close()
    }

    @Test func sduIsFragmentedToTheControllerBufferAndPacedByCompletedPackets() async throws {
        let (controller, host, connection) = try await Self.connected(aclLength: 27, aclCount: 2)
        let sdu = (0..<100).map { UInt8($0) }
        let sending = Task { try await connection.att.send(sdu) }
        await controller.waitForACL(count: 2)
        #expect(controller.sentACL.count == 2)  // both buffers in use; the rest waits
        controller.inject(FakeController.completedPackets(handle: 0x40, count: 2))
        await controller.waitForACL(count: 4)
        controller.inject(FakeController.completedPackets(handle: 0x40, count: 2))
        try await sending.value
        let fragments = controller.sentACL
        #expect(fragments.map(\.data.count) == [27, 27, 27, 23])
        #expect(fragments.map(\.packetBoundary) == [.firstNonFlushable, .continuing, .continuing, .continuing])
        #expect(fragments.allSatisfy { $0.handle == 0x40 })
        #expect(fragments.flatMap(\.data) == [100, 0, 4, 0] + sdu)
        await host.close()
    }

    @Test func fragmentsFromTheControllerAreReassembledIntoOneATTSDU() async throws {
        let (controller, host, connection) = try await Self.connected()
        let value = (0..<40).map { UInt8($0) }
        let pdu = [UInt8(value.count + 3), 0, 4, 0, 0x1B, 0x0C, 0x00] + value
        controller.inject(ACLDataPacket(handle: 0x40, packetBoundary: .firstFlushable, data: Array(pdu[0..<27])).packet)
        controller.inject(ACLDataPacket(handle: 0x40, packetBoundary: .continuing, data: Array(pdu[27...])).packet)
        var iterator = connection.att.incoming.makeAsyncIterator()
        #expect(await iterator.next() == [0x1B, 0x0C, 0x00] + value)
        await host.close()
    }

    /// An ATT SDU on handle 0x0040 carrying `byte`.
    static func attSDU(_ byte: UInt8) -> HCIPacket {
        ACLDataPacket(handle: 0x40, packetBoundary: .firstFlushable, data: [1, 0, 4, 0, byte]).packet
    }

    /// Injects an LE signaling PDU the host answers with Command Reject and waits for that
    /// answer: every packet injected before it has been handled by then.
    static func sync(_ controller: FakeController, answers: Int) async {
        controller.inject(ACLDataPacket(handle: 0x40, packetBoundary: .firstFlushable, data: [4, 0, 5, 0, 0x7F, 1, 0, 0]).packet)
        await controller.waitForACL(count: answers)
    }

    @Test func aReceiverGetsTheSDUsReceivedBeforeItThenTheRestThenTheClose() async throws {
        let (controller, host, connection) = try await Self.connected()
        controller.inject(Self.attSDU(1))
        controller.inject(Self.attSDU(2))
        await Self.sync(controller, answers: 1)
        let received = Recorder()
        let (closes, closed) = AsyncStream.makeStream(of: HCIStatus?.self)
        let installed = connection.att.deliverSDUs(
            to: L2CAPChannelReceiver(
                receive: { sdu in
                    received.append(sdu)
                    return true
                },
                finish: {
                    closed.yield(connection.disconnectReason)
                    closed.finish()
                }))
        #expect(installed)
        #expect(received.values == [[1], [2]])
        controller.inject(Self.attSDU(3))
        controller.inject(FakeController.disconnectionComplete(handle: 0x40, reason: .connectionTimeout))
        var iterator = closes.makeAsyncIterator()
        #expect(await iterator.next() == .some(.connectionTimeout))  // finish ran once the reason was set
        #expect(await iterator.next() == nil)
        #expect(received.values == [[1], [2], [3]])
        #expect(connection.att.droppedSDUCount == 0)
        var incoming = connection.att.incoming.makeAsyncIterator()
        #expect(await incoming.next() == nil)  // the receiver took everything
        await host.close()
    }

    @Test func aReceiverCannotReplaceAReaderOfIncoming() async throws {
        let (controller, host, connection) = try await Self.connected()
        controller.inject(Self.attSDU(1))
        var incoming = connection.att.incoming.makeAsyncIterator()
        #expect(await incoming.next() == [1])
        #expect(!connection.att.deliverSDUs(to: L2CAPChannelReceiver(receive: { _ in true }, finish: {})))
        controller.inject(Self.attSDU(2))
        #expect(await incoming.next() == [2])
        await host.close()
    }

    @Test func sdusWaitingForAReaderAreBoundedByTheChannelBufferSize() async throws {
        var configuration = HCIHost.Configuration()
        configuration.channelBufferSize = 2
        let (controller, host, connection) = try await Self.connected(configuration: configuration)
        for byte: UInt8 in 1...3 { controller.inject(Self.attSDU(byte)) }
        await Self.sync(controller, answers: 1)
        #expect(connection.att.droppedSDUCount == 1)
        let received = Recorder()
        #expect(
            connection.att.deliverSDUs(
                to: L2CAPChannelReceiver(
                    receive: { sdu in
                        received.append(sdu)
                        return sdu != [4]  // the receiver's own bound refuses this one
                    },
                    finish: {})))
        #expect(received.values == [[1], [2]])
        controller.inject(Self.attSDU(4))
        controller.inject(Self.attSDU(5))
        await Self.sync(controller, answers: 2)
        #expect(received.values == [[1], [2], [4], [5]])
        #expect(connection.att.droppedSDUCount == 2)
        await host.close()
    }

    @Test func disconnectionEndsTheChannelWithTheReason() async throws {
        let (controller, host, connection) = try await Self.connected()
        controller.inject(FakeController.disconnectionComplete(handle: 0x40, reason: .connectionTimeout))
        #expect(await connection.att.waitUntilClosed() == .connectionTimeout)
        #expect(connection.disconnectReason == .connectionTimeout)
        var iterator = connection.att.incoming.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        await #expect(throws: HCIError.disconnected(reason: .connectionTimeout)) { try await connection.att.send([0x02, 0x17, 0x00]) }
        #expect(await host.openConnections.isEmpty)
        await host.close()
    }

    /// Found by the HCIHost.EventSequence fuzz target (Fuzz/corpus/HCIHost.EventSequence/
    /// regression-connection-after-close): a Connection Complete still queued in the transport
    /// when close() began was read afterwards and left a connection open on a closed host.
    @Test func aConnectionCompleteReadAfterCloseOpensNoConnection() async throws {
        let controller = FakeController()
        let host = HCIHost(transport: controller, clock: ManualClock())
        try await host.start()
        controller.inject(FakeController.connectionComplete(handle: 0x40, peer: Self.peer))
        await host.close()
        #expect(await host.openConnections.isEmpty)
    }

    /// Found by the HCIHost.EventSequence fuzz target (Fuzz/corpus/HCIHost.EventSequence/
    /// regression-duplicate-connection-complete): a second Connection Complete for a live handle
    /// replaced the link, so a disconnect waiting on the first one never returned.
    @Test func aSecondConnectionCompleteForALiveHandleLeavesTheLinkInPlace() async throws {
        let (controller, host, connection) = try await Self.connected()
        controller.inject(FakeController.connectionComplete(handle: 0x40, peer: Self.peer))
        // A command round trip: the reader has taken in everything injected before its answer.
        _ = try? await connection.readRSSI()
        #expect(await host.openConnections.map(ObjectIdentifier.init) == [ObjectIdentifier(connection)])
        await host.close()
        #expect(connection.disconnectReason != nil)
    }

    @Test func disconnectSendsHCIDisconnectAndReturnsTheConfirmedReason() async throws {
        let (controller, host, connection) = try await Self.connected()
        controller.answer { controller, command in
            var replies = controller.standardAnswer(command)
            if command.opcode == .disconnect {
                replies.append(FakeController.disconnectionComplete(handle: 0x40, reason: .connectionTerminatedByLocalHost))
            }
            return replies
        }
        #expect(try await connection.disconnect() == .connectionTerminatedByLocalHost)
        #expect(controller.sentCommands.last == .disconnect(handle: 0x40))
        await host.close()
    }

    @Test func disconnectWithoutConfirmationEndsLocallyAfterTheCommandTimeout() async throws {
        let clock = ManualClock()
        let (controller, host, connection) = try await Self.connected(clock: clock)
        let disconnecting = Task { try await connection.disconnect() }
        await controller.waitForCommand(.disconnect)
        await host.settleCommands()
        // The wait for Disconnection Complete: its deadline is on the host's schedule once the
        // command was answered (a sleeper count alone cannot tell, the host's sleeper may be
        // sleeping for an earlier command already).
        await waitUntil { await host.deadlines.count >= 1 }
        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: .seconds(5))
        #expect(try await disconnecting.value == .connectionTerminatedByLocalHost)
        await host.close()
    }

    @Test func connectionParameterUpdateRequestIsAcceptedAndApplied() async throws {
        let (controller, host, _) = try await Self.connected()
        // Signaling: code 0x12, id 7, length 8: interval 0x18-0x28, latency 0, timeout 0x1F4.
        let request: [UInt8] = [0x12, 0x07, 0x08, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0xF4, 0x01]
        controller.inject(ACLDataPacket(handle: 0x40, packetBoundary: .firstFlushable, data: [12, 0, 5, 0] + request).packet)
        await controller.waitForCommand(.leConnectionUpdate)
        #expect(controller.sentACL.last?.data == [6, 0, 5, 0, 0x13, 0x07, 0x02, 0x00, 0x00, 0x00])
        #expect(
            controller.sentCommands.last
                == .leConnectionUpdate(
                    handle: 0x40,
                    parameters: LEConnectionParameters(
                        intervalMin: 0x18, intervalMax: 0x28, latency: 0, supervisionTimeout: 0x1F4)))
        await host.close()
    }

    @Test func pairingRequestIsAnsweredPairingNotSupported() async throws {
        let (controller, host, _) = try await Self.connected()
        let pairingRequest: [UInt8] = [0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07]
        controller.inject(ACLDataPacket(handle: 0x40, packetBoundary: .firstFlushable, data: [7, 0, 6, 0] + pairingRequest).packet)
        await controller.waitForACL(count: 1)
        #expect(controller.sentACL.last?.data == [2, 0, 6, 0, 0x05, 0x05])
        await host.close()
    }
}

@Suite("Host: the Security Manager channel")
struct HostSecurityManagerChannelTests {
    static var delivering: HCIHost.Configuration {
        var configuration = HCIHost.Configuration()
        configuration.deliversSecurityManagerPDUs = true
        return configuration
    }

    @Test func whenDeliveringSMPPDUsTheyReachTheConnectionsChannelAndTheHostDoesNotAnswer() async throws {
        let (controller, host, connection) = try await HostConnectionTests.connected(configuration: Self.delivering)
        let pairingRequest: [UInt8] = [0x01, 0x03, 0x00, 0x01, 0x10, 0x07, 0x07]
        controller.inject(ACLDataPacket(handle: 0x40, packetBoundary: .firstFlushable, data: [7, 0, 6, 0] + pairingRequest).packet)
        var incoming = connection.securityManager.incoming.makeAsyncIterator()
        #expect(await incoming.next() == pairingRequest)
        #expect(controller.sentACL.isEmpty, "the host left the answer to the Security Manager")
        await host.close()
    }

    @Test func aSecurityManagerSendsOnChannelSix() async throws {
        let (controller, host, connection) = try await HostConnectionTests.connected(configuration: Self.delivering)
        try await connection.securityManager.send([0x05, 0x08])  // Pairing Failed: Unspecified Reason
        await controller.waitForACL(count: 1)
        #expect(controller.sentACL.last?.data == [2, 0, 6, 0, 0x05, 0x08])
        await host.close()
    }

    @Test func theChannelEndsWithTheLink() async throws {
        let (controller, host, connection) = try await HostConnectionTests.connected(configuration: Self.delivering)
        controller.inject(FakeController.disconnectionComplete(handle: 0x40, reason: .remoteUserTerminatedConnection))
        var incoming = connection.securityManager.incoming.makeAsyncIterator()
        #expect(await incoming.next() == nil)
        await host.close()
    }
}

extension HCIHost {
    /// Returns once every command has been sent and answered (their timers are then cancelled).
    func settleCommands() async {
        while commandFlow.queuedCount + commandFlow.outstandingCount > 0 { await Task.yield() }
    }
}

@Suite("L2CAP signaling answers")
struct LESignalingTests {
    @Test func unknownRequestGetsCommandRejectNotUnderstood() {
        #expect(answerLESignaling([0x0A, 0x09, 0x00, 0x00]).reply == [0x01, 0x09, 0x02, 0x00, 0x00, 0x00])
    }

    @Test func responsesAreNeverRejected() {
        #expect(answerLESignaling([0x01, 0x09, 0x02, 0x00, 0x00, 0x00]).reply == nil)
        #expect(answerLESignaling([0x13, 0x09, 0x02, 0x00, 0x00, 0x00]).reply == nil)
    }

    @Test func aPeripheralRejectsAParameterUpdateRequestAsNotUnderstood() {
        // Valid parameters, but only a central takes the request.
        let answer = answerLESignaling([0x12, 0x01, 0x08, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0xF4, 0x01], role: .peripheral)
        #expect(answer.reply == [0x01, 0x01, 0x02, 0x00, 0x00, 0x00])
        #expect(answer.update == nil)
    }

    @Test func invalidParameterUpdateIsRejectedWithResultOne() {
        // Interval min above max.
        let answer = answerLESignaling([0x12, 0x01, 0x08, 0x00, 0x28, 0x00, 0x18, 0x00, 0x00, 0x00, 0xF4, 0x01])
        #expect(answer.reply == [0x13, 0x01, 0x02, 0x00, 0x01, 0x00])
        #expect(answer.update == nil)
    }

    @Test func lengthMismatchIsRejected() {
        #expect(answerLESignaling([0x12, 0x01, 0x08, 0x00, 0x28]).reply == [0x01, 0x01, 0x02, 0x00, 0x00, 0x00])
    }
}

/// SDUs a test receiver took, in order.
final class Recorder: Sendable {
    private let stored = Locked<[[UInt8]]>([])

    func append(_ sdu: [UInt8]) { stored.withLock { $0.append(sdu) } }

    var values: [[UInt8]] { stored.value }
}
