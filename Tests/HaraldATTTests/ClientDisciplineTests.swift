import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldTestSupport
import Testing

/// The ATT rules the client enforces, against a peer scripted by the test.
@Suite("GATT client discipline")
struct ClientDisciplineTests {
    func bytes(_ pdu: some ATTPDUCodable) throws -> [UInt8] { try pdu.pduBytes() }

    @Test func requestsWaitInFIFOOrderWithOneInFlight() async throws {
        var link = ScriptedLink()
        let client = link.client
        let first = Task { try await client.read(handle: 1) }
        let observed1 = await link.nextPDU()
        #expect(observed1 == (try bytes(ATTReadRequest(handle: 1))))
        let second = Task { try await client.read(handle: 2) }
        await waitUntil { await client.liveContinuations >= 2 }
        let third = Task { try await client.read(handle: 3) }
        await waitUntil { await client.liveContinuations >= 3 }
        let observed2 = await client.counters.totalPDUsSent
        #expect(observed2 == 1)
        try await link.reply(ATTReadResponse(value: [1]))
        let secondRequest = await link.nextPDU()
        try await link.reply(ATTReadResponse(value: [2]))
        let thirdRequest = await link.nextPDU()
        try await link.reply(ATTReadResponse(value: [3]))
        #expect([secondRequest, thirdRequest] == [try bytes(ATTReadRequest(handle: 2)), try bytes(ATTReadRequest(handle: 3))])
        #expect(try await [first.value, second.value, third.value] == [[1], [2], [3]])
        let observed3 = await client.liveContinuations
        #expect(observed3 == 0)
    }

    @Test func requestsAreSentByTheirCallersAndStartNoTaskOfTheirOwn() async throws {
        var link = ScriptedLink()
        let client = link.client
        let atStart = client.tasksStarted  // the bearer reader
        for handle in UInt16(1)...50 {
            let read = Task { try await client.read(handle: handle) }
            let request = await link.nextPDU()
            #expect(request == (try bytes(ATTReadRequest(handle: handle))))
            try await link.reply(ATTReadResponse(value: [UInt8(handle)]))
            #expect(try await read.value == [UInt8(handle)])
        }
        // One deadline sleeper serves every request's timeout and transaction timer (each
        // is 30 s and the manual clock stands still); the sends ran on the callers' tasks.
        #expect(client.tasksStarted - atStart == 1)
        let live = await client.liveContinuations
        #expect(live == 0)
    }

    @Test func aQueuedRequestThatTimedOutIsSkippedAndTheNextOneIsSent() async throws {
        var link = ScriptedLink()
        let client = link.client
        let first = Task { try await client.read(handle: 1, timeout: .seconds(60)) }
        _ = await link.nextPDU()
        let second = Task { try await client.read(handle: 2, timeout: .seconds(3)) }
        let third = Task { try await client.read(handle: 3, timeout: .seconds(60)) }
        await waitUntil { await client.liveContinuations >= 3 }
        link.clock.advance(by: .seconds(3))
        await #expect(throws: GATTError.timeout) { try await second.value }
        try await link.reply(ATTReadResponse(value: [1]))
        #expect(try await first.value == [1])
        // The third request goes next; the second's bytes never reach the wire.
        let next = await link.nextPDU()
        #expect(next == (try bytes(ATTReadRequest(handle: 3))))
        try await link.reply(ATTReadResponse(value: [3]))
        #expect(try await third.value == [3])
        let sent = await client.counters.totalPDUsSent
        #expect(sent == 2)
    }

    @Test func operationTimeoutFailsTheOperationButKeepsTheTransactionOpen() async throws {
        var link = ScriptedLink()
        let client = link.client
        let first = Task { try await client.read(handle: 1, timeout: .seconds(5)) }
        _ = await link.nextPDU()
        link.clock.advance(by: .seconds(5))
        await #expect(throws: GATTError.timeout) { try await first.value }
        let observed4 = await client.liveContinuations
        #expect(observed4 == 0)
        let second = Task { try await client.read(handle: 2) }
        await waitUntil { await client.liveContinuations >= 1 }
        // The late response closes the first transaction; only then is the second request sent.
        try await link.reply(ATTReadResponse(value: [9]))
        let observed5 = await link.nextPDU()
        #expect(observed5 == (try bytes(ATTReadRequest(handle: 2))))
        try await link.reply(ATTReadResponse(value: [2]))
        #expect(try await second.value == [2])
        #expect(await client.isConnected)
    }

    @Test func transactionTimeoutClosesTheBearerAndFailsEverythingQueued() async throws {
        var link = ScriptedLink()
        let client = link.client
        let first = Task { try await client.read(handle: 1, timeout: .seconds(60)) }
        _ = await link.nextPDU()
        let queued = [Task { try await client.read(handle: 2, timeout: .seconds(60)) }, Task { try await client.read(handle: 3, timeout: .seconds(60)) }]
        await waitUntil { await client.liveContinuations >= 3 }
        link.clock.advance(by: .seconds(30))
        await #expect(throws: GATTError.timeout) { try await first.value }
        for task in queued { await #expect(throws: GATTError.disconnected) { try await task.value } }
        let observed6 = await client.closeReason
        #expect(observed6 == .transactionTimeout)
        let observed7 = await link.nextPDU()
        #expect(observed7 == nil)
        let observed8 = await client.liveContinuations
        #expect(observed8 == 0)
        await #expect(throws: GATTError.disconnected) { try await client.read(handle: 4) }
    }

    @Test func aQueuedRequestCanTimeOutBeforeItIsSent() async throws {
        var link = ScriptedLink()
        let client = link.client
        let first = Task { try await client.read(handle: 1, timeout: .seconds(20)) }
        _ = await link.nextPDU()
        let second = Task { try await client.read(handle: 2, timeout: .seconds(3)) }
        await waitUntil { await client.liveContinuations >= 2 }
        link.clock.advance(by: .seconds(3))
        await #expect(throws: GATTError.timeout) { try await second.value }
        try await link.reply(ATTReadResponse(value: [1]))
        #expect(try await first.value == [1])
        let sent = await client.counters.totalPDUsSent
        #expect(sent == 1)
    }

    @Test func disconnectFailsPendingOperationsAndClosesThePeer() async throws {
        var link = ScriptedLink()
        let client = link.client
        let pending = Task { try await client.read(handle: 1) }
        _ = await link.nextPDU()
        await client.disconnect()
        await #expect(throws: GATTError.disconnected) { try await pending.value }
        #expect(await link.nextPDU() == nil)
        let reason = await client.closeReason
        #expect(reason == .closedLocally)
    }

    @Test func cancellingAnInFlightRequestReturnsAtOnce() async throws {
        var link = ScriptedLink()
        let client = link.client
        let task = Task { try await client.read(handle: 1) }
        _ = await link.nextPDU()
        task.cancel()
        await #expect(throws: GATTError.cancelled) { try await task.value }
        let observed9 = await client.liveContinuations
        #expect(observed9 == 0)
    }

    @Test func cancellingAQueuedRequestRemovesItFromTheQueue() async throws {
        var link = ScriptedLink()
        let client = link.client
        let first = Task { try await client.read(handle: 1) }
        _ = await link.nextPDU()
        let second = Task { try await client.read(handle: 2) }
        await waitUntil { await client.liveContinuations >= 2 }
        second.cancel()
        await #expect(throws: GATTError.cancelled) { try await second.value }
        let third = Task { try await client.read(handle: 3) }
        await waitUntil { await client.liveContinuations >= 2 }
        try await link.reply(ATTReadResponse(value: [1]))
        #expect(try await first.value == [1])
        let observed10 = await link.nextPDU()
        #expect(observed10 == (try bytes(ATTReadRequest(handle: 3))))
        try await link.reply(ATTReadResponse(value: [3]))
        #expect(try await third.value == [3])
    }

    @Test func aCancelledTaskSendsNothing() async throws {
        let link = ScriptedLink()
        let client = link.client
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.read(handle: 1)
        }
        await #expect(throws: GATTError.cancelled) { try await task.value }
        let observed11 = await client.counters.totalPDUsSent
        #expect(observed11 == 0)
    }

    @Test func bearerClosureFailsEveryPendingOperationAtOnce() async throws {
        var link = ScriptedLink()
        let client = link.client
        let tasks = (1...3).map { handle in Task { try await client.read(handle: UInt16(handle)) } }
        _ = await link.nextPDU()
        await waitUntil { await client.liveContinuations >= 3 }
        await link.peer.close(.closedLocally)
        for task in tasks { await #expect(throws: GATTError.disconnected) { try await task.value } }
        let observed12 = await client.closeReason
        #expect(observed12 == .closedByPeer)
        let observed13 = await client.liveContinuations
        #expect(observed13 == 0)
        await #expect(throws: GATTError.disconnected) { try await client.write(handle: 1, value: [1]) }
        await #expect(throws: GATTError.disconnected) { try await client.writeWithoutResponse(handle: 1, value: [1]) }
    }

    @Test func aResponseOfTheWrongOpcodeIsAProtocolError() async throws {
        var link = ScriptedLink()
        let client = link.client
        let task = Task { try await client.read(handle: 1) }
        _ = await link.nextPDU()
        try await link.reply(ATTWriteResponse())
        await #expect(throws: GATTError.unexpectedResponse(expected: .readResponse, received: .writeResponse)) { try await task.value }
        // The transaction ended: the next request goes out and works.
        let next = Task { try await client.read(handle: 2) }
        _ = await link.nextPDU()
        try await link.reply(ATTReadResponse(value: [2]))
        #expect(try await next.value == [2])
    }

    @Test func anErrorResponseForAnotherRequestIsAProtocolError() async throws {
        var link = ScriptedLink()
        let client = link.client
        let task = Task { try await client.read(handle: 1) }
        _ = await link.nextPDU()
        try await link.reply(ATTErrorResponse(requestOpcode: .writeRequest, handle: 1, error: .writeNotPermitted))
        await #expect(throws: GATTError.unexpectedResponse(expected: .readResponse, received: .errorResponse)) { try await task.value }
    }

    @Test func aMalformedResponseFailsTheOperation() async throws {
        var link = ScriptedLink()
        let client = link.client
        let task = Task { try await client.read(handle: 1) }
        _ = await link.nextPDU()
        try await link.reply(raw: [0x01, 0x0A])
        let error = await #expect(throws: GATTError.self) { try await task.value }
        #expect(error?.isProtocolError == true)
    }

    @Test func anUnsolicitedResponseIsIgnoredAndCounted() async throws {
        var link = ScriptedLink()
        let client = link.client
        try await link.reply(ATTReadResponse(value: [7]))
        // The confirmation proves the client handled everything sent before the indication.
        try await link.reply(ATTHandleValueIndication(handle: 1, value: []))
        _ = await link.nextPDU()
        let task = Task { try await client.read(handle: 1) }
        _ = await link.nextPDU()
        try await link.reply(ATTReadResponse(value: [1]))
        #expect(try await task.value == [1])
        let observed14 = await client.counters.ignoredPDUs
        #expect(observed14 == 1)
    }

    @Test func aRequestFromThePeerIsAnsweredRequestNotSupported() async throws {
        var link = ScriptedLink()
        try await link.reply(ATTReadRequest(handle: 1))
        let observed15 = await link.nextPDU()
        #expect(observed15 == (try bytes(ATTErrorResponse(requestOpcode: .readRequest, handle: 0, error: .requestNotSupported))))
    }

    @Test func anExchangeMTURequestFromThePeerIsAnsweredAndAdopted() async throws {
        var link = ScriptedLink(mtu: 100)
        try await link.reply(ATTExchangeMTURequest(clientRxMTU: 64))
        #expect(await link.nextPDU() == (try bytes(ATTExchangeMTUResponse(serverRxMTU: 100))))
        let mtu = await link.client.mtu
        #expect(mtu == 64)
    }

    @Test func indicationsAreConfirmed() async throws {
        var link = ScriptedLink()
        try await link.reply(ATTHandleValueIndication(handle: 0x0E, value: [1]))
        let observed16 = await link.nextPDU()
        #expect(observed16 == [0x1E])
    }

    @Test func reliableWriteWithACorruptedEchoIsCancelled() async throws {
        var link = ScriptedLink()
        let client = link.client
        let task = Task { try await client.writeLong(handle: 3, value: Array(repeating: 5, count: 30), reliable: true) }
        let prepare = try ATTPrepareWriteRequest(decoding: #require(await link.nextPDU()))
        try await link.reply(ATTPrepareWriteResponse(handle: prepare.handle, offset: prepare.offset, value: [0] + prepare.value.dropFirst()))
        let observed17 = await link.nextPDU()
        #expect(observed17 == (try bytes(ATTExecuteWriteRequest(flags: .cancel))))
        try await link.reply(ATTExecuteWriteResponse())
        await #expect(throws: GATTError.reliableWriteMismatch(handle: 3, offset: 0)) { try await task.value }
        let observed18 = await client.liveContinuations
        #expect(observed18 == 0)
    }

    @Test func aSecondLongWriteIsRefusedWhileOneRuns() async throws {
        var link = ScriptedLink()
        let client = link.client
        let first = Task { try await client.writeLong(handle: 3, value: [1, 2]) }
        _ = await link.nextPDU()
        await #expect(throws: GATTError.procedureInProgress) { try await client.writeLong(handle: 3, value: [1]) }
        await link.peer.close(.closedLocally)
        await #expect(throws: GATTError.disconnected) { try await first.value }
    }

    /// Whatever a malicious server answers, the operation ends with a value or a typed error and
    /// leaves no continuation behind.
    @Test func arbitraryResponsesNeverTrapOrLeak() async throws {
        let responseOpcodes: [UInt8] = [0x01, 0x03, 0x05, 0x07, 0x09, 0x0B, 0x0D, 0x0F, 0x11, 0x13, 0x17, 0x19, 0x21, 0x1B, 0x1D]
        let service = GATTService(uuid: BluetoothUUID(0x180D), handles: ATTHandleRange(start: 1, end: 40))
        var generator = SplitMix64(seed: 0x4841_5241_4C44)
        for round in 0..<400 {
            var link = ScriptedLink()
            let client = link.client
            let task = Task { () async throws -> Void in
                switch round % 4 {
                case 0: _ = try await client.discoverPrimaryServices()
                case 1: _ = try await client.discoverCharacteristics(of: service)
                case 2: _ = try await client.readLong(handle: 3)
                default: try await client.writeLong(handle: 3, value: Array(repeating: 1, count: 40), reliable: true)
                }
            }
            _ = await link.nextPDU()
            let length = Int(generator.next() % 24)
            let body = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            try await link.reply(raw: [responseOpcodes[Int(generator.next() % UInt64(responseOpcodes.count))]] + body)
            await link.peer.close(.closedLocally)
            _ = await task.result
            let live = await client.liveContinuations
            #expect(live == 0)
        }
    }
}
