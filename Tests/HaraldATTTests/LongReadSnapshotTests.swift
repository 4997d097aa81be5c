import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldTestSupport
import Testing

/// A long read (a Read Request, then Read Blobs at rising offsets) of a value a read handler
/// produces gets one version of it: the handler runs once, at offset 0, and the Read Blobs of
/// that connection are answered from what it returned, not from a new call each.
@Suite("GATT server: a long read gets one version of a changing value")
struct LongReadSnapshotTests {
    static let changing = BluetoothUUID(0xFF10)

    /// A server whose characteristic `changing` answers each read with 60 bytes, every byte the
    /// number of that handler call (1, 2, …), so parts of different calls show. ATT_MTU 23:
    /// 22 bytes a part.
    struct Device {
        let server: GATTServer
        let calls = Locked(0)
        let handle: UInt16

        init() async throws {
            let calls = self.calls
            let services = [
                GATTServiceDefinition(
                    uuid: BluetoothUUID(0xFF00),
                    characteristics: [
                        GATTCharacteristicDefinition(
                            uuid: LongReadSnapshotTests.changing, properties: [.read, .write],
                            onRead: { _ in
                                let call = calls.withLock { count in
                                    count += 1
                                    return count
                                }
                                return [UInt8](repeating: UInt8(call), count: 60)
                            })
                    ])
            ]
            server = try GATTServer(services: services, clock: ManualClock())
            handle = try #require(await server.database.characteristic(LongReadSnapshotTests.changing)).valueHandle
        }

        func connect() async -> GATTClient {
            let (central, peripheral) = ATTMemoryBearer.pair()
            _ = await server.attach(peripheral)
            return GATTClient(bearer: central, clock: ManualClock())
        }
    }

    @Test func aLongReadOfAValueThatChangesOnEachReadGetsOneVersion() async throws {
        let device = try await Device()
        let client = await device.connect()
        #expect(try await client.readLong(handle: device.handle) == [UInt8](repeating: 1, count: 60))
        #expect(device.calls.withLock { $0 } == 1)
    }

    @Test func aLongReadStartingAgainAtOffsetZeroGetsTheNewVersion() async throws {
        let device = try await Device()
        let client = await device.connect()
        _ = try await client.read(handle: device.handle)
        #expect(try await client.readLong(handle: device.handle) == [UInt8](repeating: 2, count: 60))
    }

    @Test func aValueSetBetweenThePartsOfALongReadIsReadFromThere() async throws {
        let device = try await Device()
        let client = await device.connect()
        #expect(try await client.read(handle: device.handle) == [UInt8](repeating: 1, count: 22))
        await device.server.setValue([9], handle: device.handle)
        #expect(try await client.readBlob(handle: device.handle, offset: 22) == [UInt8](repeating: 2, count: 22))
    }

    @Test func aValueWrittenBetweenThePartsOfALongReadIsReadFromThere() async throws {
        let device = try await Device()
        let client = await device.connect()
        let writer = await device.connect()
        #expect(try await client.read(handle: device.handle) == [UInt8](repeating: 1, count: 22))
        try await writer.write(handle: device.handle, value: [9])
        #expect(try await client.readBlob(handle: device.handle, offset: 22) == [UInt8](repeating: 2, count: 22))
    }

    @Test func eachConnectionsLongReadHasItsOwnVersion() async throws {
        let device = try await Device()
        let first = await device.connect()
        let second = await device.connect()
        #expect(try await first.read(handle: device.handle) == [UInt8](repeating: 1, count: 22))
        #expect(try await second.read(handle: device.handle) == [UInt8](repeating: 2, count: 22))
        #expect(try await first.readBlob(handle: device.handle, offset: 22) == [UInt8](repeating: 1, count: 22))
        #expect(try await second.readBlob(handle: device.handle, offset: 22) == [UInt8](repeating: 2, count: 22))
    }

    @Test func aReadBlobWithNoLongReadBeforeItRunsTheHandler() async throws {
        let device = try await Device()
        let client = await device.connect()
        #expect(try await client.readBlob(handle: device.handle, offset: 22) == [UInt8](repeating: 1, count: 22))
        #expect(try await client.readBlob(handle: device.handle, offset: 44) == [UInt8](repeating: 2, count: 16))
    }

    @Test func aReadBlobAfterTheLastPartRunsTheHandlerAgain() async throws {
        let device = try await Device()
        let client = await device.connect()
        _ = try await client.readLong(handle: device.handle)
        #expect(try await client.readBlob(handle: device.handle, offset: 22) == [UInt8](repeating: 2, count: 22))
    }
}
