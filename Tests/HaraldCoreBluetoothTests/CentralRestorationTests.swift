import Foundation
import Harald
import HaraldCodec
import HaraldCoreBluetooth
import HaraldScenarioSuite
import Testing

/// State restoration seen through `Central`: what the system kept is listed, and what it left
/// notifying is owned.
@Suite("Central on CoreBluetooth: state restoration", CoreBluetoothRules(), .timeLimit(.minutes(1)))
struct CentralRestorationTests {
    let timeout = Duration.seconds(10)

    func setNotifyCalls(_ world: FakeWorld, _ enabled: Bool) -> Int {
        world.peripheral.requests.filter { $0 == .setNotify(enabled, ScenarioProfile.status) }.count
    }

    /// A relaunch with the scenario peripheral connected and its status notifying.
    func relaunchedConnected(waking: [UInt8]? = nil) -> FakeWorld {
        let world = FakeWorld.make()
        world.peripheral.restoreConnected(discovered: [ScenarioProfile.service], notifying: [ScenarioProfile.status])
        world.central.restore(
            [world.peripheral], scanServices: nil, waking: waking.map { (world.peripheral, ScenarioProfile.status, $0) })
        return world
    }

    func firstRestoration(_ central: Central) async throws -> Restoration {
        var restorations = central.restorations().makeAsyncIterator()
        return try #require(await restorations.next())
    }

    @Test func aConnectTheSystemWasStillMakingIsListedAndAConnectReturnsIt() async throws {
        let world = FakeWorld.make()
        world.central.connectBehaviour = .hold
        world.peripheral.restoreConnecting()
        world.central.restore([world.peripheral], scanServices: nil)
        let central = Central(backend: world.backend, clock: world.clock)
        let restoration = try await firstRestoration(central)
        #expect(restoration.pendingConnects == [world.identifier])
        #expect(restoration.connections.isEmpty)
        let connecting = Task { try await central.connect(to: world.identifier) }
        await until { world.backend.pendingOperationCount == 1 }
        world.central.completeConnection(world.peripheral)
        let connection = try await connecting.value
        #expect(try await connection.discoverAll().count == 2)
        #expect(!world.central.calls.contains(.connect(world.peripheral.identifier)), "the system's pending connect, not a new one")
    }

    @Test func disconnectAllStopsARestoredPendingConnect() async throws {
        let world = FakeWorld.make()
        world.peripheral.restoreConnecting()
        world.central.restore([world.peripheral], scanServices: nil)
        let central = Central(backend: world.backend, clock: world.clock)
        #expect(try await firstRestoration(central).pendingConnects == [world.identifier])
        await central.disconnectAll(from: world.identifier)
        await world.settle()
        #expect(world.central.calls.contains(.cancelConnection(world.peripheral.identifier)))
    }

    @Test func aRestoredNotifyingCharacteristicIsOwnedByTheRestoredHandle() async throws {
        let world = relaunchedConnected()
        let central = Central(backend: world.backend, clock: world.clock)
        let restoration = try await firstRestoration(central)
        let connection = try #require(restoration.connections.first)
        #expect(connection.restoredNotificationCount == 1)
    }

    @Test func aRestoredNotifyingCharacteristicNobodySubscribesToIsTurnedOffWhenItsHandleGoes() async throws {
        let world = relaunchedConnected()
        let central = Central(backend: world.backend, clock: world.clock)
        let restoration = try await firstRestoration(central)
        let restored = try #require(restoration.connections.first)
        // Another owner keeps the link up, so letting go of the restored handle only gives back
        // what it held.
        let other = try await central.connect(to: world.identifier, timeout: timeout)
        await restored.disconnect()
        await other.settle()
        await world.settle()
        #expect(setNotifyCalls(world, false) == 1, "notifications nobody owns are turned off")
        #expect(other.ownerCount == 1)
    }

    @Test func aSubscriptionTakesOverARestoredNotificationAndTurnsItOffWhenItsLoopEnds() async throws {
        let world = relaunchedConnected(waking: [0x07])
        let central = Central(backend: world.backend, clock: world.clock)
        let restoration = try await firstRestoration(central)
        let connection = try #require(restoration.connections.first)
        let other = try await central.connect(to: world.identifier, timeout: timeout)
        do {
            let subscription = try await connection.subscribe(ScenarioSpecs.status, timeout: timeout)
            #expect(connection.restoredNotificationCount == 0, "the subscription took the hold over")
            #expect(setNotifyCalls(world, true) == 0, "notifications were on already: no CCCD write")
            var values = subscription.makeAsyncIterator()
            #expect(try await values.next() == [0x07], "the value that woke the app comes first")
        }
        await connection.settle()
        await world.settle()
        #expect(setNotifyCalls(world, false) == 1, "the loop ended, and with it the only hold")
        #expect(other.ownerCount == 2)
    }
}
