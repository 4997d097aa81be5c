import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldCoreBluetooth
import HaraldScenarioSuite
import Testing

@Suite("CoreBluetooth backend: attribute identities", CoreBluetoothRules())
struct AttributeIdentityTests {
    let timeout = Duration.seconds(10)

    static let serviceCount = 30
    static let characteristicCount = 100
    static let descriptorCount = 10
    static let (lastService, lastCharacteristic, lastDescriptor) = (serviceCount - 1, characteristicCount - 1, descriptorCount - 1)

    /// 30 services × 100 characteristics × 10 descriptors: 36,030 handles, over half of the
    /// 65,535 a GATT database can have. Every service has the same 100 characteristic UUIDs and
    /// every characteristic the same 10 descriptor UUIDs, so only their identities tell them
    /// apart; each value names its position.
    static var largeGATT: FakeGATT {
        FakeGATT(
            services: (0..<serviceCount).map { service in
                FakeGATT.Service(
                    uuid: uuid(0x5E, service),
                    characteristics: (0..<characteristicCount).map { characteristic in
                        FakeGATT.Characteristic(
                            uuid: uuid(0xC4, characteristic), properties: .read | .write | .notify, value: value(service, characteristic),
                            descriptors: (0..<descriptorCount).map { descriptor in
                                FakeGATT.Descriptor(uuid: uuid(0xDE, descriptor), value: Data(value(service, characteristic, descriptor)))
                            })
                    })
            })
    }

    static func uuid(_ kind: UInt64, _ index: Int) -> BluetoothUUID {
        BluetoothUUID(high: 0x4841_5241_4C44_0000 | kind, low: UInt64(index))
    }

    static func value(_ service: Int, _ characteristic: Int, _ descriptor: Int? = nil) -> [UInt8] {
        [UInt8(service), UInt8(characteristic)] + (descriptor.map { [UInt8($0)] } ?? [])
    }

    @Test(.timeLimit(.minutes(2)))
    func aLargeDatabaseIsDiscoveredWholeAndItsLastAttributesReachTheirOwnObjects() async throws {
        let world = FakeWorld.make(gatt: Self.largeGATT)
        let connection = try await world.backend.connect(to: world.identifier, timeout: timeout)
        let services = try await connection.discoverServices(nil, timeout: timeout)
        let characteristics = try await connection.discoverCharacteristics(ofAll: services, timeout: timeout)
        let descriptors = try await connection.discoverDescriptors(ofAll: characteristics.flatMap { $0 }, timeout: timeout)
        #expect(services.count == Self.serviceCount)
        #expect(characteristics.allSatisfy { $0.count == Self.characteristicCount })
        #expect(descriptors.count == Self.serviceCount * Self.characteristicCount)
        #expect(descriptors.allSatisfy { $0.count == Self.descriptorCount })
        let identities: [AttributeID] = services.map(\.id) + characteristics.joined().map(\.id) + descriptors.joined().map(\.id)
        let attributeCount = Self.serviceCount * (1 + Self.characteristicCount * (1 + Self.descriptorCount))
        #expect(Set(identities).count == attributeCount, "every attribute has its own identity")

        let last = try #require(characteristics.last?.last)
        let lastDescriptor = try #require(descriptors.last?.last)
        #expect(last.service == Self.uuid(0x5E, Self.lastService) && lastDescriptor.characteristicID == last.id)
        // The same UUIDs in the first service: an operation must not land there.
        let twin = characteristics[0][Self.lastCharacteristic]
        let lastObject = world.peripheral.database[Self.lastService].allCharacteristics[Self.lastCharacteristic]
        let twinObject = world.peripheral.database[0].allCharacteristics[Self.lastCharacteristic]
        let lock = world.peripheral.lock

        #expect(try await connection.read(last, timeout: timeout) == Self.value(Self.lastService, Self.lastCharacteristic))
        #expect(
            try await connection.readDescriptor(lastDescriptor, timeout: timeout) == Self.value(Self.lastService, Self.lastCharacteristic, Self.lastDescriptor))

        try await connection.write([0xAB], to: last, kind: .withResponse, timeout: timeout)
        #expect(lock.withLock { lastObject.storedValue } == [0xAB])
        #expect(lock.withLock { twinObject.storedValue } == Self.value(0, Self.lastCharacteristic))

        try await connection.writeDescriptor([0xCD], to: lastDescriptor, timeout: timeout)
        #expect(lock.withLock { lastObject.allDescriptors[Self.lastDescriptor].storedValue as? Data } == Data([0xCD]))
        #expect(
            lock.withLock { twinObject.allDescriptors[Self.lastDescriptor].storedValue as? Data }
                == Data(Self.value(0, Self.lastCharacteristic, Self.lastDescriptor)))

        var lastUpdates = (await connection.valueUpdates(for: last, buffering: .oldest(16))).makeAsyncIterator()
        var twinUpdates = (await connection.valueUpdates(for: twin, buffering: .oldest(16))).makeAsyncIterator()
        try await connection.setNotifications(true, for: last, timeout: timeout)
        #expect(lock.withLock { (lastObject.notifying, twinObject.notifying) } == (true, false))
        try await connection.setNotifications(true, for: twin, timeout: timeout)
        world.peripheral.notify([0x02], on: twinObject)
        world.peripheral.notify([0x01], on: lastObject)
        #expect(await lastUpdates.next() == [0x01])
        #expect(await twinUpdates.next() == [0x02])

        await connection.disconnect()
        #expect(world.backend.pendingOperationCount == 0)
    }

    /// Every identity discovered on `connection`, and its characteristics.
    private func discoverAll(on connection: any ConnectionBackend) async throws -> (identities: [AttributeID], characteristics: [DiscoveredCharacteristic]) {
        let services = try await connection.discoverServices(nil, timeout: timeout)
        let characteristics = try await connection.discoverCharacteristics(ofAll: services, timeout: timeout).flatMap { $0 }
        let descriptors = try await connection.discoverDescriptors(ofAll: characteristics, timeout: timeout).joined()
        return (services.map(\.id) + characteristics.map(\.id) + descriptors.map(\.id), characteristics)
    }

    @Test(arguments: [false, true])
    func identitiesAreNotReusedAcrossReconnection(peerDisconnects: Bool) async throws {
        let world = FakeWorld.make()
        let first = try await world.backend.connect(to: world.identifier, timeout: timeout)
        let before = try await discoverAll(on: first)
        if peerDisconnects { world.central.dropConnection(world.peripheral) } else { await first.disconnect() }
        let second = try await world.backend.connect(to: world.identifier, timeout: timeout)
        // The same objects in the same order: stand-in handles would have come out the same.
        let after = try await discoverAll(on: second)
        #expect(after.identities.count == before.identities.count)
        #expect(Set(after.identities).isDisjoint(with: before.identities))
        let stale = try #require(before.characteristics.first { $0.uuid == ScenarioProfile.setting })
        do {
            _ = try await second.read(stale, timeout: timeout)
            Issue.record("an identity from the first connection reached an attribute on the second")
        } catch {
            guard case .notFound = error else { throw error }
        }
        #expect(world.peripheral.received.filter { $0 == .read(ScenarioProfile.setting) }.isEmpty)
    }

    @Test func invalidationRetiresOnlyTheInvalidatedServicesIdentities() async throws {
        let world = FakeWorld.make()
        let connection = try await world.backend.connect(to: world.identifier, timeout: timeout)
        let before = try await discoverAll(on: connection)
        let battery = try #require(before.characteristics.first { $0.uuid == BluetoothUUID(0x2A19) })
        let status = try #require(before.characteristics.first { $0.uuid == ScenarioProfile.status })
        world.peripheral.invalidate([ScenarioProfile.service])
        #expect(try await connection.read(battery, timeout: timeout) == [88], "the other service keeps its identities")
        do {
            _ = try await connection.read(status, timeout: timeout)
            Issue.record("an invalidated characteristic was still reachable")
        } catch {
            guard case .notFound = error else { throw error }
        }
        let again = try await discoverAll(on: connection)
        let newStatus = try #require(again.characteristics.first { $0.uuid == ScenarioProfile.status })
        #expect(!before.identities.contains(newStatus.id))
        #expect(again.characteristics.first { $0.uuid == BluetoothUUID(0x2A19) }?.id == battery.id)
        #expect(try await connection.read(newStatus, timeout: timeout) == ScenarioProfile.statusInitial)
    }
}
