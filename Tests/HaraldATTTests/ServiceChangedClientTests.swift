import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldTestSupport
import Testing

/// Records what a client reports about changes of the server's database.
private final class ChangeLog: Sendable {
    let ranges = Locked<[ATTHandleRange]>([])
    let sinkEnds = Locked<[UInt16: GATTClient.ValueSink.End]>([:])

    init(_ client: GATTClient) async {
        let ranges = self.ranges
        await client.observeDatabaseChanges { range in ranges.withLock { $0.append(range) } }
    }

    /// A sink on `handle` that records how it ended.
    func addSink(on handle: UInt16, of client: GATTClient) async {
        let ends = sinkEnds
        _ = await client.addSink(GATTClient.ValueSink(deliver: { _ in true }, finish: { end in ends.withLock { $0[handle] = end } }), handle: handle)
    }
}

/// A Read By Type Request for Service Changed (0x2A05) over every handle, as the client sends it.
private let serviceChangedSearch = try! ATTReadByTypeRequest(range: .all, attributeType: GATTGenericAttributeService.serviceChanged).pduBytes()

@Suite("GATT client: Service Changed")
struct ServiceChangedClientTests {
    @Test func watchingFindsTheCharacteristicAndTurnsItsIndicationsOnWithThreeRequests() async throws {
        let link = try await Link(services: SampleDevice.services, serverConfiguration: .init())
        let expected = try #require(await link.database.serviceChanged)
        #expect(try await link.client.watchServiceChanged() == expected)
        #expect(await link.client.watchedServiceChanged == expected)
        let requests = await link.client.counters.roundTrips
        #expect(requests == [.readByTypeRequest: 1, .findInformationRequest: 1, .writeRequest: 1])
        #expect(await link.server.clientConfiguration(valueHandle: expected.valueHandle, connection: link.connection) == .indications)
    }

    @Test func aServerWithoutServiceChangedCostsOneRequestAndIsNotWatched() async throws {
        let link = try await Link(services: SampleDevice.services)
        #expect(try await link.client.watchServiceChanged() == nil)
        #expect(await link.client.watchedServiceChanged == nil)
        #expect(await link.client.counters.roundTrips == [.readByTypeRequest: 1])
    }

    @Test func aServerThatLetsTheValueBeReadGivesItsHandleInTheResponse() async throws {
        // Bumble answers the Read By Type with the (empty) value instead of refusing it.
        var link = ScriptedLink()
        let client = link.client
        let watching = Task { try await client.watchServiceChanged() }
        #expect(await link.nextPDU() == serviceChangedSearch)
        try await link.reply(ATTReadByTypeResponse(entries: [ATTHandleValue(handle: 0x0009, value: [])]))
        #expect(await link.nextPDU() == (try ATTFindInformationRequest(range: ATTHandleRange(start: 0x000A, end: 0xFFFF)).pduBytes()))
        try await link.reply(ATTFindInformationResponse(entries: [.init(handle: 0x000A, type: GATTAttributeType.clientCharacteristicConfiguration)]))
        #expect(await link.nextPDU() == (try ATTWriteRequest(handle: 0x000A, value: [0x02, 0x00]).pduBytes()))
        try await link.reply(ATTWriteResponse())
        #expect(try await watching.value == GATTServiceChangedHandles(valueHandle: 0x0009, cccdHandle: 0x000A))
    }

    @Test func theCCCDIsLookedForPastOtherDescriptorsOfTheCharacteristic() async throws {
        var link = ScriptedLink()
        let client = link.client
        let watching = Task { try await client.watchServiceChanged() }
        _ = await link.nextPDU()
        try await link.reply(ATTErrorResponse(requestOpcode: .readByTypeRequest, handle: 0x0003, error: .readNotPermitted))
        _ = await link.nextPDU()
        try await link.reply(ATTFindInformationResponse(entries: [.init(handle: 0x0004, type: GATTAttributeType.characteristicUserDescription)]))
        #expect(await link.nextPDU() == (try ATTFindInformationRequest(range: ATTHandleRange(start: 0x0005, end: 0xFFFF)).pduBytes()))
        try await link.reply(ATTFindInformationResponse(entries: [.init(handle: 0x0005, type: GATTAttributeType.clientCharacteristicConfiguration)]))
        _ = await link.nextPDU()
        try await link.reply(ATTWriteResponse())
        #expect(try await watching.value == GATTServiceChangedHandles(valueHandle: 0x0003, cccdHandle: 0x0005))
    }

    @Test func aServiceChangedCharacteristicWithoutCCCDIsNotWatchedAndNothingIsWritten() async throws {
        var link = ScriptedLink()
        let client = link.client
        let watching = Task { try await client.watchServiceChanged() }
        _ = await link.nextPDU()
        try await link.reply(ATTErrorResponse(requestOpcode: .readByTypeRequest, handle: 0x0003, error: .readNotPermitted))
        _ = await link.nextPDU()
        // The next characteristic's declaration follows the value at once.
        try await link.reply(ATTFindInformationResponse(entries: [.init(handle: 0x0004, type: GATTAttributeType.characteristic)]))
        #expect(try await watching.value == nil)
        #expect(await client.counters.pdusSent[.writeRequest] == nil)
    }

    @Test func anIndicationEndsTheSubscriptionsAndSinksInItsRangeOnly() async throws {
        let link = try await Link(services: SampleDevice.services, serverConfiguration: .init())
        let log = await ChangeLog(link.client)
        try await link.client.watchServiceChanged()
        let heartRate = try #require(await link.database.characteristic(BluetoothUUID(0x2A37))).valueHandle
        let battery = try #require(await link.database.characteristic(BluetoothUUID(0x2A19))).valueHandle
        let inside = await link.client.subscribe(handle: battery)
        let outside = await link.client.subscribe(handle: heartRate)
        await log.addSink(on: battery, of: link.client)
        await log.addSink(on: heartRate, of: link.client)

        let range = try #require(await link.server.removeServices(BluetoothUUID(0x180F)))
        #expect(log.ranges.value == [range])
        #expect(log.sinkEnds.value == [battery: .attributesChanged(range)])
        var ended = inside.values.makeAsyncIterator()
        #expect(await ended.next() == nil)
        // The subscription outside the range still gets its values.
        let cccd = try #require(await link.database.clientConfigurationHandle(forValueHandle: heartRate))
        try await link.client.configureNotifications(cccdHandle: cccd, .notifications)
        await link.server.notify(handle: heartRate, value: [0x00, 0x48])
        var values = outside.values.makeAsyncIterator()
        #expect(await values.next()?.value == [0x00, 0x48])
    }

    @Test func anIndicationOnTheServiceChangedHandleIsNotActedOnUntilItIsWatched() async throws {
        var link = ScriptedLink()
        let log = await ChangeLog(link.client)
        let subscription = await link.client.subscribe(handle: 0x0010)
        try await link.reply(ATTHandleValueIndication(handle: 0x0003, value: [0x01, 0x00, 0xFF, 0xFF]))
        #expect(await link.nextPDU() == [ATTOpcode.handleValueConfirmation.rawValue])
        #expect(log.ranges.value.isEmpty)
        #expect(await link.client.subscriberCount == 1)
        await link.client.unsubscribe(subscription)
    }

    @Test func aServiceChangedValueThatNamesNoValidRangeCountsAsEveryHandle() async throws {
        var link = try await watchedScriptedLink()
        let log = await ChangeLog(link.client)
        // Three bytes, then a start after the end.
        try await link.reply(ATTHandleValueIndication(handle: 0x0003, value: [0x05, 0x00, 0x09]))
        _ = await link.nextPDU()
        try await link.reply(ATTHandleValueIndication(handle: 0x0003, value: [0x09, 0x00, 0x05, 0x00]))
        _ = await link.nextPDU()
        #expect(log.ranges.value == [.all, .all])
    }

    @Test func databaseOutOfSyncFailsTheRequestAndCountsAsAChangeOfEveryHandle() async throws {
        var link = ScriptedLink()
        let log = await ChangeLog(link.client)
        await log.addSink(on: 0x0042, of: link.client)
        let client = link.client
        let reading = Task { try await client.read(handle: 0x0042) }
        _ = await link.nextPDU()
        try await link.reply(ATTErrorResponse(requestOpcode: .readRequest, handle: 0x0000, error: .databaseOutOfSync))
        await #expect(throws: GATTError.attribute(.databaseOutOfSync, handle: 0x0000, request: .readRequest)) { try await reading.value }
        #expect(log.ranges.value == [.all])
        #expect(log.sinkEnds.value == [0x0042: .attributesChanged(.all)])
    }

    @Test func databaseOutOfSyncFailsABatchedReadWholeRatherThanOneOfItsValues() async throws {
        var link = ScriptedLink()
        let client = link.client
        let reading = Task { try await client.readValues(handles: [0x0003, 0x0005]) }
        _ = await link.nextPDU()
        try await link.reply(ATTErrorResponse(requestOpcode: .readMultipleVariableRequest, handle: 0x0003, error: .databaseOutOfSync))
        await #expect(throws: GATTError.attribute(.databaseOutOfSync, handle: 0x0003, request: .readMultipleVariableRequest)) {
            try await reading.value
        }
        #expect(await client.counters.totalPDUsSent == 1)
    }

    /// A scripted link whose client watches Service Changed at value handle 0x0003 (CCCD 0x0004).
    private func watchedScriptedLink() async throws -> ScriptedLink {
        var link = ScriptedLink()
        let client = link.client
        let watching = Task { try await client.watchServiceChanged() }
        _ = await link.nextPDU()
        try await link.reply(ATTErrorResponse(requestOpcode: .readByTypeRequest, handle: 0x0003, error: .readNotPermitted))
        _ = await link.nextPDU()
        try await link.reply(ATTFindInformationResponse(entries: [.init(handle: 0x0004, type: GATTAttributeType.clientCharacteristicConfiguration)]))
        _ = await link.nextPDU()
        try await link.reply(ATTWriteResponse())
        _ = try await watching.value
        return link
    }
}
