import Harald
import HaraldCore
import HaraldHCIBackend
import HaraldScenarioSuite
import Testing

/// The peripheral-side scenario suite over HCI: Harald's peripheral on one Bumble virtual
/// controller, Harald's central on another of the same link. In the Harald↔Harald suite, which
/// runs serially, because both use its controllers.
extension HaraldPeripheralBumbleIntegrationTests {
    @Test(arguments: PeripheralScenario.allCases)
    func peripheralScenario(_ scenario: PeripheralScenario) async throws {
        let centralBackend = try await HCICentralBackend.open(transport: try #require(HaraldPair.centralTransport))
        let harness = PeripheralScenarioHarness(
            backend: HCIPeripheralBackend(transport: try #require(HaraldPair.peripheralTransport)),
            central: Central(backend: centralBackend, defaultTimeout: .seconds(10)),
            name: "PS-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))", timeout: .seconds(10),
            sleep: { try? await Task.sleep(for: $0) })
        do { try await scenario.run(harness) } catch {
            await centralBackend.close()
            throw error
        }
        await centralBackend.close()
    }
}
