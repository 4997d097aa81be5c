import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldTestSupport
import Testing

/// A server with its Generic Attribute service and two clients: `watching` turned the Service
/// Changed indications on, `unaware` did not.
private struct ChangingServer {
    let server: GATTServer
    let watching: GATTClient
    let unaware: GATTClient
    let watchingConnection: GATTConnectionID
    let unawareConnection: GATTConnectionID
    /// The ranges `watching` was told about, in order.
    let changes = Locked<[ATTHandleRange]>([])

    init(services: [GATTServiceDefinition] = SampleDevice.services) async throws {
        let clock = ManualClock()
        server = try GATTServer(services: services, clock: clock)
        let (centralA, peripheralA) = ATTMemoryBearer.pair()
        let (centralB, peripheralB) = ATTMemoryBearer.pair()
        watchingConnection = await server.attach(peripheralA)
        unawareConnection = await server.attach(peripheralB)
        watching = GATTClient(bearer: centralA, clock: clock)
        unaware = GATTClient(bearer: centralB, clock: clock)
        let changes = self.changes
        await watching.observeDatabaseChanges { range in changes.withLock { $0.append(range) } }
        try await watching.watchServiceChanged()
    }

    func service(_ uuid: BluetoothUUID) async throws -> GATTService {
        try #require(await server.database.services.first { $0.uuid == uuid })
    }
}

private let extra = GATTServiceDefinition(
    uuid: BluetoothUUID(0x181C),
    characteristics: [
        GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A8A), properties: [.read, .notify], value: Array("Ada".utf8))
    ])

@Suite("GATT server: Service Changed")
struct ServiceChangedServerTests {
    @Test func aServerWithoutAGenericAttributeServiceGetsOneAfterItsLastAttribute() async throws {
        let exact = try GATTDatabase(services: SampleDevice.services)
        let server = try GATTServer(services: SampleDevice.services)
        let database = await server.database
        #expect(database.services.dropLast() == exact.services[...])
        let added = try #require(database.services.last)
        #expect(added.uuid == GATTGenericAttributeService.uuid)
        #expect(added.handles.start == exact.lastHandle + 1)
        let serviceChanged = try #require(database.characteristic(GATTGenericAttributeService.serviceChanged, in: added.uuid))
        #expect(serviceChanged.properties == .indicate)
        #expect(database.serviceChanged == GATTServiceChangedHandles(valueHandle: serviceChanged.valueHandle, cccdHandle: serviceChanged.valueHandle + 1))
    }

    @Test func aDatabaseThatHasAGenericAttributeServiceIsServedAsDefined() async throws {
        let definitions = [GATTGenericAttributeService.definition] + SampleDevice.services
        let server = try GATTServer(services: definitions)
        #expect(await server.database.services == (try GATTDatabase(services: definitions)).services)
    }

    @Test func theServiceChangedValueIsNotReadable() async throws {
        let link = try await Link(services: SampleDevice.services, serverConfiguration: .init())
        let handles = try #require(await link.database.serviceChanged)
        await #expect(throws: GATTError.attribute(.readNotPermitted, handle: handles.valueHandle, request: .readRequest)) {
            _ = try await link.client.read(handle: handles.valueHandle)
        }
    }

    @Test func anAddedServiceGoesAfterTheLastAttributeAndItsRangeIsIndicated() async throws {
        let world = try await ChangingServer()
        let lastBefore = await world.server.database.lastHandle
        let added = try await world.server.addService(extra)
        #expect(added.handles.start == lastBefore + 1)
        #expect(added.handles.end == lastBefore + 4)  // declaration, characteristic, value, CCCD
        #expect(world.changes.value == [added.handles])
        let found = try await world.watching.discoverPrimaryServices(uuid: extra.uuid)
        #expect(found.map(\.handles) == [added.handles])
    }

    @Test func onlyClientsThatEnabledTheIndicationAreSentIt() async throws {
        let world = try await ChangingServer()
        try await world.server.addService(extra)
        let toWatching = await world.server.counters(for: world.watchingConnection)
        let toUnaware = await world.server.counters(for: world.unawareConnection)
        #expect(toWatching?.pdusSent[.handleValueIndication] == 1)
        #expect(toUnaware?.pdusSent[.handleValueIndication] == nil)
    }

    @Test func theIndicationIsConfirmedBeforeTheChangeReturns() async throws {
        let world = try await ChangingServer()
        try await world.server.addService(extra)
        let counters = await world.server.counters(for: world.watchingConnection)
        #expect(counters?.roundTrips[.handleValueIndication] == 1)
        #expect(await world.watching.counters.pdusSent[.handleValueConfirmation] == 1)
    }

    @Test func theIndicationCarriesTheFirstAndLastChangedHandleLittleEndian() async throws {
        let world = try await ChangingServer()
        let handles = try #require(await world.server.database.serviceChanged)
        let subscription = await world.watching.subscribe(handle: handles.valueHandle)
        let added = try await world.server.addService(extra)
        var values = subscription.values.makeAsyncIterator()
        let indication = try #require(await values.next())
        #expect(indication.isIndication)
        #expect(
            indication.value == [
                UInt8(added.handles.start & 0xFF), UInt8(added.handles.start >> 8), UInt8(added.handles.end & 0xFF), UInt8(added.handles.end >> 8),
            ])
    }

    @Test func removingAServiceLeavesEveryOtherHandleWhereItWas() async throws {
        let world = try await ChangingServer()
        let heartRate = try await world.service(BluetoothUUID(0x180D))
        let before = await world.server.database.services.filter { $0 != heartRate }
        let range = await world.server.removeServices(BluetoothUUID(0x180D))
        #expect(range == heartRate.handles)
        #expect(world.changes.value == [heartRate.handles])
        #expect(try await world.watching.discoverPrimaryServices() == before)
    }

    @Test func replacingAServiceIndicatesOneRangeFromItsOldStartToItsNewEnd() async throws {
        let world = try await ChangingServer()
        let battery = try await world.service(BluetoothUUID(0x180F))
        let replacement = GATTServiceDefinition(
            uuid: BluetoothUUID(0x180F),
            characteristics: [
                GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: .read, value: [12])
            ])
        let range = try await world.server.replaceServices([BluetoothUUID(0x180F)], with: [replacement])
        let moved = try await world.service(BluetoothUUID(0x180F))
        #expect(moved.handles.start > battery.handles.end)
        #expect(range == ATTHandleRange(start: battery.handles.start, end: moved.handles.end))
        #expect(world.changes.value == [try #require(range)])
    }

    @Test func theCCCDsOfARemovedCharacteristicAreForgotten() async throws {
        let world = try await ChangingServer()
        let database = await world.server.database
        let level = try #require(database.characteristic(BluetoothUUID(0x2A19))).valueHandle
        try await world.unaware.configureNotifications(cccdHandle: try #require(database.clientConfigurationHandle(forValueHandle: level)), .notifications)
        await world.server.removeServices(BluetoothUUID(0x180F))
        #expect(await world.server.clientConfiguration(valueHandle: level, connection: world.unawareConnection) == [])
        #expect(await world.server.notify(handle: level, value: [1]) == 0)
    }

    @Test func aServiceAddedOnTheHandlesOfARemovedOneStartsWithNoClientConfiguration() async throws {
        // The battery service is last, so removing it frees its handles for the next service.
        let battery = GATTServiceDefinition(
            uuid: BluetoothUUID(0x180F),
            characteristics: [
                GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: [.read, .notify], value: [85])
            ])
        let world = try await ChangingServer(services: [GATTGenericAttributeService.definition, battery])
        let before = await world.server.database
        let level = try #require(before.characteristic(BluetoothUUID(0x2A19))).valueHandle
        let cccd = try #require(before.clientConfigurationHandle(forValueHandle: level))
        try await world.unaware.configureNotifications(cccdHandle: cccd, .notifications)
        try await world.server.replaceServices([BluetoothUUID(0x180F)], with: [extra])
        let after = await world.server.database
        let reused = try #require(after.characteristic(BluetoothUUID(0x2A8A))).valueHandle
        #expect(after.clientConfigurationHandle(forValueHandle: reused) == cccd)
        #expect(await world.server.clientConfiguration(valueHandle: reused, connection: world.unawareConnection) == [])
        #expect(await world.server.notify(handle: reused, value: [1]) == 0)
    }

    @Test func aChangeThatCannotBeLaidOutChangesNothingAndIndicatesNothing() async throws {
        let world = try await ChangingServer()
        let before = await world.server.database.services
        let heartRate = try await world.service(BluetoothUUID(0x180D))
        let including = GATTServiceDefinition(uuid: BluetoothUUID(0x181C), includes: [BluetoothUUID(0x1234)], characteristics: [])
        await #expect(throws: GATTDatabaseError.unknownIncludedService(BluetoothUUID(0x1234))) {
            try await world.server.changeServices(removing: [heartRate], adding: [including])
        }
        #expect(await world.server.database.services == before)
        #expect(world.changes.value.isEmpty)
    }

    @Test func aChangeOfNothingIndicatesNothing() async throws {
        let world = try await ChangingServer()
        #expect(try await world.server.changeServices() == nil)
        #expect(await world.server.removeServices(BluetoothUUID(0x1234)) == nil)
        #expect(world.changes.value.isEmpty)
    }
}
