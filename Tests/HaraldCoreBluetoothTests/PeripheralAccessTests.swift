import Foundation
import Harald
import HaraldCodec
import HaraldCoreBluetooth
import HaraldScenarioSuite
import Testing

/// The escape hatch from the public handle: the CoreBluetooth peripheral object of a connection.
@Suite("PeripheralConnection on CoreBluetooth: the peripheral object", CoreBluetoothRules(), .timeLimit(.minutes(1)))
struct PeripheralAccessTests {
    let timeout = Duration.seconds(10)

    @Test func thePublicHandleReachesItsPeripheralObject() async throws {
        let world = FakeWorld.make()
        let central = Central(backend: world.backend, clock: world.clock)
        let connection = try await central.connect(to: world.identifier, timeout: timeout)
        let identifier = try await connection.withPeripheral(on: FakeCentral.self) { peripheral in peripheral.identifier }
        #expect(identifier == world.peripheral.identifier)
    }

    @Test func aHandleThatDisconnectedNoLongerReachesIt() async throws {
        let world = FakeWorld.make()
        let central = Central(backend: world.backend, clock: world.clock)
        let connection = try await central.connect(to: world.identifier, timeout: timeout)
        let other = try await central.connect(to: world.identifier, timeout: timeout)
        await connection.disconnect()
        await #expect(throws: BluetoothError.disconnected(.localRequest)) {
            try await connection.withPeripheral(on: FakeCentral.self) { $0.identifier }
        }
        #expect(try await other.withPeripheral(on: FakeCentral.self) { $0.identifier } == world.peripheral.identifier)
    }
}
