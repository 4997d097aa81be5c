import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldCoreBluetooth
import HaraldScenarioSuite
import HaraldSimulator
import Testing

/// Yields until `condition` holds: for states reached by other tasks without any timing. Gives
/// up when the test is cancelled (its time limit), so a state never reached fails the test's
/// next expectation instead of hanging the run.
func until(_ condition: () -> Bool) async {
    while !condition() && !Task.isCancelled { await Task.yield() }
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

/// A trait that fails a test whose backend broke one of CoreBluetooth's rules on a fake it made
/// (``FakeWorld/make(poweredOn:gatt:)``): a call off CoreBluetooth's queue, a command before
/// power-on, a request to a peripheral that is not connected. Checked when the test ends, after
/// the queue has run what was dispatched onto it.
struct CoreBluetoothRules: SuiteTrait, TestTrait, TestScoping {
    /// The fakes made by the running test.
    final class Watch: Sendable {
        let centrals = Locked<[FakeCentral]>([])
        let managers = Locked<[FakePeripheralManager]>([])
    }

    @TaskLocal static var current: Watch?

    /// Has `central` checked when the test ends (no effect outside the trait).
    static func watch(_ central: FakeCentral) {
        current?.centrals.withLock { $0.append(central) }
    }

    /// Has `manager` checked when the test ends: its rules, and every request answered.
    static func watch(_ manager: FakePeripheralManager) {
        current?.managers.withLock { $0.append(manager) }
    }

    var isRecursive: Bool { true }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> CoreBluetoothRules? {
        testCase == nil ? nil : self
    }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let watch = Watch()
        try await Self.$current.withValue(watch) { try await function() }
        for central in watch.centrals.withLock({ $0 }) {
            await central.system.settle()
            #expect(central.misuse.isEmpty, "the backend broke CoreBluetooth's rules: \(central.misuse)")
        }
        for manager in watch.managers.withLock({ $0 }) {
            await manager.system.settle()
            #expect(manager.misuse.isEmpty, "the backend broke CoreBluetooth's rules: \(manager.misuse)")
            #expect(manager.unanswered.isEmpty, "the backend left \(manager.unanswered.count) request(s) unanswered")
        }
    }
}
