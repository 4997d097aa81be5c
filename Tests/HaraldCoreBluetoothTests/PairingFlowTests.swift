import Foundation
import Harald
import HaraldCoreBluetooth
import HaraldScenarioSuite
import HaraldSimulator
import Testing

@Suite("CoreBluetooth backend: the pairing flow", CoreBluetoothRules())
struct CoreBluetoothPairingFlowTests {
    /// On CoreBluetooth the protected read shows the system's pairing dialog and is held until the
    /// person answers it; a person slower than the flow's `timeout` (here 30 s, the read's default
    /// too) still pairs, since those steps have the flow's `pairingDialogTimeout`.
    @Test func aPairingDialogAnsweredAfterAMinuteStillPairs() async throws {
        let world = FakeWorld.make()
        world.central.lock.withLock { world.central.advertisingOnScan = [(world.peripheral, [fakeKeys.localName: "Scenario"], -50)] }
        // The system holds the requests while its dialog is up.
        world.peripheral.lock.withLock { world.peripheral.holding = true }
        let central = Central(backend: world.backend, clock: world.clock, defaultTimeout: .seconds(30))
        let flow = PairingFlow(central: central, match: .namePrefix("Scenario"), protected: ScenarioSpecs.setting, timeout: .seconds(30))
        let run = Task { () async throws(PairingFlow.Failure) -> PairingFlow.Paired in try await flow.run() }
        await world.peripheral.waitForHeld(1)
        await waitForSleepers(world.clock)
        for _ in 0..<60 {
            world.clock.advance(by: .seconds(1))
            await world.settle()
        }
        world.peripheral.resumeAnswering()  // the person typed the PIN
        let paired = try await run.value
        #expect(paired.advertisement.peripheral == world.identifier)
        await paired.connection.disconnect()
    }
}
