import HaraldCodec
import Testing

@testable import HaraldHCI
import HaraldCore
import HaraldTestSupport

/// LE encryption on a link: LE Enable Encryption and its outcomes, and the peripheral side's
/// Long Term Key Requests.
@Suite("Host: encrypting a link")
struct HostEncryptionTests {
    static let key = SecretKey128(littleEndianBytes: (0..<16).map { UInt8($0 + 0xA0) })!

    /// A host connected as central on handle 0x0040 whose controller answers LE Enable Encryption
    /// with Command Status and then `outcome`.
    static func connected(outcome: [HCIPacket]) async throws -> (FakeController, HCIHost, LEConnection) {
        let (controller, host, connection) = try await HostLinkParameterTests.connected(features: 0)
        controller.answer { controller, command in
            guard command.opcode == .leEnableEncryption else { return controller.standardAnswer(command) }
            return [FakeController.status(command.opcode, .success)] + outcome
        }
        return (controller, host, connection)
    }

    @Test func encryptingSendsTheHandleRandEDIVAndKeyLeastSignificantOctetFirst() async throws {
        let (controller, host, connection) = try await Self.connected(outcome: [FakeController.event(0x08, [0x00, 0x40, 0x00, 0x01])])
        try await connection.encrypt(with: Self.key, rand: 0x0102_0304_0506_0708, ediv: 0xBEEF)
        let sent = try #require(controller.sentCommands.last { $0.opcode == .leEnableEncryption })
        #expect(sent.parameters == bytes("4000 0807060504030201 EFBE") + (0..<16).map { UInt8($0 + 0xA0) })
        await host.close()
    }

    @Test func anEncryptionChangeMarksTheLinkEncrypted() async throws {
        let (_, host, connection) = try await Self.connected(outcome: [FakeController.event(0x59, [0x00, 0x40, 0x00, 0x01, 0x10])])
        let outcome = try await connection.encrypt(with: Self.key)
        #expect(outcome == LinkEncryption(isEncrypted: true, keySize: 16))
        #expect(connection.parameters.isEncrypted)
        #expect(connection.parameters.keySize == 16)
        await host.close()
    }

    @Test func aPeerWithoutTheKeyRefusesWithPINOrKeyMissingAndTheLinkStays() async throws {
        let (_, host, connection) = try await Self.connected(outcome: [FakeController.event(0x08, [0x06, 0x40, 0x00, 0x00])])
        await #expect(throws: HCIError.encryptionFailed(.pinOrKeyMissing)) { try await connection.encrypt(with: Self.key) }
        #expect(connection.disconnectReason == nil)
        #expect(!connection.parameters.isEncrypted)
        await host.close()
    }

    @Test func reEncryptingAnEncryptedLinkCompletesWithAKeyRefresh() async throws {
        let (_, host, connection) = try await Self.connected(outcome: [FakeController.event(0x30, [0x00, 0x40, 0x00])])
        #expect(try await connection.encrypt(with: Self.key).isEncrypted)
        await host.close()
    }

    @Test func aLinkLostWhileEncryptingFailsTheWaitWithTheReason() async throws {
        let (_, host, connection) = try await Self.connected(outcome: [
            FakeController.disconnectionComplete(handle: 0x40, reason: .connectionTerminatedDueToMICFailure)
        ])
        await #expect(throws: HCIError.disconnected(reason: .connectionTerminatedDueToMICFailure)) { try await connection.encrypt(with: Self.key) }
        await host.close()
    }

    @Test func aControllerThatNeverReportsTheOutcomeTimesOut() async throws {
        let clock = ManualClock()
        let controller = FakeController(leFeatures: 0)
        let host = HCIHost(transport: controller, clock: clock)
        try await host.start()
        controller.answer { controller, command in
            var replies = controller.standardAnswer(command)
            if command.opcode == .leCreateConnection || command.opcode == .leExtendedCreateConnection {
                replies.append(FakeController.connectionComplete(handle: 0x40, peer: HostLinkParameterTests.peer))
            }
            if command.opcode == .leEnableEncryption { replies = [FakeController.status(command.opcode, .success)] }
            return replies
        }
        let connection = try await host.connect(to: HostLinkParameterTests.peer)
        let attempt = Task { try await connection.encrypt(with: Self.key, timeout: .seconds(5)) }
        await controller.waitForCommand(.leEnableEncryption)
        while clock.sleeperCount == 0 { await Task.yield() }
        clock.advance(by: .seconds(5))
        await #expect(throws: HCIError.commandTimedOut(.leEnableEncryption)) { _ = try await attempt.value }
        await host.close()
    }

    @Test func aLongTermKeyRequestWithoutAProviderIsRefused() async throws {
        let (controller, host, _) = try await HostLinkParameterTests.connected(features: 0)
        controller.inject(FakeController.event(0x3E, bytes("05 4000 0000000000000000 0000")))
        await controller.waitForCommand(.leLongTermKeyRequestNegativeReply)
        #expect(controller.sentCommands.last?.parameters == bytes("4000"))
        await host.close()
    }

    @Test func aLongTermKeyRequestIsAnsweredWithTheProvidersKey() async throws {
        let (controller, host, _) = try await HostLinkParameterTests.connected(features: 0)
        await host.setLongTermKeyProvider { peer, rand, ediv in
            peer == HostLinkParameterTests.peer && rand == 0x1122 && ediv == 0x3344 ? Self.key : nil
        }
        controller.inject(FakeController.event(0x3E, bytes("05 4000 2211000000000000 4433")))
        await controller.waitForCommand(.leLongTermKeyRequestReply)
        let reply = try #require(controller.sentCommands.last { $0.opcode == .leLongTermKeyRequestReply })
        #expect(reply.parameters == bytes("4000") + (0..<16).map { UInt8($0 + 0xA0) })
        await host.close()
    }

    @Test func commandsCarryingAKeyNeverPrintIt() {
        let command = HCICommand.leEnableEncryption(handle: 0x40, rand: 0, ediv: 0, key: Self.key)
        #expect(!command.description.lowercased().contains("a0a1a2"))
        #expect(command.description.contains("<redacted 16 bytes>"))
        let reply = HCICommand.leLongTermKeyRequestReply(handle: 0x40, key: Self.key)
        #expect(!reply.description.lowercased().contains("a0a1a2"))
    }

    @Test func bumblesCapturedEncryptionEventsDecode() throws {
        // smp.md §5: `04 08 04 00 01 00 01` and the LTK request `04 3e 0d 05 01 00 00×8 00 00`.
        #expect(try HCIEvent(decoding: bytes("08 04 00 0100 01")) == .encryptionChange(EncryptionChange(status: .success, handle: 1, isEncrypted: true)))
        #expect(
            try HCIEvent(decoding: bytes("3e 0d 05 0100 0000000000000000 0000"))
                == .le(.longTermKeyRequest(LELongTermKeyRequest(handle: 1, rand: 0, ediv: 0))))
        #expect(throws: ByteDecodingError.self) { try HCIEvent(decoding: bytes("08 03 00 0100")) }
    }
}
