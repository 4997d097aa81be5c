import Foundation
import Harald
import HaraldATT
import HaraldCore
import HaraldGATTLink
import HaraldHCIBackend
import HaraldScenarioSuite
import HaraldTestSupport
import Testing

/// Where scripts/integration put the scenario bench, or nil when it is not running.
enum ScenarioBench {
    /// `tcp:127.0.0.1:PORT` of the controller reserved for this suite's central.
    static var transport: String? { ProcessInfo.processInfo.environment["HARALD_SCENARIO_TRANSPORT"] }
    /// The scenario peer's control port on 127.0.0.1.
    static var controlPort: UInt16? { ProcessInfo.processInfo.environment["HARALD_SCENARIO_CONTROL_PORT"].flatMap { UInt16($0) } }
    /// The scenario peer's static random address (scripts/integration gives it this one).
    static let address = BluetoothAddress("C0:00:00:00:00:05", kind: .random)!
    static var isConfigured: Bool { transport != nil && controlPort != nil }
}

/// The public API's scenario suite over Harald's HCI host stack, against a Bumble GATT peer on
/// linked virtual controllers (scripts/integration starts both). Real time: generous timeouts (20 s),
/// and the timeout scenario waits 1 s.
@Suite(
    "Bumble integration: public API scenarios over the HCI backend", .serialized,
    .enabled(if: ScenarioBench.isConfigured, "set HARALD_SCENARIO_TRANSPORT and HARALD_SCENARIO_CONTROL_PORT (run scripts/integration)"))
struct BumbleIntegrationTests {
    @Test(arguments: Scenario.allCases)
    func scenario(_ scenario: Scenario) async throws {
        let transport = try #require(ScenarioBench.transport)
        let peer = BumbleScenarioPeer(
            identifier: PeripheralIdentifier(address: ScenarioBench.address),
            control: ScenarioControlChannel(port: try #require(ScenarioBench.controlPort)))
        try await peer.reset()
        let backend = try await HCICentralBackend.open(transport: transport)
        let recorder = ConnectionRecorder(backend)
        let harness = ScenarioHarness(
            central: Central(backend: recorder, defaultTimeout: .seconds(20)), peer: peer,
            timeout: .seconds(20), shortTimeout: .seconds(1), pendingOperations: { await recorder.pendingOperations() })
        do {
            try await withHangGuard(seconds: 60) { try await scenario.run(harness) }
        } catch {
            await backend.close()
            throw error
        }
        await backend.close()
    }
}
