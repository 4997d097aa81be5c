import Harald
import HaraldCoreBluetooth
import HaraldScenarioSuite
import Testing

/// CoreBluetooth never shows Generic Access (0x1800) or Generic Attribute (0x1801) to apps: a
/// call that needs them fails as unsupported, saying why, and asks the peripheral nothing.
@Suite("Services CoreBluetooth hides from apps", CoreBluetoothRules())
struct HiddenServicesTests {
    let timeout = Duration.seconds(5)

    func connect(_ world: FakeWorld, services: [ServiceSpec] = []) async throws -> PeripheralConnection {
        let central = Central(backend: world.backend, clock: world.clock)
        return try await central.connect(to: world.identifier, services: services, timeout: timeout)
    }

    func isHiddenByCoreBluetooth(_ error: BluetoothError?) -> Bool {
        guard case let .unsupported(reason) = error else { return false }
        return reason.contains("hidden by CoreBluetooth")
    }

    @Test func readingTheDeviceNameFailsAsUnsupportedWithoutAskingThePeripheral() async throws {
        let world = FakeWorld.make()
        let connection = try await connect(world)
        var failure: BluetoothError?
        do { _ = try await connection.read(.deviceName) } catch { failure = error }
        #expect(isHiddenByCoreBluetooth(failure), "\(String(describing: failure))")
        #expect(world.peripheral.received.isEmpty)
        await connection.disconnect()
    }

    @Test func subscribingToServiceChangedFailsAsUnsupportedWithoutAskingThePeripheral() async throws {
        let world = FakeWorld.make()
        let connection = try await connect(world)
        var failure: BluetoothError?
        do { _ = try await connection.subscribe(.serviceChanged) } catch { failure = error }
        #expect(isHiddenByCoreBluetooth(failure), "\(String(describing: failure))")
        #expect(world.peripheral.received.isEmpty)
        await connection.disconnect()
    }

    @Test func declaringAHiddenServiceLeavesItOutOfDiscovery() async throws {
        let world = FakeWorld.make()
        let connection = try await connect(world, services: [.genericAccess, ScenarioSpecs.service])
        _ = try await connection.read(ScenarioSpecs.status)
        #expect(world.peripheral.received.first == .discoverServices([ScenarioProfile.service]))
        await connection.disconnect()
    }
}
