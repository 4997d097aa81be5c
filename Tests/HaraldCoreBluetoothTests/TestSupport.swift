import Harald
import HaraldCodec
import HaraldCoreBluetooth
import HaraldScenarioSuite
import HaraldSimulator
import Testing

/// Yields until `condition` holds: for states reached by other tasks without any timing.
func until(_ condition: () -> Bool) async {
    while !condition() { await Task.yield() }
}

/// Waits (without sleeping on real time) until `count` timers sleep on the virtual clock, so that
/// advancing it fires them.
func waitForSleepers(_ clock: VirtualClock, count: Int = 1) async {
    while clock.sleeperCount < count { await Task.yield() }
}

/// A backend connection to the scenario peripheral with its characteristics discovered.
struct BackendProfile {
    let connection: any ConnectionBackend
    let characteristics: [BluetoothUUID: DiscoveredCharacteristic]
    subscript(_ uuid: BluetoothUUID) -> DiscoveredCharacteristic { characteristics[uuid]! }
}

extension CoreBluetoothBackend {
    /// Connects to the fake's profile peripheral and discovers the scenario service.
    func connectToProfile(_ world: FakeWorld, timeout: Duration = .seconds(5)) async throws -> BackendProfile {
        let connection = try await connect(to: world.identifier, timeout: timeout)
        let services = try await connection.discoverServices([ScenarioProfile.service], timeout: timeout)
        let service = try #require(services.first { $0.uuid == ScenarioProfile.service })
        let characteristics = try await connection.discoverCharacteristics(nil, of: service, timeout: timeout)
        return BackendProfile(connection: connection, characteristics: Dictionary(characteristics.map { ($0.uuid, $0) }) { first, _ in first })
    }
}
