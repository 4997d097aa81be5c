import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldHCIBackend
import HaraldScenarioSuite
import HaraldTestSupport
import Testing

/// ``ScenarioPeer`` over the scenario peripheral within range of a ``VirtualController``.
struct VirtualScenarioPeer: ScenarioPeer {
    let peripheral: ScenarioPeripheral
    let controller: VirtualController

    var identifier: PeripheralIdentifier { PeripheralIdentifier(address: peripheral.address) }
    func holdAnswers() async throws { peripheral.state.hold() }
    func resumeAnswering() async throws { peripheral.state.resume() }
    func waitForHeldRequests(_ count: Int) async throws { await peripheral.state.waitForHeld(count) }
    func notify(_ value: [UInt8], on uuid: BluetoothUUID) async throws { await peripheral.notify(value, on: uuid) }
    func value(of uuid: BluetoothUUID) async throws -> [UInt8] { peripheral.state.value(of: uuid) }

    func writesWithoutResponse(to uuid: BluetoothUUID, count: Int) async throws -> [[UInt8]] {
        guard uuid == ScenarioProfile.stream else { return [] }
        return await peripheral.state.writes(count: count)
    }

    func disconnectFromPeer() async throws { controller.disconnectFromPeripheral(peripheral.address) }

    func notificationsEnabled(on uuid: BluetoothUUID) async throws -> Bool {
        let server = peripheral.server
        guard let handle = await server.database.characteristic(uuid)?.valueHandle else {
            throw ScenarioFailure("the scenario peripheral has no \(uuid)")
        }
        // The newest client is the central under test (earlier ones are gone).
        guard let connection = await server.connectionIDs.last else { return false }
        return await !server.clientConfiguration(valueHandle: handle, connection: connection).isEmpty
    }
    func changeServices() async throws { try await peripheral.changeServices() }
}

/// The public API's scenario suite over Harald's HCI host stack and GATT client, against the
/// scenario peripheral's GATT server behind an in-process controller: the whole HCI path
/// (commands, advertising reports, connection events, ACL fragmentation and reassembly, L2CAP,
/// ATT) in plain `swift test`, without Python.
///
/// Every timeout runs on a manual clock that only the timeout scenario moves, so nothing depends
/// on how fast this machine is; the real-time deadline only guards against a hang.
@Suite("Public API scenarios over the HCI backend and an in-process controller")
struct VirtualControllerScenarioTests {
    @Test(arguments: Scenario.allCases)
    func scenario(_ scenario: Scenario) async throws {
        let clock = ManualClock()
        let peripheral = try ScenarioPeripheral()
        let controller = VirtualController(peers: [peripheral.virtualPeer])
        let backend = try await HCICentralBackend.open(transport: controller, clock: clock)
        let recorder = ConnectionRecorder(backend)
        let harness = ScenarioHarness(
            central: Central(backend: recorder, clock: clock, defaultTimeout: .seconds(30)),
            peer: VirtualScenarioPeer(peripheral: peripheral, controller: controller),
            timeout: .seconds(30), shortTimeout: .seconds(2),
            // Deadlines are absolute on the clock, so moving it past the short timeout fires the
            // pending operation's timer whether or not it sleeps yet.
            elapse: { duration in clock.advance(by: duration) },
            pendingOperations: { await recorder.pendingOperations() })
        do {
            try await withHangGuard(seconds: 120) { try await scenario.run(harness) }
        } catch {
            await backend.close()
            throw error
        }
        #expect(controller.linkCount == 0, "every link the scenario opened is closed")
        await backend.close()
    }
}

@Suite("Scenario peripheral")
struct ScenarioPeripheralLifetimeTests {
    /// The server holds the service's command handler and the handler reaches the server: the
    /// handler's reference must be weak, or every scenario peripheral lives forever (which
    /// LeakSanitizer reported at exit).
    @Test func aScenarioPeripheralNobodyHoldsIsFreedWithItsServer() throws {
        weak var server: GATTServer?
        do {
            let peripheral = try ScenarioPeripheral()
            server = peripheral.server
            #expect(server != nil)
        }
        #expect(server == nil)
    }
}
