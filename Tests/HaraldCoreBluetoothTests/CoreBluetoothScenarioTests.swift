import Foundation
import Harald
import HaraldCodec
import HaraldCoreBluetooth
import HaraldSimulator
import Testing

/// The fake CoreBluetooth world a test drives: the central, one peripheral serving
/// `ScenarioProfile`, and the backend over them.
struct FakeWorld: Sendable {
    let central: FakeCentral
    let peripheral: FakePeripheral
    let backend: CoreBluetoothBackend<FakeCentral>
    let clock: VirtualClock

    static var profileGATT: FakeGATT {
        FakeGATT(services: [
            .init(uuid: BluetoothUUID(0x180F), characteristics: [.init(uuid: BluetoothUUID(0x2A19), properties: .read | .notify, value: [88])]),
            .init(uuid: ScenarioProfile.service, characteristics: [
                .init(uuid: ScenarioProfile.status, properties: .read | .notify, value: ScenarioProfile.statusInitial, descriptors: [
                    .init(uuid: BluetoothUUID(0x2902), value: NSNumber(value: 0)),
                    .init(uuid: BluetoothUUID(0x2901), value: "Status"),
                ]),
                .init(uuid: ScenarioProfile.setting, properties: .read | .write, value: ScenarioProfile.settingInitial),
                .init(uuid: ScenarioProfile.stream, properties: .writeWithoutResponse),
                .init(uuid: ScenarioProfile.command, properties: .write),
                .init(uuid: ScenarioProfile.response, properties: .notify),
            ]),
        ])
    }

    /// A world whose radio is on, with the profile peripheral known to the system.
    static func make(poweredOn: Bool = true) -> FakeWorld {
        let clock = VirtualClock()
        let central = FakeCentral()
        let backend = CoreBluetoothBackend<FakeCentral>(clock: clock) { backend in
            central.backend = backend
            return central
        }
        let peripheral = central.makePeripheral(name: "Scenario", gatt: profileGATT)
        let answer: @Sendable ([UInt8]) -> [UInt8] = { ScenarioProfile.answer(to: $0) }
        peripheral.respond[ScenarioProfile.command] = (ScenarioProfile.response, answer)
        if poweredOn { central.setRadio(.poweredOn) }
        return FakeWorld(central: central, peripheral: peripheral, backend: backend, clock: clock)
    }

    var identifier: PeripheralIdentifier { PeripheralIdentifier(rawValue: peripheral.identifier.uuidString) }
}

/// `ScenarioPeer` over the fake peripheral.
struct FakeScenarioPeer: ScenarioPeer {
    let world: FakeWorld

    var identifier: PeripheralIdentifier { world.identifier }
    func holdAnswers() { world.peripheral.lock.withLock { world.peripheral.holding = true } }
    func resumeAnswering() { world.peripheral.resumeAnswering() }
    func waitForHeldRequests(_ count: Int) async { await world.peripheral.waitForHeld(count) }
    func notify(_ value: [UInt8], on uuid: BluetoothUUID) async { world.peripheral.notify(value, on: uuid) }
    func value(of uuid: BluetoothUUID) -> [UInt8] { world.peripheral.value(of: uuid) }
    func writesWithoutResponse(to uuid: BluetoothUUID) -> [[UInt8]] {
        world.peripheral.received.compactMap { request in
            if case let .write(target, bytes, withResponse: false) = request, target == uuid { return bytes }
            return nil
        }
    }
    func disconnectFromPeer() async { world.central.dropConnection(world.peripheral) }
}

@Suite("Backend scenarios on the CoreBluetooth fake")
struct CoreBluetoothScenarioTests {
    @Test(arguments: BackendScenario.allCases)
    func scenario(_ scenario: BackendScenario) async throws {
        let world = FakeWorld.make()
        let backend = world.backend
        try await scenario.run(ScenarioHarness(
            backend: backend, peer: FakeScenarioPeer(world: world), clock: world.clock,
            pendingOperations: { backend.pendingOperationCount }))
        #expect(world.peripheral.dropped == 0, "no write without response was sent without room for it")
    }
}
