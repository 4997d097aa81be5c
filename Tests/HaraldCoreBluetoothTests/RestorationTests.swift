import Foundation
import Harald
import HaraldCodec
import HaraldCoreBluetooth
import HaraldScenarioSuite
import Testing

@Suite("CoreBluetooth backend: state restoration", CoreBluetoothRules(), .timeLimit(.minutes(1)))
struct RestorationTests {
    let timeout = Duration.seconds(10)

    /// A world whose peripheral the system kept connected, with the scenario service discovered
    /// and notifications on for the status characteristic, as CoreBluetooth hands it back.
    func restoredWorld(waking: [UInt8]? = nil) -> FakeWorld {
        let world = FakeWorld.make()
        world.peripheral.restoreConnected(discovered: [ScenarioProfile.service], notifying: [ScenarioProfile.status])
        world.central.restore(
            [world.peripheral], scanServices: [ScenarioProfile.service],
            waking: waking.map { (world.peripheral, ScenarioProfile.status, $0) })
        return world
    }

    /// The restored connection and its status characteristic, discovered as an app does.
    func attach(_ world: FakeWorld) async throws -> (any ConnectionBackend, DiscoveredCharacteristic) {
        var restorations = world.backend.restorations().makeAsyncIterator()
        let restoration = try #require(await restorations.next())
        let connection = try #require(restoration.connections.first)
        let service = try #require(try await connection.discoverServices([ScenarioProfile.service], timeout: timeout).first)
        let characteristics = try await connection.discoverCharacteristics(nil, of: service, timeout: timeout)
        return (connection, try #require(characteristics.first { $0.uuid == ScenarioProfile.status }))
    }

    @Test func restorationsHandsBackTheConnectionsAndTheScanOnce() async throws {
        let world = restoredWorld()
        var restorations = world.backend.restorations().makeAsyncIterator()
        let restoration = try #require(await restorations.next())
        #expect(restoration.connections.map(\.peripheral) == [world.identifier])
        #expect(restoration.scanServices == [ScenarioProfile.service])
        #expect(await restorations.next() == nil)
        #expect(!world.central.calls.contains(.connect(world.peripheral.identifier)))
    }

    /// The backend keeps the restoration for consumers that come late, as values: a handle it
    /// kept would hold the backend, which could then never be freed.
    @Test func aBackendThatRestoredAConnectionIsFreedOnceReleased() async throws {
        weak var released: CoreBluetoothBackend<FakeCentral>?
        do {
            let world = restoredWorld()
            var restorations = world.backend.restorations().makeAsyncIterator()
            #expect(try #require(await restorations.next()).connections.count == 1)
            await world.start()
            released = world.backend
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while released != nil && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(released == nil)
    }

    @Test func aConsumerArrivingAfterTheRestorationStillGetsIt() async throws {
        let world = restoredWorld()
        await world.start()
        var restorations = world.backend.restorations().makeAsyncIterator()
        #expect(try #require(await restorations.next()).connections.count == 1)
    }

    @Test func withoutARestorationTheStreamEndsOnceTheRadioStateIsKnown() async {
        let world = FakeWorld.make()
        var restorations = world.backend.restorations().makeAsyncIterator()
        #expect(await restorations.next() == nil)
        #expect(world.backend.liveStreamCount == 0)
    }

    @Test func aScanThatWasNotRunningIsRestoredAsNone() async throws {
        let world = FakeWorld.make()
        world.peripheral.restoreConnected(discovered: [], notifying: [])
        world.central.restore([world.peripheral], scanServices: nil)
        var restorations = world.backend.restorations().makeAsyncIterator()
        #expect(try #require(await restorations.next()).scanServices == nil)
    }

    @Test func valuesArrivingBeforeTheAppAttachesAreDeliveredInOrderThenLiveValues() async throws {
        let world = restoredWorld(waking: [0x01])
        await world.start()
        world.peripheral.notify([0x02], on: ScenarioProfile.status)
        let (connection, status) = try await attach(world)
        world.peripheral.notify([0x03], on: ScenarioProfile.status)
        var updates = (await connection.valueUpdates(for: status, buffering: .oldest(16))).makeAsyncIterator()
        world.peripheral.notify([0x04], on: ScenarioProfile.status)
        #expect(await updates.next() == [0x01], "the notification that woke the app")
        #expect(await updates.next() == [0x02])
        #expect(await updates.next() == [0x03])
        #expect(await updates.next() == [0x04])
        #expect(world.backend.droppedRestoredValueCount == 0)
    }

    @Test func onlyTheFirstStreamGetsTheHeldValues() async throws {
        let world = restoredWorld(waking: [0x01])
        let (connection, status) = try await attach(world)
        var first = (await connection.valueUpdates(for: status, buffering: .oldest(16))).makeAsyncIterator()
        var second = (await connection.valueUpdates(for: status, buffering: .oldest(16))).makeAsyncIterator()
        world.peripheral.notify([0x02], on: ScenarioProfile.status)
        #expect(await first.next() == [0x01])
        #expect(await first.next() == [0x02])
        #expect(await second.next() == [0x02])
    }

    @Test func heldValuesAreBoundedAndTheDroppedOnesCounted() async throws {
        let world = restoredWorld()
        await world.start()
        for index in 0..<70 { world.peripheral.notify([UInt8(index)], on: ScenarioProfile.status) }
        let (connection, status) = try await attach(world)
        var updates = (await connection.valueUpdates(for: status, buffering: .oldest(128))).makeAsyncIterator()
        for index in 6..<70 { #expect(await updates.next() == [UInt8(index)]) }
        #expect(world.backend.droppedRestoredValueCount == 70 - 64)
    }

    @Test func aRestoredConnectionIsUsableWithoutConnectingAgain() async throws {
        let world = restoredWorld()
        let (connection, status) = try await attach(world)
        #expect(try await connection.read(status, timeout: timeout) == ScenarioProfile.statusInitial)
        #expect(!world.central.calls.contains(.connect(world.peripheral.identifier)))
    }
}
