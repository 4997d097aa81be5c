import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldCoreBluetooth
import Testing

/// Changing a served definition's services on the CoreBluetooth peripheral backend: CoreBluetooth
/// publishes the change (and tells centrals itself); the backend keeps what stays.
@Suite("CoreBluetooth peripheral backend: changing services", CoreBluetoothRules(), .timeLimit(.minutes(1)))
struct PeripheralServiceChangeTests {
    static let extra = BluetoothUUID(0xFFA0)
    static let extraValue = BluetoothUUID(0xFFA1)
    static let battery = BluetoothUUID(0x180F)
    static let level = BluetoothUUID(0x2A19)

    /// The test device plus a battery service whose level notifies.
    static var definition: PeripheralDefinition {
        var definition = TestDevice.definition()
        definition.services.append(
            ServiceDefinition(
                uuid: battery,
                characteristics: [
                    CharacteristicDefinition(uuid: level, properties: [.read, .notify], value: [80])
                ]))
        return definition
    }

    static let added = ServiceDefinition(uuid: extra, characteristics: [CharacteristicDefinition(uuid: extraValue, properties: [.read, .write], value: [5])])

    @Test func removedServicesLeaveCoreBluetoothAndAddedOnesArePublishedAndServed() async throws {
        let (manager, backend) = FakePeripheralManager.make()
        let serving = try await backend.serve(Self.definition)
        try await serving.changeServices(removing: [Self.battery], adding: [Self.added])
        #expect(manager.published.map(\.uuid.value) == [TestDevice.service, Self.extra])
        let phone = FakeRemoteCentral()
        #expect(await manager.write([(Self.extraValue, 0, [6])], by: phone) == 0)
        #expect(await manager.read(Self.extraValue, by: phone).value == [6])
        await serving.stop()
    }

    @Test func whatStaysKeepsItsValueAndItsSubscribers() async throws {
        let (manager, backend) = FakePeripheralManager.make()
        let serving = try await backend.serve(Self.definition)
        let phone = FakeRemoteCentral()
        #expect(await manager.write([(TestDevice.setting, 0, [9])], by: phone) == 0)
        manager.subscribe(phone, to: TestDevice.stream)
        try await serving.changeServices(removing: [Self.battery], adding: [Self.added])
        #expect(await manager.read(TestDevice.setting, by: phone).value == [9])
        #expect(try await serving.notify([1, 2], characteristic: TestDevice.stream, service: TestDevice.service, to: nil) == 1)
        await serving.stop()
    }

    @Test func subscriptionsToARemovedCharacteristicAreReportedEnded() async throws {
        let (manager, backend) = FakePeripheralManager.make()
        let serving = try await backend.serve(Self.definition)
        let events = serving.events()
        let phone = FakeRemoteCentral()
        let id = CentralIdentifier(rawValue: phone.identifier.uuidString)
        manager.subscribe(phone, to: Self.level)
        try await serving.changeServices(removing: [Self.battery], adding: [])
        var seen: [PeripheralEvent] = []
        for await event in events {
            seen.append(event)
            if seen.count == 2 { break }
        }
        #expect(
            seen == [
                .subscriptionChanged(id, characteristic: Self.level, notifying: true), .subscriptionChanged(id, characteristic: Self.level, notifying: false),
            ])
        #expect(await serving.centrals() == [])
        await #expect(throws: BluetoothError.self) {
            try await serving.notify([1], characteristic: Self.level, service: Self.battery, to: nil)
        }
        await serving.stop()
    }

    @Test func aNotificationWaitingForRoomOnARemovedCharacteristicReachesNoOne() async throws {
        let (manager, backend) = FakePeripheralManager.make()
        let serving = try await backend.serve(Self.definition)
        let phone = FakeRemoteCentral()
        manager.subscribe(phone, to: Self.level)
        manager.setRoom(false)
        let waiting = Task { try await serving.notify([42], characteristic: Self.level, service: Self.battery, to: nil) }
        await until { manager.refusedUpdateCount == 1 }
        try await serving.changeServices(removing: [Self.battery], adding: [])
        #expect(try await waiting.value == 0)
        #expect(backend.pendingOperationCount == 0)
        await serving.stop()
    }
}
