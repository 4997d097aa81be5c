import Foundation
@testable import Harald
import HaraldCodec
import HaraldCoreBluetooth
import HaraldScenarioSuite
import Testing

@Suite("CoreBluetooth backend: Service Changed", CoreBluetoothRules(), .timeLimit(.minutes(1)))
struct ServiceChangeTests {
    let timeout = Duration.seconds(10)

    func profile(_ world: FakeWorld) async throws -> (BackendProfile, CoreBluetoothConnection<FakeCentral>) {
        let profile = try await world.backend.connectToProfile(world)
        return (profile, try #require(profile.connection as? CoreBluetoothConnection<FakeCentral>))
    }

    @Test func valueStreamsOfAnInvalidatedServiceEndWithServiceChangedNamingTheCharacteristic() async throws {
        let world = FakeWorld.make()
        let (profile, _) = try await profile(world)
        let status = profile[ScenarioProfile.status]
        let updates = await profile.connection.valueUpdates(for: status, buffering: .oldest(16))
        world.peripheral.invalidate([ScenarioProfile.service])
        for await _ in updates {}
        #expect(updates.endError == .serviceChanged(status.id))
    }

    @Test func valueStreamsOfOtherServicesGoOn() async throws {
        let world = FakeWorld.make()
        let connection = try await world.backend.connect(to: world.identifier, timeout: timeout)
        let services = try await connection.discoverServices(nil, timeout: timeout)
        let battery = try #require(try await connection.discoverCharacteristics(nil, of: services[0], timeout: timeout).first)
        _ = try await connection.discoverCharacteristics(nil, of: services[1], timeout: timeout)
        var updates = (await connection.valueUpdates(for: battery, buffering: .oldest(16))).makeAsyncIterator()
        try await connection.setNotifications(true, for: battery, timeout: timeout)
        world.peripheral.invalidate([ScenarioProfile.service])
        world.peripheral.notify([77], on: BluetoothUUID(0x2A19))
        #expect(await updates.next() == [77])
    }

    @Test func serviceChangesReportsTheInvalidatedServicesAfterEndingTheirStreams() async throws {
        let world = FakeWorld.make()
        let (profile, connection) = try await profile(world)
        let service = try #require(try await connection.discoverServices([ScenarioProfile.service], timeout: timeout).first)
        let updates = await connection.valueUpdates(for: profile[ScenarioProfile.status], buffering: .oldest(16))
        var changes = connection.serviceChanges().makeAsyncIterator()
        world.peripheral.invalidate([ScenarioProfile.service])
        let change = try #require(await changes.next())
        #expect(change == ServiceChange(handles: nil, services: [service.id]))
        #expect(updates.endError != nil, "the stream ended before the change was reported")
    }

    @Test func everyServiceChangesStreamGetsTheChange() async throws {
        let world = FakeWorld.make()
        let (_, connection) = try await profile(world)
        var first = connection.serviceChanges().makeAsyncIterator()
        var second = connection.serviceChanges().makeAsyncIterator()
        world.peripheral.invalidate([ScenarioProfile.service])
        #expect(await first.next()?.services.count == 1)
        #expect(await second.next()?.services.count == 1)
    }

    @Test func serviceChangesFinishesWhenTheConnectionEnds() async throws {
        let world = FakeWorld.make()
        let (_, connection) = try await profile(world)
        var changes = connection.serviceChanges().makeAsyncIterator()
        world.central.dropConnection(world.peripheral)
        #expect(await changes.next() == nil)
        #expect(world.backend.liveStreamCount == 0)
    }

    @Test func serviceChangesOfAnEndedConnectionFinishesAtOnce() async throws {
        let world = FakeWorld.make()
        let (_, connection) = try await profile(world)
        await connection.disconnect()
        var changes = connection.serviceChanges().makeAsyncIterator()
        #expect(await changes.next() == nil)
    }
}
