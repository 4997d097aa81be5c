import HaraldATT
import HaraldCodec
import Testing

/// How the server answers Read Multiple Variable (Core spec Vol 3 Part F §3.4.4.11–12).
@Suite("GATT server: Read Multiple Variable")
struct ServerReadMultipleVariableTests {
    /// Handles of SampleDevice: 0x2A00 "Harald" (6 bytes), 0x2A19 battery (1 byte), the vendor
    /// long value (100 bytes).
    static func handles(_ client: RawClient) async -> (name: UInt16, battery: UInt16, long: UInt16) {
        let database = await client.server.database
        return (
            database.characteristic(BluetoothUUID(0x2A00))!.valueHandle, database.characteristic(BluetoothUUID(0x2A19))!.valueHandle,
            database.characteristic(SampleDevice.vendorLong)!.valueHandle
        )
    }

    @Test func eachValueComesWithItsLengthInTheOrderAsked() async throws {
        var client = try await RawClient()
        let (name, battery, _) = await Self.handles(client)
        let reply = try await client.exchange(ATTReadMultipleVariableRequest(handles: [battery, name, battery]).pduBytes())
        #expect(reply == [0x21, 1, 0, 85, 6, 0] + Array("Harald".utf8) + [1, 0, 85])
    }

    /// The tuples are cut after ATT_MTU − 1 bytes; a cut value keeps its full length field.
    @Test func theResponseIsCutAtTheMTUKeepingTheFullLength() async throws {
        var client = try await RawClient()
        let (name, _, long) = await Self.handles(client)
        let reply = try #require(try await client.exchange(ATTReadMultipleVariableRequest(handles: [name, long, name]).pduBytes()))
        #expect(reply.count == 23)
        #expect(reply == [0x21, 6, 0] + Array("Harald".utf8) + [100, 0] + SampleDevice.longValue.prefix(23 - 11))
    }

    @Test func anUnreadableAttributeFailsTheRequestNamingTheFirstOne() async throws {
        let services = [
            GATTServiceDefinition(
                uuid: BluetoothUUID(0x180A),
                characteristics: [
                    GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A29), properties: .read, value: [1]),
                    GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A24), properties: .read, permissions: [], value: [2]),
                    GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A25), properties: .read, permissions: [], value: [3]),
                ])
        ]
        var client = try await RawClient(services: services)
        let handles = await client.server.database.characteristics.map(\.characteristic.valueHandle)
        let reply = try await client.exchange(ATTReadMultipleVariableRequest(handles: [handles[0], handles[2], handles[1]]))
        #expect(reply == errorPDU(.readMultipleVariableRequest, handles[2], .readNotPermitted))
    }

    @Test func aHandleWithoutAttributeIsInvalidHandle() async throws {
        var client = try await RawClient()
        let (name, _, _) = await Self.handles(client)
        let reply = try await client.exchange(ATTReadMultipleVariableRequest(handles: [name, 0x0F00]))
        #expect(reply == errorPDU(.readMultipleVariableRequest, 0x0F00, .invalidHandle))
    }

    @Test func aServerConfiguredWithoutItAnswersRequestNotSupported() async throws {
        var client = try await RawClient(configuration: .exactLayout(supportsReadMultipleVariable: false))
        let (name, battery, _) = await Self.handles(client)
        let reply = try await client.exchange(ATTReadMultipleVariableRequest(handles: [name, battery]))
        #expect(reply == errorPDU(.readMultipleVariableRequest, 0, .requestNotSupported))
    }
}
