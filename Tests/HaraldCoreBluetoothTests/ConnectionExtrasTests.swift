import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldCoreBluetooth
import HaraldScenarioSuite
import Testing

@Suite("CoreBluetooth backend: RSSI, names, connected peripherals, the peripheral object, long writes", CoreBluetoothRules(), .timeLimit(.minutes(1)))
struct ConnectionExtrasTests {
    let timeout = Duration.seconds(10)

    func connect(_ world: FakeWorld) async throws -> CoreBluetoothConnection<FakeCentral> {
        try #require(try await world.backend.connect(to: world.identifier, timeout: timeout) as? CoreBluetoothConnection<FakeCentral>)
    }

    @Test func readRSSIReadsTheLinksSignalStrength() async throws {
        let world = FakeWorld.make()
        world.peripheral.lock.withLock { world.peripheral.rssi = -47 }
        let connection = try await world.backend.connect(to: world.identifier, timeout: timeout)
        #expect(try await connection.readRSSI(timeout: timeout) == RSSI(dBm: -47))
        #expect(world.peripheral.received.last == .readRSSI)
    }

    @Test func nameUpdatesDeliverEachNewNameUntilTheConnectionEnds() async throws {
        let world = FakeWorld.make()
        let connection = try await connect(world)
        var names = connection.nameUpdates().makeAsyncIterator()
        world.peripheral.rename("Kitchen")
        world.peripheral.rename("Hall")
        #expect(await names.next() == "Kitchen")
        #expect(await names.next() == "Hall")
        world.central.dropConnection(world.peripheral)
        #expect(await names.next() == nil)
    }

    @Test func retrieveConnectedPeripheralsReturnsThoseOfferingTheServices() async throws {
        let world = FakeWorld.make()
        let other = world.central.makePeripheral(name: "Other", gatt: FakeGATT(services: [.init(uuid: BluetoothUUID(0x1812), characteristics: [])]))
        world.central.connectedToSystem = [world.peripheral, other]
        let found = try await world.backend.retrieveConnectedPeripherals(withServices: [ScenarioProfile.service])
        #expect(found == [world.identifier])
        #expect(world.central.calls == [.retrieveConnected([ScenarioProfile.service])])
        _ = try await world.backend.connect(to: world.identifier, timeout: timeout)
        #expect(!world.central.calls.contains(.retrieve([world.peripheral.identifier])), "the retrieved peripheral is known")
    }

    @Test func retrieveConnectedPeripheralsFailsAtOnceOnAnUnauthorizedRadio() async {
        let world = FakeWorld.make(poweredOn: false)
        world.central.setRadio(.unauthorized)
        await world.start()
        await #expect(throws: BluetoothError.radioUnavailable(.unauthorized)) {
            _ = try await world.backend.retrieveConnectedPeripherals(withServices: [ScenarioProfile.service])
        }
    }

    @Test func withPeripheralRunsItsBodyOnCoreBluetoothsQueueWithTheConnectionsPeripheral() async throws {
        let world = FakeWorld.make()
        let connection = try await connect(world)
        let system = world.central.system
        let (onQueue, identifier) = try await connection.withPeripheral { peripheral in (system.isOnQueue, peripheral.identifier) }
        #expect(onQueue)
        #expect(identifier == world.peripheral.identifier)
    }

    @Test func withPeripheralFailsOnceTheConnectionEnded() async throws {
        let world = FakeWorld.make()
        let connection = try await connect(world)
        world.central.dropConnection(world.peripheral)
        await #expect(throws: BluetoothError.disconnected(.remoteRequest)) {
            _ = try await connection.withPeripheral { _ in true }
        }
    }

    @Test func aWriteWithoutResponseLongerThanOnePacketFailsAndSendsNothing() async throws {
        let world = FakeWorld.make()
        let profile = try await world.backend.connectToProfile(world)
        let limit = await profile.connection.maximumWriteLength(for: .withoutResponse)
        let stream = profile[ScenarioProfile.stream]
        await #expect(
            throws: BluetoothError.misuse(
                "a write without response carries at most 20 bytes on this connection (maximumWriteLength), this value has 21: split it, or write with response"
            )
        ) {
            try await profile.connection.write([UInt8](repeating: 1, count: limit + 1), to: stream, kind: .withoutResponse, timeout: timeout)
        }
        #expect(FakeScenarioPeer(world: world).writesWithoutResponse(to: ScenarioProfile.stream).isEmpty)
        try await profile.connection.write([UInt8](repeating: 2, count: limit), to: stream, kind: .withoutResponse, timeout: timeout)
        #expect(FakeScenarioPeer(world: world).writesWithoutResponse(to: ScenarioProfile.stream) == [[UInt8](repeating: 2, count: limit)])
    }
}

@Suite("CoreBluetooth backend: authorization", .serialized, CoreBluetoothRules())
struct AuthorizationTests {
    @Test(arguments: [
        (FakeAuthorization.notDetermined, CoreBluetoothAuthorization.notDetermined), (.restricted, .restricted), (.denied, .denied),
        (.allowedAlways, .allowedAlways),
    ])
    func authorizationMapsCoreBluetoothsValue(_ value: FakeAuthorization, _ expected: CoreBluetoothAuthorization) {
        FakeCentral.setAuthorization(value)
        defer { FakeCentral.setAuthorization(.allowedAlways) }
        #expect(FakeWorld.make().backend.authorization == expected)
    }

    @Test func authorizationUpdatesFollowTheStateUpdates() async {
        FakeCentral.setAuthorization(.notDetermined)
        defer { FakeCentral.setAuthorization(.allowedAlways) }
        let world = FakeWorld.make(poweredOn: false)
        var updates = world.backend.authorizationUpdates().makeAsyncIterator()
        #expect(await updates.next() == .notDetermined)
        await world.start()
        FakeCentral.setAuthorization(.denied)
        world.central.setRadio(.unauthorized)
        #expect(await updates.next() == .denied)
    }
}
