import Harald
import HaraldCodec
import HaraldCoreBluetooth
import HaraldScenarioSuite
import Testing

/// A `ServiceSpec` lists the characteristics the app uses; on CoreBluetooth, which discovers only
/// what it is asked for, the connection asks for exactly those.
@Suite("Declared characteristics drive discovery", CoreBluetoothRules())
struct DeclaredCharacteristicsTests {
    let timeout = Duration.seconds(5)

    func characteristicDiscoveries(_ world: FakeWorld) -> [[BluetoothUUID]?] {
        world.peripheral.received.compactMap { request in
            if case let .discoverCharacteristics(uuids, service: ScenarioProfile.service) = request { return uuids }
            return nil
        }
    }

    @Test func firstUseAsksOnlyForTheDeclaredCharacteristics() async throws {
        let world = FakeWorld.make()
        let central = Central(backend: world.backend, clock: world.clock)
        let spec = ServiceSpec(ScenarioProfile.service, characteristics: [ScenarioProfile.status, ScenarioProfile.setting])
        let connection = try await central.connect(to: world.identifier, services: [spec], timeout: timeout)
        _ = try await connection.read(ScenarioSpecs.status)
        #expect(characteristicDiscoveries(world) == [[ScenarioProfile.status, ScenarioProfile.setting]])
        _ = try await connection.read(ScenarioSpecs.setting)
        #expect(characteristicDiscoveries(world).count == 1, "a declared characteristic needs no second discovery")
    }

    @Test func anUndeclaredCharacteristicIsAskedForAloneOnFirstUse() async throws {
        let world = FakeWorld.make()
        let central = Central(backend: world.backend, clock: world.clock)
        let spec = ServiceSpec(ScenarioProfile.service, characteristics: [ScenarioProfile.status])
        let connection = try await central.connect(to: world.identifier, services: [spec], timeout: timeout)
        _ = try await connection.read(ScenarioSpecs.setting)
        #expect(characteristicDiscoveries(world) == [[ScenarioProfile.status, ScenarioProfile.setting]])
        _ = try await connection.read(ScenarioSpecs.status)
        try await connection.write([0x01], to: ScenarioSpecs.command)
        #expect(characteristicDiscoveries(world) == [[ScenarioProfile.status, ScenarioProfile.setting], [ScenarioProfile.command]])
    }

    @Test func aSpecWithoutCharacteristicsAsksForAllOfThem() async throws {
        let world = FakeWorld.make()
        let central = Central(backend: world.backend, clock: world.clock)
        let connection = try await central.connect(
            to: world.identifier, services: [ServiceSpec(ScenarioProfile.service, characteristics: [])], timeout: timeout)
        _ = try await connection.read(ScenarioSpecs.status)
        _ = try await connection.read(ScenarioSpecs.setting)
        #expect(characteristicDiscoveries(world) == [nil])
    }
}
