import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldSimulator
import Testing

/// GATT procedures that the ATT tests run over an in-memory bearer, run here between Harald's
/// client and a virtual peripheral's server over the simulator's link model (connection events,
/// packet slots, segmentation at 27-byte link-layer packets).
@Suite("Client procedures against a virtual peripheral over the simulated link")
struct ProceduresOverTheLinkTests {
    static let vendorService: BluetoothUUID = "9A3F0001-2B1C-4D5E-8F60-718293A4B5C6"
    static let longWritable = BluetoothUUID(0xFFE1)
    static let indicated = BluetoothUUID(0xFFE2)

    /// A primary service that includes two secondary ones (one with a 16-bit UUID, one with a
    /// 128-bit UUID) and holds a long writable value, an indicated value and a second Battery
    /// Level, so that Battery Level appears twice in the database.
    static let device = VirtualPeripheral(
        address: BluetoothAddress("B0:00:00:00:00:07", kind: .random)!, advertisingData: .device(name: "Procedures")
    ) { _ in
        PeripheralBehaviour(services: [
            GATTServiceDefinition(
                uuid: BluetoothUUID(0xFFE0), includes: [BluetoothUUID(0x180F), vendorService],
                characteristics: [
                    GATTCharacteristicDefinition(uuid: longWritable, properties: [.read, .write], value: Array("initial".utf8)),
                    GATTCharacteristicDefinition(uuid: indicated, properties: [.indicate]),
                    GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: .read, value: [66]),
                ]),
            GATTServiceDefinition(
                uuid: BluetoothUUID(0x180F), isPrimary: false,
                characteristics: [
                    GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: .read, value: [55])
                ]),
            GATTServiceDefinition(
                uuid: vendorService, isPrimary: false,
                characteristics: [
                    GATTCharacteristicDefinition(uuid: "9A3F0002-2B1C-4D5E-8F60-718293A4B5C6", properties: .read, value: [1, 2, 3])
                ]),
        ])
    }

    /// 100 bytes: six Prepare Writes of ATT_MTU − 5 = 18 bytes at MTU 23.
    static let longValue: [UInt8] = (0..<100).map { UInt8($0) }

    /// Connects at ATT_MTU 23 and runs `body` with the connection the simulator recorded.
    private func withConnection<T: Sendable>(
        _ body: @escaping @Sendable (SimulatedConnection, GATTDatabase) async throws -> T
    ) async throws -> T {
        let simulation = Simulation()
        let device = Self.device
        let simulator = try Simulator(clock: simulation.clock, devices: [device], link: LinkParameters(maximumATTMTU: 23))
        return try await simulation.run {
            _ = try await simulator.backend.connect(to: device.identifier, timeout: .seconds(5))
            let connection = simulator.connection(to: device.address)!
            return try await body(connection, await connection.server.database)
        }
    }

    @Test func aLongWriteIsSentAsPreparedWritesThenOneExecuteWrite() async throws {
        let (stored, roundTrips) = try await withConnection { connection, database in
            let handle = database.characteristic(Self.longWritable)!.valueHandle
            try await connection.client.writeLong(handle: handle, value: Self.longValue)
            return (await connection.server.value(handle: handle), await connection.client.counters.roundTrips)
        }
        #expect(stored == Self.longValue)
        #expect(roundTrips[.prepareWriteRequest] == 6)
        #expect(roundTrips[.executeWriteRequest] == 1)
    }

    @Test func aReliableWriteWhoseEchoesMatchStoresTheValue() async throws {
        let (stored, queued, roundTrips) = try await withConnection { connection, database in
            let handle = database.characteristic(Self.longWritable)!.valueHandle
            try await connection.client.writeLong(handle: handle, value: Self.longValue, reliable: true)
            return (
                await connection.server.value(handle: handle), await connection.server.preparedWriteCount(for: connection.serverConnection),
                await connection.client.counters.roundTrips
            )
        }
        #expect(stored == Self.longValue)
        #expect(queued == 0)
        #expect(roundTrips[.prepareWriteRequest] == 6)
        #expect(roundTrips[.executeWriteRequest] == 1)
    }

    @Test func aReliableWriteWhoseEchoIsCorruptedOnTheLinkIsCancelledAndLeavesTheValue() async throws {
        let (error, handle, stored, queued, pending) = try await withConnection { connection, database in
            let handle = database.characteristic(Self.longWritable)!.valueHandle
            let sent = await connection.statistics.pdusSent[.peripheral]!
            // The second Prepare Write Response: opcode, handle, offset, then the echoed value.
            await connection.inject(LinkFault(from: .peripheral, pduNumber: sent + 2, action: .corrupt(byteIndex: 5, xor: 0xFF)))
            var caught: GATTError?
            do { try await connection.client.writeLong(handle: handle, value: Self.longValue, reliable: true) } catch { caught = error as? GATTError }
            return (
                caught, handle, await connection.server.value(handle: handle),
                await connection.server.preparedWriteCount(for: connection.serverConnection), await connection.client.liveContinuations
            )
        }
        #expect(error == .reliableWriteMismatch(handle: handle, offset: 18))
        #expect(stored == Array("initial".utf8))
        #expect(queued == 0)
        #expect(pending == 0)
    }

    @Test func includedServicesAreFoundWithTheirRangesAndUUIDs() async throws {
        let (included, secondary, reads) = try await withConnection { connection, database in
            let primary = database.services.first { $0.isPrimary }!
            let included = try await connection.client.discoverIncludedServices(of: primary)
            return (included.map(\.service), database.services.filter { !$0.isPrimary }, await connection.client.counters.roundTrips[.readRequest])
        }
        #expect(included == secondary)
        #expect(included.map(\.uuid) == [BluetoothUUID(0x180F), Self.vendorService])
        // The include declaration carries no 128-bit UUID: one Read of that service's declaration.
        #expect(reads == 1)
    }

    @Test func readingByTypeReturnsEveryValueOfThatTypeInOneRoundTrip() async throws {
        let (entries, handles, roundTrips) = try await withConnection { connection, database in
            let before = await connection.client.counters.totalRoundTrips
            let entries = try await connection.client.read(type: BluetoothUUID(0x2A19))
            let handles = database.characteristics.map(\.characteristic).filter { $0.uuid == BluetoothUUID(0x2A19) }.map(\.valueHandle)
            return (entries, handles, await connection.client.counters.totalRoundTrips - before)
        }
        #expect(entries.map(\.handle) == handles)
        #expect(entries.map(\.value) == [[66], [55]])
        #expect(roundTrips == 1)
    }

    @Test func anIndicationReachesTheSubscriberAndTheServerReturnsOnceItIsConfirmed() async throws {
        let (received, handle, confirmed, confirmationsSent) = try await withConnection { connection, database in
            let handle = database.characteristic(Self.indicated)!.valueHandle
            let client = connection.client
            let subscription = await client.subscribe(handle: handle)
            try await client.configureNotifications(cccdHandle: database.clientConfigurationHandle(forValueHandle: handle)!, .indications)
            try await connection.server.indicate(handle: handle, value: [7, 8, 9], connection: connection.serverConnection)
            // Read right as `indicate` returns: the server has already counted the confirmation.
            let confirmed = await connection.server.counters(for: connection.serverConnection)?.roundTrips[.handleValueIndication]
            var values = subscription.values.makeAsyncIterator()
            let received = await values.next()
            return (received, handle, confirmed, await client.counters.pdusSent[.handleValueConfirmation])
        }
        #expect(received == GATTNotification(handle: handle, value: [7, 8, 9], isIndication: true))
        #expect(confirmed == 1)
        #expect(confirmationsSent == 1)
    }
}
