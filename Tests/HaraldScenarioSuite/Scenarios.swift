import Harald
import HaraldCodec
import HaraldCore

// The scenarios themselves, in the order of `Scenario`'s cases.
extension Scenario {
    static func connect(_ harness: ScenarioHarness) async throws -> PeripheralConnection {
        let connection = try await harness.central.connect(to: harness.peer.identifier, services: [ScenarioSpecs.service], timeout: harness.timeout)
        await connection.setDefaultTimeout(harness.timeout)
        return connection
    }

    static func scan(_ harness: ScenarioHarness) async throws {
        let found = try await harness.central.scan(for: ScenarioSpecs.service).first(timeout: harness.timeout)
        try checkEqual(found.peripheral, harness.peer.identifier, "scanned peripheral")
        try check(found.isConnectable, "the peer advertises as connectable")
        try checkEqual(found.localName, ScenarioProfile.name, "advertised name")
        let connection = try await harness.central.connect(to: found, services: [ScenarioSpecs.service], timeout: harness.timeout)
        try checkEqual(connection.peripheral, harness.peer.identifier, "connected peripheral")
        await connection.disconnect()
    }

    static func discover(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        let tree = try await connection.discoverAll()
        let found =
            try tree.first { $0.service.uuid == ScenarioProfile.service }.map(\.characteristics)
            ?? { throw ScenarioFailure("service \(ScenarioProfile.service) not discovered in \(tree.map(\.service.uuid))") }()
        let byUUID = Dictionary(found.map { ($0.uuid, $0) }) { first, _ in first }
        try checkEqual(Set(byUUID.keys), Set(ScenarioProfile.characteristics), "characteristics")
        let expected: [(BluetoothUUID, [CharacteristicProperties])] = [
            (ScenarioProfile.status, [.read, .notify]), (ScenarioProfile.setting, [.read, .write]),
            (ScenarioProfile.stream, [.writeWithoutResponse]), (ScenarioProfile.command, [.write]), (ScenarioProfile.response, [.notify]),
        ]
        for (uuid, properties) in expected {
            for property in properties {
                try check(byUUID[uuid]?.properties.contains(property) == true, "\(uuid) lacks \(property)")
            }
        }
        try checkEqual(Set(found.map(\.id)).count, found.count, "distinct identities")
        await connection.disconnect()
    }

    static func read(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        try checkEqual(try await connection.read(ScenarioSpecs.setting), UInt16(0x0201), "typed setting")
        try checkEqual(try await connection.read(ScenarioSpecs.status), ScenarioProfile.statusInitial, "status")
        await connection.disconnect()
    }

    static func write(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        try await connection.write(0x0809, to: ScenarioSpecs.setting)
        try checkEqual(try await harness.peer.value(of: ScenarioProfile.setting), [0x09, 0x08], "peer's setting after the write")
        try checkEqual(try await connection.read(ScenarioSpecs.setting), UInt16(0x0809), "setting read back")
        await connection.disconnect()
    }

    static func refusedWrite(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        let command = try await connection.characteristic(ScenarioProfile.command, service: ScenarioProfile.service)
        let refusal = BluetoothError.attribute(ATTErrorCode(rawValue: ScenarioProfile.refusalCode), on: command.id)
        try await checkThrows("refused command", refusal) {
            try await connection.write([ScenarioProfile.refusedCommand, 0x01], to: ScenarioSpecs.command)
        }
        // The refusal does not break the connection.
        try checkEqual(try await connection.read(ScenarioSpecs.setting), UInt16(0x0201), "read after the refusal")
        await connection.disconnect()
    }

    static func writeWithoutResponse(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        let chunks: [[UInt8]] = (0..<20).map { [UInt8($0), 0xEE] }
        for chunk in chunks { try await connection.writeWithoutResponse(chunk, to: ScenarioSpecs.stream) }
        try checkEqual(try await harness.peer.writesWithoutResponse(to: ScenarioProfile.stream, count: chunks.count), chunks, "writes the peer received")
        await connection.disconnect()
    }

    static func subscribe(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        let updates = try await connection.subscribe(ScenarioSpecs.status, buffering: .oldest(4096))
        let sent: [[UInt8]] = (1...5).map { [UInt8($0)] }
        for value in sent { try await harness.peer.notify(value, on: ScenarioProfile.status) }
        var received: [[UInt8]] = []
        for try await value in updates {
            received.append(value)
            if received.count == sent.count { break }
        }
        try checkEqual(received, sent, "notified values")
        try checkEqual(updates.droppedCount, 0, "dropped values")
        await connection.unsubscribe(updates)
        await connection.disconnect()
    }

    static func readResponseIsNotANotification(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        let updates = try await connection.subscribe(ScenarioSpecs.status, buffering: .oldest(4096))
        try checkEqual(try await connection.read(ScenarioSpecs.status), ScenarioProfile.statusInitial, "read")
        try await harness.peer.notify([0x77], on: ScenarioProfile.status)
        var iterator = updates.makeAsyncIterator()
        try checkEqual(try await iterator.next(), [0x77], "the first value a subscriber sees (the notification, not the read response)")
        await connection.disconnect()
    }

    static func requestResponse(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        let answer = try await connection.request(write: [0x01, 0x05], to: ScenarioSpecs.command, response: ScenarioSpecs.response)
        try checkEqual(answer, ScenarioProfile.answer(to: [0x01, 0x05]), "response")
        // A second request on the same connection gets its own answer.
        let second = try await connection.request(write: [0x02], to: ScenarioSpecs.command, response: ScenarioSpecs.response)
        try checkEqual(second, ScenarioProfile.answer(to: [0x02]), "second response")
        await connection.disconnect()
    }

    static func concurrentRequests(_ harness: ScenarioHarness) async throws {
        // Two handles on one link (an app and a kit, say), each with three requests in flight at
        // once on the same response characteristic.
        let app = try await connect(harness)
        let kit = try await connect(harness)
        let commands: [[UInt8]] = (1...6).map { [UInt8($0), UInt8(0x10 + $0)] }
        let answers = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for (index, command) in commands.enumerated() {
                let handle = index.isMultiple(of: 2) ? app : kit
                group.addTask {
                    (index, try await handle.request(write: command, to: ScenarioSpecs.command, response: ScenarioSpecs.response))
                }
            }
            var answers = [[UInt8]](repeating: [], count: commands.count)
            for try await (index, answer) in group { answers[index] = answer }
            return answers
        }
        try checkEqual(answers, commands.map(ScenarioProfile.answer(to:)), "the answer each concurrent request got")
        await kit.disconnect()
        await app.disconnect()
    }

    static func aRequestWaitingForItsTurnEndsAtItsOwnDeadline(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        // A first request resolves both characteristics and turns the responses on.
        _ = try await connection.request(write: [0x01], to: ScenarioSpecs.command, response: ScenarioSpecs.response)
        try await harness.peer.holdAnswers()
        async let first = connection.request(write: [0x02, 0x01], to: ScenarioSpecs.command, response: ScenarioSpecs.response)
        try await harness.peer.waitForHeldRequests(1)
        // The first request's command is unanswered: the second waits for its turn, and its own
        // short deadline passes while it waits.
        let short = harness.shortTimeout
        async let second: (any Error)? = {
            do {
                _ = try await connection.request(write: [0x03], to: ScenarioSpecs.command, response: ScenarioSpecs.response, timeout: short)
                return nil
            } catch { return error }
        }()
        while try await connection.requestsWaitingForTheirTurn(on: ScenarioSpecs.response) == 0 { await Task.yield() }
        await harness.elapse(short)
        let error = await second
        guard case let BluetoothError.timeout(_, after)? = error else { throw ScenarioFailure("expected a timeout, got \(String(describing: error))") }
        try checkEqual(after, short, "reported timeout of the request that waited for its turn")
        try await harness.peer.resumeAnswering()
        try checkEqual(try await first, ScenarioProfile.answer(to: [0x02, 0x01]), "the first request's answer")
        // The line moved on: a later request gets its turn and its answer.
        let third = try await connection.request(write: [0x04], to: ScenarioSpecs.command, response: ScenarioSpecs.response)
        try checkEqual(third, ScenarioProfile.answer(to: [0x04]), "a later request's answer")
        await connection.disconnect()
    }

    static func disconnectMidOperation(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        _ = try await connection.characteristic(ScenarioProfile.setting, service: ScenarioProfile.service)
        try await harness.peer.holdAnswers()
        let results = try await whilePending([
            { _ = try await connection.read(ScenarioSpecs.setting) },
            { try await connection.write(0x0303, to: ScenarioSpecs.setting) },
        ]) {
            try await harness.peer.waitForHeldRequests(1)
            try await harness.peer.disconnectFromPeer()
        }
        let lost = BluetoothError.disconnected(.remoteRequest)
        try checkEqual(try results[0].failure("pending read") as? BluetoothError, lost, "pending read's error")
        try checkEqual(try results[1].failure("queued write") as? BluetoothError, lost, "queued write's error")
        try checkEqual(await connection.disconnection(), .remoteRequest, "disconnect reason")
        try await checkThrows("read after the link is gone", lost) { try await connection.read(ScenarioSpecs.setting) }
        try await harness.peer.resumeAnswering()
    }

    static func peerDisconnectEndsSubscriptions(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        let updates = try await connection.subscribe(ScenarioSpecs.status, buffering: .oldest(4096))
        try await harness.peer.notify([0x10], on: ScenarioProfile.status)
        var iterator = updates.makeAsyncIterator()
        try checkEqual(try await iterator.next(), [0x10], "value before the disconnect")
        try await harness.peer.disconnectFromPeer()
        do {
            let after = try await iterator.next()
            try checkEqual(after, nil, "the subscription after the peer left")
        } catch let error as BluetoothError {
            try checkEqual(error, .disconnected(.remoteRequest), "how the subscription ends")
        }
    }

    static func timeout(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        _ = try await connection.characteristic(ScenarioProfile.setting, service: ScenarioProfile.service)
        try await harness.peer.holdAnswers()
        let short = harness.shortTimeout
        let results = try await whilePending([{ _ = try await connection.read(ScenarioSpecs.setting, timeout: short) }]) {
            try await harness.peer.waitForHeldRequests(1)
            await harness.elapse(short)
        }
        let error = try results[0].failure("unanswered read")
        guard case let BluetoothError.timeout(_, after) = error else { throw ScenarioFailure("expected a timeout, got \(error)") }
        try checkEqual(after, short, "reported timeout")
        try await harness.peer.resumeAnswering()
        await connection.disconnect()
    }

    static func cancellation(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        _ = try await connection.characteristic(ScenarioProfile.setting, service: ScenarioProfile.service)
        try await harness.peer.holdAnswers()
        let results = try await whilePending([{ _ = try await connection.read(ScenarioSpecs.setting) }], cancelling: true) {
            try await harness.peer.waitForHeldRequests(1)
        }
        let error = try results[0].failure("cancelled read")
        try check((error as? BluetoothError) == .cancelled, "a cancelled read throws BluetoothError.cancelled, not \(error)")
        try await harness.peer.resumeAnswering()
        // The connection is still usable.
        try checkEqual(try await connection.read(ScenarioSpecs.setting), UInt16(0x0201), "read after the cancellation")
        await connection.disconnect()
    }

    /// App code that mixes Harald's calls with others (so its `catch` sees `any Error`) tells a
    /// cancellation from a failure with one test, `error.isCancellation`, and its task is
    /// cancelled when it does.
    static func aCancelledCallIsACancellationWhereItIsCaught(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        _ = try await connection.characteristic(ScenarioProfile.setting, service: ScenarioProfile.service)
        try await harness.peer.holdAnswers()
        let results = try await whilePending(
            [
                {
                    do {
                        try Task.checkCancellation()
                        _ = try await connection.read(ScenarioSpecs.setting)
                        throw ScenarioFailure("the held read answered")
                    } catch  where error.isCancellation {
                        guard Task.isCancelled else { throw ScenarioFailure("a cancellation was reported to a task that is not cancelled") }
                    }
                }
            ], cancelling: true
        ) {
            try await harness.peer.waitForHeldRequests(1)
        }
        if case .failure(let error) = results[0] { throw ScenarioFailure("the cancelled read was not a cancellation where caught: \(error)") }
        try await harness.peer.resumeAnswering()
        await connection.disconnect()
    }

    static func localDisconnect(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        await connection.disconnect()
        try checkEqual(await connection.disconnection(), .localRequest, "disconnect reason")
        try await checkThrows("read after disconnecting", .disconnected(.localRequest)) { try await connection.read(ScenarioSpecs.setting) }
    }

    static func reconnect(_ harness: ScenarioHarness) async throws {
        let first = try await connect(harness)
        try checkEqual(try await first.read(ScenarioSpecs.setting), UInt16(0x0201), "first connection's read")
        await first.disconnect()
        let second = try await connect(harness)
        try checkEqual(try await second.read(ScenarioSpecs.setting), UInt16(0x0201), "second connection's read")
        try await checkThrows(
            "read on the closed first connection",
            matching: { error in
                if case BluetoothError.disconnected = error { return true } else { return false }
            }
        ) { try await first.read(ScenarioSpecs.setting) }
        await second.disconnect()
    }
}
