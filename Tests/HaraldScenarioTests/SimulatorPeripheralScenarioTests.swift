import Harald
import HaraldCore
import HaraldScenarioSuite
import HaraldSimulator
import HaraldTestSupport
import Testing

/// The peripheral-side scenario suite on the simulator: the device served through the
/// simulator's peripheral backend, a simulated central connecting to it, in virtual time.
@Suite("Peripheral scenarios on the simulator backend")
struct SimulatorPeripheralScenarioTests {
    @Test(arguments: PeripheralScenario.allCases)
    func scenario(_ scenario: PeripheralScenario) async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        try await simulation.run(timeLimit: .seconds(600)) {
            // A strap advertises nearby, so the scan has something else to skip.
            let simulator = try Simulator(clock: clock, devices: [.heartRateStrap()])
            let harness = PeripheralScenarioHarness(
                backend: simulator.peripheralBackend(at: BluetoothAddress("C2:5C:00:00:00:01", kind: .random)!),
                central: Central(backend: simulator.backend, clock: clock, defaultTimeout: .seconds(5)),
                name: "Scenario device", timeout: .seconds(5), sleep: { try? await clock.sleep(for: $0) })
            try await scenario.run(harness)
        }
    }
}
