import Harald
import HaraldATT
import HaraldCodec
import HaraldSimulator
import Testing

/// What a faulty read left behind.
struct FaultOutcome: Sendable {
    var error: BluetoothError?
    var otherError: String?
    var disconnect: DisconnectReason?
    var liveContinuations: Int
    var ignoredPDUs: Int
    var readAfterwards: UInt8?
}

/// Connects to the strap, resolves Battery Level, applies `arrange` to the connection, reads
/// Battery Level with `timeout`, then reports the error, how the connection ended (if it did),
/// what is left pending and whether a second read, `settle` later, still works.
private func readBattery(
    timeout: Duration = .seconds(5), waitForDisconnect: Bool = false, settle: Duration = .zero,
    _ arrange: @escaping @Sendable (SimulatedConnection, LinkStatistics) async -> Void
) async throws -> FaultOutcome {
    let simulation = Simulation()
    let strap = VirtualPeripheral.heartRateStrap()
    let simulator = try Simulator(clock: simulation.clock, devices: [strap])
    let central = Central(backend: simulator.backend, clock: simulation.clock)
    return try await simulation.run(timeLimit: .seconds(300)) {
        let connection = try await central.connect(to: strap.identifier, services: [.battery], timeout: .seconds(5))
        _ = try await connection.characteristic(BluetoothUUID(0x2A19), service: BluetoothUUID(0x180F))
        let simulated = simulator.connection(to: strap.address)!
        await arrange(simulated, await simulated.statistics)
        var outcome = FaultOutcome(liveContinuations: 0, ignoredPDUs: 0)
        do { _ = try await connection.read(.batteryLevel, timeout: timeout) } catch let error as BluetoothError {
            outcome.error = error
        } catch { outcome.otherError = "\(error)" }
        if waitForDisconnect { outcome.disconnect = await connection.disconnection() }
        try? await simulation.clock.sleep(for: settle)
        outcome.readAfterwards = try? await connection.read(.batteryLevel, timeout: timeout).percent
        outcome.liveContinuations = await simulated.client.liveContinuations
        outcome.ignoredPDUs = await simulated.client.counters.ignoredPDUs
        return outcome
    }
}

/// What a connect, discover and read sequence left behind.
struct SequenceOutcome: Sendable {
    var percent: UInt8?
    var gattError: GATTError?
    var error: BluetoothError?
    var otherError: String?
    var pdusSent: [LinkSide: Int] = [:]
    var linkOpen = true
    var clientPending = 0
    var serverPending = 0
}

/// Connects to the strap (no MTU exchange on connect, so that every PDU is sent after the
/// connection is recorded), then exchanges MTUs, discovers Battery and reads Battery Level,
/// with `fault` injected from the link's first PDU.
func connectDiscoverRead(with fault: LinkFault?) async throws -> SequenceOutcome {
    let simulation = Simulation()
    let strap = VirtualPeripheral.heartRateStrap()
    let simulator = try Simulator(clock: simulation.clock, devices: [strap], exchangesMTUOnConnect: false)
    if let fault { simulator.injectOnNextConnection(to: strap.address, link: [fault]) }
    let central = Central(backend: simulator.backend, clock: simulation.clock)
    return try await simulation.run(timeLimit: .seconds(300)) {
        let connection = try await central.connect(to: strap.identifier, services: [.battery], timeout: .seconds(5))
        let simulated = simulator.connection(to: strap.address)!
        var outcome = SequenceOutcome()
        do {
            try await simulated.client.exchangeMTU()
            outcome.percent = try await connection.read(.batteryLevel, timeout: .seconds(5)).percent
        } catch let error as GATTError {
            outcome.gattError = error
        } catch let error as BluetoothError {
            outcome.error = error
        } catch { outcome.otherError = "\(error)" }
        outcome.pdusSent = await simulated.statistics.pdusSent
        outcome.linkOpen = simulated.link.isOpen
        outcome.clientPending = await simulated.client.liveContinuations
        outcome.serverPending = await simulated.server.liveContinuations
        return outcome
    }
}

@Suite("Every injected fault ends in a typed error or a disconnection, with nothing pending")
struct FaultTests {
    @Test func theLinkDroppingAtTheRequestFailsTheReadWithConnectionLost() async throws {
        let outcome = try await readBattery { connection, stats in
            await connection.inject(LinkFault(from: .central, pduNumber: stats.pdusSent[.central]! + 1, action: .dropLink))
        }
        #expect(outcome.error == .disconnected(.connectionLost))
        #expect(outcome.readAfterwards == nil)
        #expect(outcome.liveContinuations == 0)
    }

    /// Exchange MTU, turning Service Changed on before the first discovery (Read By Type 0x2A05,
    /// Find Information, the CCCD write), Find By Type Value ×2, Read By Type ×2 and Read: nine
    /// requests, nine answers.
    @Test func theConnectDiscoverReadSequenceSendsNinePDUsEachWay() async throws {
        let outcome = try await connectDiscoverRead(with: nil)
        #expect(outcome.percent == 87)
        #expect(outcome.pdusSent == [.central: 9, .peripheral: 9])
    }

    @Test(arguments: [LinkSide.central, .peripheral], 1...9)
    func theLinkDroppingAtAnyPDUOfConnectDiscoverReadEndsInDisconnectedWithNothingPending(side: LinkSide, pdu: Int) async throws {
        let outcome = try await connectDiscoverRead(with: LinkFault(from: side, pduNumber: pdu, action: .dropLink))
        // The link went down in place of that PDU: the ones before it were sent, it was not.
        #expect(outcome.pdusSent[side] == pdu - 1)
        #expect(!outcome.linkOpen)
        #expect(outcome.percent == nil)
        // The MTU exchange is the GATT client's own call; the rest goes through the public API.
        if pdu == 1 {
            #expect(outcome.gattError == .disconnected)
        } else {
            #expect(outcome.error == .disconnected(.connectionLost))
        }
        #expect(outcome.otherError == nil)
        #expect(outcome.clientPending == 0)
        #expect(outcome.serverPending == 0)
    }

    @Test func aLostResponseTimesOutThenTheTransactionTimeoutClosesTheLink() async throws {
        let outcome = try await readBattery(timeout: .seconds(2), waitForDisconnect: true) { connection, stats in
            await connection.inject(LinkFault(from: .peripheral, pduNumber: stats.pdusSent[.peripheral]! + 1, action: .drop))
        }
        #expect(outcome.error == .timeout(operation: "read of \(BluetoothUUID(0x2A19))", after: .seconds(2)))
        #expect(outcome.disconnect == .attTimeout)
        #expect(outcome.liveContinuations == 0)
    }

    @Test func aLateResponseTimesOutTheOperationButTheConnectionRecovers() async throws {
        // The second read goes out after the late response closed the transaction.
        let outcome = try await readBattery(timeout: .seconds(2), settle: .seconds(5)) { connection, stats in
            await connection.inject(LinkFault(from: .peripheral, pduNumber: stats.pdusSent[.peripheral]! + 1, action: .delay(.seconds(5))))
        }
        #expect(outcome.error == .timeout(operation: "read of \(BluetoothUUID(0x2A19))", after: .seconds(2)))
        #expect(outcome.readAfterwards == 87)
        #expect(outcome.liveContinuations == 0)
    }

    @Test func aCorruptedResponseOpcodeIsAProtocolViolation() async throws {
        let outcome = try await readBattery { connection, stats in
            await connection.inject(LinkFault(from: .peripheral, pduNumber: stats.pdusSent[.peripheral]! + 1, action: .corrupt(byteIndex: 0, xor: 0x02)))
        }
        guard case .protocolViolation? = outcome.error else {
            Issue.record("expected a protocol violation, got \(String(describing: outcome.error))")
            return
        }
        #expect(outcome.liveContinuations == 0)
    }

    @Test func aTruncatedResponseIsDeliveredShortAndFailsDecoding() async throws {
        // Read Response cut to its opcode: an empty value, which Battery Level cannot decode.
        let outcome = try await readBattery { connection, stats in
            await connection.inject(LinkFault(from: .peripheral, pduNumber: stats.pdusSent[.peripheral]! + 1, action: .truncate(toLength: 1)))
        }
        guard case .decoding? = outcome.error else {
            Issue.record("expected a decoding error, got \(String(describing: outcome.error))")
            return
        }
        #expect(outcome.readAfterwards == 87)
        #expect(outcome.liveContinuations == 0)
    }

    @Test func aResponseWithTheWrongOpcodeIsAProtocolViolation() async throws {
        let outcome = try await readBattery { connection, _ in connection.injectOnNext(.readRequest, .wrongOpcode(.readBlobResponse)) }
        #expect(outcome.error == .protocolViolation(GATTError.unexpectedResponse(expected: .readResponse, received: .readBlobResponse).description))
        #expect(outcome.liveContinuations == 0)
    }

    @Test func anUnsolicitedResponseIsIgnoredAndCounted() async throws {
        // Arriving while no request is outstanding, it answers nothing. (Arriving during the next
        // request it would be taken for that request's answer: ATT cannot tell them apart.)
        let outcome = try await readBattery(settle: .seconds(1)) { connection, _ in
            connection.injectOnNext(.readRequest, .unsolicitedResponse([ATTOpcode.writeResponse.rawValue]))
        }
        #expect(outcome.error == nil)
        #expect(outcome.ignoredPDUs == 1)
        #expect(outcome.readAfterwards == 87)
        #expect(outcome.liveContinuations == 0)
    }

    @Test func aPeerThatNeverAnswersTimesOutAndLosesTheLink() async throws {
        let outcome = try await readBattery(timeout: .seconds(3), waitForDisconnect: true) { connection, _ in
            connection.injectOnNext(.readRequest, .neverAnswer)
        }
        #expect(outcome.error == .timeout(operation: "read of \(BluetoothUUID(0x2A19))", after: .seconds(3)))
        #expect(outcome.disconnect == .attTimeout)
        #expect(outcome.liveContinuations == 0)
    }

    @Test func aPeerTerminatingInsteadOfAnsweringFailsTheReadWithRemoteRequest() async throws {
        let outcome = try await readBattery(waitForDisconnect: true) { connection, _ in connection.injectOnNext(.readRequest, .disconnect) }
        #expect(outcome.error == .disconnected(.remoteRequest))
        #expect(outcome.disconnect == .remoteRequest)
        #expect(outcome.liveContinuations == 0)
    }

    @Test func aNotificationFloodIsDroppedByTheBoundedBufferAndCounted() async throws {
        let simulation = Simulation()
        let strap = VirtualPeripheral.heartRateStrap(measurementInterval: .seconds(3600))
        let simulator = try Simulator(clock: simulation.clock, devices: [strap])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let (dropped, battery, pending) = try await simulation.run {
            let connection = try await central.connect(to: strap.identifier, services: [.heartRate, .battery], timeout: .seconds(5))
            let measurement = try await connection.characteristic(BluetoothUUID(0x2A37), service: BluetoothUUID(0x180D))
            let simulated = simulator.connection(to: strap.address)!
            // The answer to the CCCD write is followed by 100 measurements back to back.
            simulated.injectOnNext(.writeRequest, .floodNotifications(handle: try #require(measurement.valueHandle), value: [0x00, 70], count: 100))
            let values = try await connection.subscribe(.heartRateMeasurement, buffering: .oldest(8))
            // Let the flood arrive while nobody reads, then check the connection still works.
            let battery = try await connection.read(.batteryLevel).percent
            try await simulation.clock.sleep(for: .seconds(5))
            return (values.droppedCount, battery, await simulated.client.liveContinuations)
        }
        #expect(dropped == 92)
        #expect(battery == 87)
        #expect(pending == 0)
    }
}
