import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldGATTLink
import HaraldSimulator
import HaraldTestSupport
import Testing

/// The Database Hash characteristic (0x2B2A) of Harald's servers (Core spec Vol 3 Part G §7.3).
@Suite("Database Hash")
struct DatabaseHashTests {
    /// Battery (0x180F) with Battery Level (read, notify), then the Generic Attribute service a
    /// peripheral's server adds: Service Changed and Database Hash.
    static let battery = GATTServiceDefinition(
        uuid: BluetoothUUID(0x180F),
        characteristics: [
            GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: [.read, .notify], value: [50])
        ])

    static func database() throws -> GATTDatabase {
        try GATTDatabase(services: [battery, GATTGenericAttributeService.definition(withDatabaseHash: true)])
    }

    @Test func theMessageHoldsDeclarationsWithTheirValuesAndCCCDsWithoutTheirs() throws {
        let expected = try [UInt8](
            hex: "010000280f18"  // 0x0001 Primary Service: Battery
                + "02000328120300192a"  // 0x0002 Characteristic: read|notify, 0x0003, Battery Level (0x0003's value is left out)
                + "04000229"  // 0x0004 CCCD: handle and type only
                + "050000280118"  // 0x0005 Primary Service: Generic Attribute
                + "06000328200700052a"  // 0x0006 Characteristic: indicate, 0x0007, Service Changed
                + "08000229"  // 0x0008 CCCD
                + "09000328020a002a2b")  // 0x0009 Characteristic: read, 0x000A, Database Hash
        #expect(try Self.database().databaseHashMessage == expected)
    }

    /// The expected value is Bumble 0.0.236's `crypto.aes_cmac(m, bytes(16))` of the message
    /// above, reversed into the little-endian order the hash is sent in.
    @Test func theHashIsTheZeroKeyCMACOfTheMessageSentLittleEndian() throws {
        let hash = try Self.database().databaseHash(using: GATTDatabaseHashing.aesCMAC)
        #expect(hash.hexString == "c97d6ccd3bdd6b44c11ca5622c3bae2d")
    }

    @Test func aServerConfiguredForItServesTheHashOfItsOwnLayout() async throws {
        // A clock that never moves on its own: no ATT timeout can fire however slow the machine.
        let clock = ManualClock()
        let server = try GATTServer(services: [Self.battery], clock: clock, configuration: .peripheral)
        let database = await server.database
        let entry = try #require(database.characteristics.first { $0.characteristic.uuid == GATTGenericAttributeService.databaseHash })
        let (central, peripheral) = ATTMemoryBearer.pair()
        let connection = await server.attach(peripheral)
        let client = GATTClient(bearer: central, clock: clock)
        let read = try await client.read(handle: entry.characteristic.valueHandle)
        #expect(read == database.databaseHash(using: GATTDatabaseHashing.aesCMAC))
        #expect(read.hexString == "c97d6ccd3bdd6b44c11ca5622c3bae2d")
        await server.disconnect(connection)
    }

    @Test func aServerWithoutAHashFunctionHasNoDatabaseHash() async throws {
        let server = try GATTServer(services: [Self.battery])
        let uuids = await server.database.characteristics.map(\.characteristic.uuid)
        #expect(uuids.contains(GATTGenericAttributeService.serviceChanged))
        #expect(!uuids.contains(GATTGenericAttributeService.databaseHash))
    }

    /// A central of a served definition reads the hash; writing a value leaves it, changing the
    /// services changes it.
    @Test func theServedHashFollowsTheLayoutAndNotTheValues() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let address = BluetoothAddress("C2:00:00:00:00:05", kind: .random)!
        let (first, afterWrite, afterChange) = try await simulation.run {
            let simulator = try Simulator(clock: clock, devices: [])
            let definition = PeripheralDefinition(advertisement: PeripheralAdvertisement(name: "Hashed")) {
                ServiceDefinition(BluetoothUUID(0x180F)) {
                    CharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: [.read, .write], value: [50])
                }
            }
            let served = try await ServedPeripheral.start(definition, on: simulator.peripheralBackend(at: address))
            let central = Central(backend: simulator.backend, clock: clock)
            let connection = try await central.connect(to: PeripheralIdentifier(address: address), timeout: .seconds(5))
            let hash = try await connection.characteristic(GATTGenericAttributeService.databaseHash, service: GATTGenericAttributeService.uuid)
            let first = try await connection.readRaw(hash)
            try await connection.writeRaw(
                [7], to: try await connection.characteristic(BluetoothUUID(0x2A19), service: BluetoothUUID(0x180F)), kind: .withResponse)
            let afterWrite = try await connection.readRaw(hash)
            try await served.changeServices(adding: [ServiceDefinition(uuid: BluetoothUUID(0x181C), characteristics: [])])
            let moved = try await connection.characteristic(GATTGenericAttributeService.databaseHash, service: GATTGenericAttributeService.uuid)
            let afterChange = try await connection.readRaw(moved)
            await connection.disconnect()
            await served.stop()
            return (first, afterWrite, afterChange)
        }
        #expect(first.count == 16)
        #expect(afterWrite == first)
        #expect(afterChange.count == 16 && afterChange != first)
    }
}
