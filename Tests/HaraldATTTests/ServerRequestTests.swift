import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldTestSupport
import Testing

/// How the server answers requests, good and bad, from a client scripted by the test.
@Suite("GATT server requests")
struct ServerRequestTests {
    @Test func unknownRequestIsRequestNotSupported() async throws {
        var client = try await RawClient()
        let reply = try await client.exchange([0x30, 0x01, 0x00])
        #expect(reply == [0x01, 0x30, 0x00, 0x00, 0x06])
    }

    @Test func unknownCommandIsIgnored() async throws {
        var client = try await RawClient()
        try await client.bearer.send([0x70, 0x01])
        // The next PDU the server sends answers the read, not the command.
        let reply = try await client.exchange(ATTReadRequest(handle: 3))
        #expect(reply == .readResponse(.init(value: Array("Harald".utf8))))
        let observed1 = await client.server.counters.ignoredPDUs
        #expect(observed1 == 1)
    }

    @Test func malformedRequestIsInvalidPDU() async throws {
        var client = try await RawClient()
        let observed2 = try await client.exchange([0x0A, 0x03])
        #expect(observed2 == [0x01, 0x0A, 0x00, 0x00, 0x04])
    }

    /// Found by the GATTServer.Requests fuzz target (Fuzz/corpus/GATTServer.Requests/
    /// regression-prepare-write-over-mtu): the server echoed a 29-byte Prepare Write Request back
    /// in a 29-byte response on a link whose ATT_MTU is 23.
    @Test func aRequestLongerThanTheMTUIsInvalidPDU() async throws {
        var client = try await RawClient()
        let long = await client.server.database.characteristic(SampleDevice.vendorLong)!.valueHandle
        let request = try ATTPrepareWriteRequest(handle: long, offset: 0, value: Array(repeating: 0x5A, count: 24)).pduBytes()
        #expect(request.count > ATT.defaultMTU)
        let reply = try await client.exchange(request)
        #expect(reply == [0x01, 0x16, 0x00, 0x00, 0x04])
        #expect(await client.server.preparedWriteCount(for: client.connection) == 0)
    }

    @Test func aCommandLongerThanTheMTUIsDropped() async throws {
        var client = try await RawClient()
        let long = await client.server.database.characteristic(SampleDevice.vendorLong)!.valueHandle
        let before = await client.server.value(handle: long)
        try await client.bearer.send(ATTWriteCommand(handle: long, value: Array(repeating: 0x5A, count: 24)).pduBytes())
        // The next PDU the server sends answers the read, and the value is unchanged.
        let reply = try await client.exchange(ATTReadRequest(handle: 3))
        #expect(reply == .readResponse(.init(value: Array("Harald".utf8))))
        #expect(await client.server.value(handle: long) == before)
    }

    @Test(arguments: [ATTHandleRange(start: 0, end: 5), ATTHandleRange(start: 6, end: 5)])
    func invalidRangeIsInvalidHandle(range: ATTHandleRange) async throws {
        var client = try await RawClient()
        let reply = try await client.exchange(ATTFindInformationRequest(range: range))
        #expect(reply == errorPDU(.findInformationRequest, range.start, .invalidHandle))
    }

    @Test func rangeBeyondTheDatabaseIsAttributeNotFound() async throws {
        var client = try await RawClient()
        let reply = try await client.exchange(ATTReadByTypeRequest(range: ATTHandleRange(start: 0x0100, end: 0xFFFF), attributeType: BluetoothUUID(0x2803)))
        #expect(reply == errorPDU(.readByTypeRequest, 0x0100, .attributeNotFound))
    }

    @Test func groupTypeOtherThanAServiceIsUnsupportedGroupType() async throws {
        var client = try await RawClient()
        let reply = try await client.exchange(ATTReadByGroupTypeRequest(range: .all, groupType: BluetoothUUID(0x2803)))
        #expect(reply == errorPDU(.readByGroupTypeRequest, 1, .unsupportedGroupType))
    }

    @Test func findInformationDoesNotMix16And128BitTypes() async throws {
        var client = try await RawClient()
        let database = await client.server.database
        let vendor = try #require(database.services.last)
        let reply = try await client.exchange(ATTFindInformationRequest(range: vendor.handles))
        guard case .findInformationResponse(let response) = reply else {
            Issue.record("got \(String(describing: reply))")
            return
        }
        // Service declaration (0x2800) and characteristic declaration (0x2803) are 16-bit; the
        // vendor value type is not, so it starts the next response.
        #expect(response.format == 1)
        #expect(response.entries.map { $0.type } == [GATTAttributeType.primaryService, GATTAttributeType.characteristic])
    }

    @Test func writeCommandToAReadOnlyValueIsDroppedSilently() async throws {
        var client = try await RawClient()
        try await client.bearer.send(ATTWriteCommand(handle: 3, value: [1]).pduBytes())
        let observed3 = try await client.exchange(ATTReadRequest(handle: 3))
        #expect(observed3 == .readResponse(.init(value: Array("Harald".utf8))))
    }

    @Test func signedWriteCommandIsIgnored() async throws {
        var client = try await RawClient()
        let long = await client.server.database.characteristic(SampleDevice.vendorLong)!.valueHandle
        try await client.bearer.send(ATTSignedWriteCommand(handle: long, value: [1], signature: Array(repeating: 0, count: 12)).pduBytes())
        _ = try await client.exchange(ATTReadRequest(handle: 3))
        let observed4 = await client.server.value(handle: long)
        #expect(observed4 == SampleDevice.longValue)
    }

    @Test func cccdWriteOfWrongLengthIsInvalidAttributeValueLength() async throws {
        var client = try await RawClient()
        let database = await client.server.database
        let cccd = try #require(database.clientConfigurationHandle(forValueHandle: database.characteristic(BluetoothUUID(0x2A37))!.valueHandle))
        let observed5 = try await client.exchange(ATTWriteRequest(handle: cccd, value: [1]))
        #expect(observed5 == errorPDU(.writeRequest, cccd, .invalidAttributeValueLength))
    }

    @Test func valueLongerThan512BytesIsRefusedAtExecute() async throws {
        var client = try await RawClient()
        let long = await client.server.database.characteristic(SampleDevice.vendorLong)!.valueHandle
        for part in 0..<29 {
            _ = try await client.exchange(ATTPrepareWriteRequest(handle: long, offset: UInt16(part * 18), value: Array(repeating: 1, count: 18)))
        }
        let reply = try await client.exchange(ATTExecuteWriteRequest(flags: .write))
        #expect(reply == errorPDU(.executeWriteRequest, long, .invalidAttributeValueLength))
        let stored = await client.server.value(handle: long)
        #expect(stored == SampleDevice.longValue)
    }

    @Test func preparedPartsWithAGapAreInvalidOffsetAtExecute() async throws {
        var client = try await RawClient()
        let long = await client.server.database.characteristic(SampleDevice.vendorLong)!.valueHandle
        _ = try await client.exchange(ATTPrepareWriteRequest(handle: long, offset: 0, value: Array(repeating: 1, count: 18)))
        _ = try await client.exchange(ATTPrepareWriteRequest(handle: long, offset: 500, value: Array(repeating: 1, count: 18)))
        let reply = try await client.exchange(ATTExecuteWriteRequest(flags: .write))
        #expect(reply == errorPDU(.executeWriteRequest, long, .invalidOffset))
        let observed6 = await client.server.preparedWriteCount(for: client.connection)
        #expect(observed6 == 0)
    }

    @Test func confirmationWithoutIndicationIsIgnored() async throws {
        var client = try await RawClient()
        try await client.bearer.send([0x1E])
        _ = try await client.exchange(ATTReadRequest(handle: 3))
        let observed7 = await client.server.counters.ignoredPDUs
        #expect(observed7 == 1)
    }

    @Test func unconfirmedIndicationTimesOutAndTheTransactionTimeoutClosesTheBearer() async throws {
        var client = try await RawClient()
        let server = client.server
        let connection = client.connection
        let battery = await server.database.characteristic(BluetoothUUID(0x2A19))!.valueHandle
        let cccd = try #require(await server.database.clientConfigurationHandle(forValueHandle: battery))
        _ = try await client.exchange(ATTWriteRequest(handle: cccd, value: [0x02, 0x00]))
        let first = Task { try await server.indicate(handle: battery, value: [1], connection: connection, timeout: .seconds(5)) }
        let observed8 = await client.next()
        #expect(observed8 == [0x1D] + [UInt8(battery & 0xFF), UInt8(battery >> 8), 1])
        let second = Task { try await server.indicate(handle: battery, value: [2], connection: connection, timeout: .seconds(60)) }
        await waitUntil { await server.liveContinuations >= 2 }
        client.clock.advance(by: .seconds(5))
        await #expect(throws: GATTError.timeout) { try await first.value }
        client.clock.advance(by: .seconds(25))
        await #expect(throws: GATTError.disconnected) { try await second.value }
        let observed9 = await client.next()
        #expect(observed9 == nil)
        let observed10 = await server.liveContinuations
        #expect(observed10 == 0)
        #expect(await server.connectionIDs.isEmpty)
    }

    @Test func cancellingAnIndicationReturnsAtOnce() async throws {
        var client = try await RawClient()
        let server = client.server
        let connection = client.connection
        let battery = await server.database.characteristic(BluetoothUUID(0x2A19))!.valueHandle
        let cccd = try #require(await server.database.clientConfigurationHandle(forValueHandle: battery))
        _ = try await client.exchange(ATTWriteRequest(handle: cccd, value: [0x02, 0x00]))
        let task = Task { try await server.indicate(handle: battery, value: [1], connection: connection) }
        _ = await client.next()
        task.cancel()
        await #expect(throws: GATTError.cancelled) { try await task.value }
        let live = await server.liveContinuations
        #expect(live == 0)
    }

    /// The server's deadlines sleep on its clock. Released with a connection open, it cancels
    /// the sleeper: left behind, a sleeper on a clock that never reaches its deadline (a manual
    /// one here) would keep itself and the clock alive for good.
    @Test func aReleasedServerLeavesNoSleeperOnItsClock() async throws {
        let clock = ManualClock()
        let (central, peripheral) = ATTMemoryBearer.pair(mtu: 23)
        var server: GATTServer? = try GATTServer(services: SampleDevice.services, clock: clock, configuration: .exactLayout())
        try await indicateAndCancel(server!, attachedTo: peripheral, readingFrom: central)
        await clock.waitForSleepers(atLeast: 1)
        server = nil
        try await withHangGuard(seconds: 10) { await waitUntil { clock.sleeperCount == 0 } }
        // The link stays open throughout: its close would cancel the sleeper anyway.
        withExtendedLifetime(central) {}
    }

    /// Starts an indication on a new connection over `peripheral`, waits until `central` has it,
    /// then cancels it; the server's deadline sleeper is left running.
    private func indicateAndCancel(_ server: GATTServer, attachedTo peripheral: ATTMemoryBearer, readingFrom central: ATTMemoryBearer) async throws {
        let connection = await server.attach(peripheral)
        let battery = try #require(await server.database.characteristic(BluetoothUUID(0x2A19))).valueHandle
        let cccd = try #require(await server.database.clientConfigurationHandle(forValueHandle: battery))
        var events = central.events.makeAsyncIterator()
        try await central.send(ATTWriteRequest(handle: cccd, value: [0x02, 0x00]).pduBytes())
        _ = await events.next()
        let indication = Task { try await server.indicate(handle: battery, value: [1], connection: connection) }
        _ = await events.next()
        indication.cancel()
        _ = await indication.result
    }

    /// Whatever bytes arrive, the server never traps and still answers the next request.
    @Test func arbitraryBytesNeverTrapAndTheServerKeepsAnswering() async throws {
        var generator = SplitMix64(seed: 0x5345_5256)
        var client = try await RawClient()
        let sentinel = try ATTReadRequest(handle: 3).pduBytes()
        let expected = try ATTReadResponse(value: Array("Harald".utf8)).pduBytes()
        for _ in 0..<500 {
            let length = Int(generator.next() % 20) + 1
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            // Avoid Execute Write/Write Command flipping state the sentinel reads.
            if bytes[0] == 0x52 || bytes[0] == 0x18 || bytes[0] == 0x12 || bytes[0] == 0x16 { bytes[0] = 0x0A }
            try await client.bearer.send(bytes)
            try await client.bearer.send(sentinel)
            var answered = false
            while let reply = await client.next() {
                if reply == expected { answered = true; break }
            }
            #expect(answered)
        }
        let observed11 = await client.server.liveContinuations
        #expect(observed11 == 0)
    }
}
