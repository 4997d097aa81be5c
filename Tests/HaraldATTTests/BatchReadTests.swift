import HaraldATT
import HaraldCodec
import Testing

/// `GATTClient.readValues(handles:)`: many values in Read Multiple Variable batches, with Read
/// Blob for truncated values and single reads when the server does not support batches.
@Suite("GATT batched reads")
struct BatchReadTests {
    /// One service of readable characteristics with the given values.
    static func service(_ values: [[UInt8]], permissions: [GATTPermissions?]? = nil) -> [GATTServiceDefinition] {
        [
            GATTServiceDefinition(
                uuid: BluetoothUUID(0x180A),
                characteristics: values.indices.map { index in
                    GATTCharacteristicDefinition(
                        uuid: BluetoothUUID(UInt16(0x2A00 + index)), properties: .read, permissions: permissions?[index] ?? nil, value: values[index])
                })
        ]
    }

    static func valueHandles(_ link: Link) async -> [UInt16] {
        await link.database.characteristics.map(\.characteristic.valueHandle)
    }

    static func values(_ results: [Result<[UInt8], GATTError>]) throws -> [[UInt8]] {
        try results.map { try $0.get() }
    }

    @Test(arguments: [23, 247])
    func batchedReadsReturnWhatSingleReadsReturn(mtu: Int) async throws {
        let link = try await Link(services: SampleDevice.services, mtu: mtu)
        try await link.client.exchangeMTU()
        let handles = await link.database.characteristics.filter { $0.characteristic.properties.contains(.read) }.map(\.characteristic.valueHandle)
        let batched = try Self.values(try await link.client.readValues(handles: handles))
        var single: [[UInt8]] = []
        for handle in handles { single.append(try await link.client.readLong(handle: handle)) }
        #expect(batched == single)
        #expect(batched.contains(SampleDevice.longValue))
    }

    /// Ten values of one to ten bytes take 10 × 2 + 55 = 75 bytes: one response at MTU 247.
    @Test func valuesThatFitOneResponseCostOneRequest() async throws {
        let values = (1...10).map { count in (0..<count).map { UInt8($0) } }
        let link = try await Link(services: Self.service(values), mtu: 247)
        try await link.client.exchangeMTU()
        let before = await link.client.counters.totalRoundTrips
        let read = try Self.values(try await link.client.readValues(handles: await Self.valueHandles(link)))
        #expect(read == values)
        #expect(await link.client.counters.roundTrips[.readMultipleVariableRequest] == 1)
        #expect(await link.client.counters.totalRoundTrips - before == 1)
    }

    /// Five 8-byte values at MTU 23: a response has 22 bytes, room for two whole length-value
    /// pairs of 10 bytes; the third, cut, is asked for again. Requests for 5, then 3 values; the
    /// last value alone is a plain Read.
    @Test func valuesLeftOutOfAFullResponseAreAskedForAgain() async throws {
        let values = (0..<5).map { Array(repeating: UInt8($0), count: 8) }
        let link = try await Link(services: Self.service(values))
        let read = try Self.values(try await link.client.readValues(handles: await Self.valueHandles(link)))
        #expect(read == values)
        let roundTrips = await link.client.counters.roundTrips
        #expect(roundTrips[.readMultipleVariableRequest] == 2)
        #expect(roundTrips[.readRequest] == 1)
        #expect(roundTrips[.readBlobRequest, default: 0] == 0)
    }

    /// A 60-byte value first in a response at MTU 23 arrives with 22 − 2 = 20 bytes; Read Blobs of
    /// up to 22 bytes fetch the other 40 from offset 20.
    @Test func aTruncatedValueIsCompletedWithReadBlob() async throws {
        let long = (0..<60).map { UInt8($0) }
        let link = try await Link(services: Self.service([long, [7]]))
        let read = try Self.values(try await link.client.readValues(handles: await Self.valueHandles(link)))
        #expect(read == [long, [7]])
        let roundTrips = await link.client.counters.roundTrips
        #expect(roundTrips[.readMultipleVariableRequest] == 1)
        #expect(roundTrips[.readBlobRequest] == ceilDiv(60 - 20, 22))
        // The short value left out of the first response is read on its own.
        #expect(roundTrips[.readRequest] == 1)
    }

    @Test func aServerWithoutReadMultipleVariableGetsSingleReads() async throws {
        let values: [[UInt8]] = [[1], [2, 2], Array(repeating: 3, count: 30)]
        let link = try await Link(services: Self.service(values), serverConfiguration: .exactLayout(supportsReadMultipleVariable: false))
        let handles = await Self.valueHandles(link)
        #expect(try Self.values(try await link.client.readValues(handles: handles)) == values)
        #expect(await link.client.readMultipleVariableRefused)
        let roundTrips = await link.client.counters.roundTrips
        #expect(roundTrips[.readMultipleVariableRequest] == 1)
        #expect(roundTrips[.readRequest] == 3)
        // 30 bytes at MTU 23: a Read of 22, one Read Blob for the rest.
        #expect(roundTrips[.readBlobRequest] == 1)
    }

    @Test func aRefusalIsRememberedForTheConnection() async throws {
        let link = try await Link(services: Self.service([[1], [2]]), serverConfiguration: .exactLayout(supportsReadMultipleVariable: false))
        let handles = await Self.valueHandles(link)
        _ = try await link.client.readValues(handles: handles)
        _ = try await link.client.readValues(handles: handles)
        #expect(await link.client.counters.roundTrips[.readMultipleVariableRequest] == 1)
        #expect(await link.client.counters.roundTrips[.readRequest] == 4)
    }

    @Test func anUnreadableValueFailsAloneAndTheOthersAreRead() async throws {
        let link = try await Link(services: Self.service([[1], [2], [3]], permissions: [nil, [], nil]))
        let handles = await Self.valueHandles(link)
        let results = try await link.client.readValues(handles: handles)
        #expect(try results[0].get() == [1])
        #expect(try results[2].get() == [3])
        guard case .failure(.attribute(let code, let handle, _)) = results[1] else {
            Issue.record("expected an ATT error for the unreadable value, got \(results[1])")
            return
        }
        #expect(code == .readNotPermitted)
        #expect(handle == handles[1])
        // The batch failed naming that handle; the other two went in a second batch.
        #expect(await link.client.counters.roundTrips[.readMultipleVariableRequest] == 2)
    }

    @Test func aSingleHandleIsAPlainRead() async throws {
        let link = try await Link(services: Self.service([[9, 9]]))
        #expect(try Self.values(try await link.client.readValues(handles: await Self.valueHandles(link))) == [[9, 9]])
        #expect(await link.client.counters.roundTrips[.readMultipleVariableRequest, default: 0] == 0)
        #expect(await link.client.counters.roundTrips[.readRequest] == 1)
    }

    @Test func noHandlesCostNothing() async throws {
        let link = try await Link(services: Self.service([[1]]))
        #expect(try await link.client.readValues(handles: []).isEmpty)
        #expect(await link.client.counters.totalRoundTrips == 0)
    }

    @Test func handleZeroIsRejectedBeforeAnyRequest() async throws {
        let link = try await Link(services: Self.service([[1]]))
        await #expect(throws: GATTError.self) { try await link.client.readValues(handles: [0, 3]) }
        #expect(await link.client.counters.totalRoundTrips == 0)
    }

    /// Bumble's server cuts every value of a Read Multiple Variable response to ATT_MTU − 3
    /// bytes (at most 251), not only where the PDU fills up, and keeps the full length: the
    /// next value's length field then reads as part of the cut value. A value cut in a response
    /// shorter than ATT_MTU is therefore read again on its own, and the values after it too.
    @Test func aValueCutInAResponseShorterThanTheMTUIsReadAgainAlone() async throws {
        var link = ScriptedLink()
        let first = (0..<30).map { UInt8($0) }
        let second = (100..<130).map { UInt8($0) }
        let client = link.client
        let reading = Task { try await client.readValues(handles: [0x0010, 0x0020]) }
        #expect(await link.nextPDU() == [0x20, 0x10, 0x00, 0x20, 0x00])
        // 1 + (2 + 8) + (2 + 8) = 21 bytes, both values cut to 8 bytes, ATT_MTU 23.
        try await link.reply(raw: [0x21, 30, 0] + first.prefix(8) + [30, 0] + second.prefix(8))
        #expect(await link.nextPDU() == [0x0A, 0x10, 0x00])
        try await link.reply(ATTReadResponse(value: Array(first.prefix(22))))
        #expect(await link.nextPDU() == [0x0C, 0x10, 0x00, 22, 0])
        try await link.reply(ATTReadBlobResponse(value: Array(first[22...])))
        #expect(await link.nextPDU() == [0x0A, 0x20, 0x00])
        try await link.reply(ATTReadResponse(value: Array(second.prefix(22))))
        #expect(await link.nextPDU() == [0x0C, 0x20, 0x00, 22, 0])
        try await link.reply(ATTReadBlobResponse(value: Array(second[22...])))
        #expect(try Self.values(try await reading.value) == [first, second])
    }

    /// A spec server cuts the response at ATT_MTU − 1 bytes: the first value, longer than that,
    /// arrives with ATT_MTU − 3 bytes and Read Blob continues from there.
    @Test func aValueCutWhereTheResponseFillsTheMTUContinuesWithReadBlob() async throws {
        var link = ScriptedLink()
        let long = (0..<40).map { UInt8($0) }
        let client = link.client
        let reading = Task { try await client.readValues(handles: [0x0010, 0x0020]) }
        _ = await link.nextPDU()
        try await link.reply(ATTReadMultipleVariableResponse(entries: [.init(length: 40, value: Array(long.prefix(20)))]))
        #expect(await link.nextPDU() == [0x0C, 0x10, 0x00, 20, 0])
        try await link.reply(ATTReadBlobResponse(value: Array(long[20...])))
        #expect(await link.nextPDU() == [0x0A, 0x20, 0x00])
        try await link.reply(ATTReadResponse(value: [5]))
        #expect(try Self.values(try await reading.value) == [long, [5]])
    }

    @Test func moreValuesThanHandlesIsAProtocolError() async throws {
        var link = ScriptedLink()
        let client = link.client
        let reading = Task { try await client.readValues(handles: [0x0010, 0x0020]) }
        _ = await link.nextPDU()
        try await link.reply(ATTReadMultipleVariableResponse(entries: [.init(value: [1]), .init(value: [2]), .init(value: [3])]))
        await #expect(throws: GATTError.self) { try await reading.value }
    }
}
