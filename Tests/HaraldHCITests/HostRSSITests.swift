import HaraldCodec
import Testing

@testable import HaraldHCI
import HaraldCore
import HaraldTestSupport

/// HCI Read RSSI on a connection.
@Suite("Host: reading a connection's RSSI")
struct HostRSSITests {
    /// A host connected (handle 0x0040) to a controller that answers Read RSSI with `answer`.
    static func connected(rssiAnswer: [UInt8]) async throws -> (FakeController, HCIHost, LEConnection) {
        let (controller, host, connection) = try await HostLinkParameterTests.connected(features: 0)
        controller.answer { controller, command in
            guard command.opcode == .readRSSI else { return controller.standardAnswer(command) }
            return [FakeController.complete(command.opcode, rssiAnswer)]
        }
        return (controller, host, connection)
    }

    @Test func readRSSISendsTheConnectionHandleAndReturnsSignedDecibels() async throws {
        let (controller, host, connection) = try await Self.connected(rssiAnswer: bytes("00 4000 C4"))
        #expect(try await connection.readRSSI() == RSSI(dBm: -60))
        #expect(controller.sentCommands.last { $0.opcode == .readRSSI }?.parameters == bytes("4000"))
        await host.close()
    }

    @Test func anRSSIOf127MeansTheControllerCannotTell() async throws {
        let (_, host, connection) = try await Self.connected(rssiAnswer: bytes("00 4000 7F"))
        #expect(try await connection.readRSSI() == nil)
        await host.close()
    }

    @Test func aShortAnswerIsAnUnexpectedResponseNotATrap() async throws {
        let (_, host, connection) = try await Self.connected(rssiAnswer: bytes("00 40"))
        await #expect(throws: HCIError.self) { _ = try await connection.readRSSI() }
        await host.close()
    }

    @Test func aControllerWithoutTheCommandFailsWithItsStatus() async throws {
        let (_, host, connection) = try await Self.connected(rssiAnswer: [HCIStatus.unknownCommand.rawValue])
        await #expect(throws: HCIError.commandFailed(.readRSSI, .unknownCommand)) { _ = try await connection.readRSSI() }
        await host.close()
    }
}
