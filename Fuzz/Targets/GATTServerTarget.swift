import Dispatch
import HaraldATT
import HaraldCodec
import HaraldCore

/// The GATT server engine (HaraldATT's `GATTServer`) fed random PDUs by a client, over an
/// in-memory bearer pair, serving a database with the kinds of attribute a real device has:
/// GAP, a notifying heart-rate measurement, a long value for blob reads and prepared writes,
/// encrypted, authenticated and authorized attributes, an included service, read and write
/// handlers that refuse some values, and the Generic Attribute service the server adds.
///
/// Input: byte 0 is the link's security (bit 0 encrypted, bit 1 authenticated) and bit 2 turns
/// off Read Multiple Variable support. The rest is the client's PDUs, each a length byte then that
/// many bytes (cut short at the end of the input).
///
/// What must hold (Core Vol 3 Part F §3.3–3.4): every request, and every unknown opcode without
/// the command flag, gets exactly one answer before the next PDU is looked at: the response of
/// its kind (request opcode + 1) or an Error Response naming the request's opcode; the answer
/// decodes and fits the ATT_MTU; commands, confirmations, responses and notifications from the
/// client get no answer at all. At the end the server holds no connection and no continuation.
let gattServerTargets: [FuzzTarget] = [
    FuzzTarget("GATTServer.Requests", runsTasks: true, runServerRequests)
]

@Sendable func runServerRequests(_ bytes: [UInt8]) {
    let done = DispatchSemaphore(value: 0)
    let box = OutcomeBox()
    Task.detached {
        await box.set(await driveServer(bytes))
        done.signal()
    }
    if done.wait(timeout: .now() + .seconds(FuzzHangBound.seconds)) == .timedOut {
        fatalError("GATTServer: no end after \(FuzzHangBound.seconds) s for requests \(bytes.hexString)")
    }
    let live = box.liveContinuations
    require(live == 0, "GATTServer kept \(live) continuation(s) or connection(s) after requests \(bytes.hexString)")
}

/// A value handlers refuse, so refusals from handlers are exercised too.
private let refusedValue: [UInt8] = [0xFF]

private let fuzzServices: [GATTServiceDefinition] = [
    GATTServiceDefinition(
        uuid: BluetoothUUID(0x1800),
        characteristics: [
            GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A00), properties: [.read, .write], value: Array("Harald fuzz".utf8)),
            GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A01), properties: [.read], value: [0x40, 0x03]),
        ]),
    GATTServiceDefinition(
        uuid: BluetoothUUID(0x180F), isPrimary: false,
        characteristics: [
            GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: [.read, .notify], value: [87])
        ]),
    GATTServiceDefinition(
        uuid: BluetoothUUID(0x180D), includes: [BluetoothUUID(0x180F)],
        characteristics: [
            GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A37), properties: [.notify], value: [0x00, 72]),
            GATTCharacteristicDefinition(
                uuid: BluetoothUUID(0x2A38), properties: [.read], value: [0x01],
                descriptors: [.userDescription("Body sensor location")]),
            GATTCharacteristicDefinition(
                uuid: BluetoothUUID(0x2A39), properties: [.write],
                onWrite: { _, value in if value == refusedValue { throw ATTErrorCode(rawValue: 0x80) } }),
        ]),
    GATTServiceDefinition(
        uuid: "6E400001-B5A3-F393-E0A9-E50E24DCCA9E",
        characteristics: [
            GATTCharacteristicDefinition(
                uuid: "6E400002-B5A3-F393-E0A9-E50E24DCCA9E", properties: [.read, .write, .writeWithoutResponse, .indicate],
                value: (0..<300).map { UInt8(truncatingIfNeeded: $0) }),
            GATTCharacteristicDefinition(
                uuid: "6E400003-B5A3-F393-E0A9-E50E24DCCA9E", properties: [.read, .write], permissions: [.readEncrypted, .writeAuthenticated],
                value: [0x01, 0x02]),
            GATTCharacteristicDefinition(
                uuid: "6E400004-B5A3-F393-E0A9-E50E24DCCA9E", properties: [.read, .write], permissions: [.readAuthorized, .writeAuthorized],
                value: [0x03]),
            GATTCharacteristicDefinition(
                uuid: "6E400005-B5A3-F393-E0A9-E50E24DCCA9E", properties: [.read, .write],
                onRead: { context in
                    if context.handle & 1 == 0 && !context.security.isEncrypted { throw ATTErrorCode.insufficientEncryption }
                    return Array(repeating: 0x5A, count: 40)
                },
                onWrite: { _, value in if value == refusedValue { throw ATTErrorCode(rawValue: 0x81) } }),
        ]),
]

/// Plays the client's PDUs against a fresh server and returns the continuations and connections
/// the server still holds at the end.
func driveServer(_ bytes: [UInt8]) async -> Int {
    guard let flags = bytes.first else { return 0 }
    let server: GATTServer
    do {
        var configuration = GATTServer.Configuration()
        configuration.supportsReadMultipleVariable = flags & 0x04 == 0
        configuration.maximumPreparedWrites = 8
        server = try GATTServer(
            services: fuzzServices, configuration: configuration,
            authorize: { _, handle, isWrite in handle & 1 == 0 || isWrite })
    } catch {
        fatalError("GATTServer: the fuzz database does not build: \(error)")
    }
    let (client, peripheral) = ATTMemoryBearer.pair(mtu: 517)
    let connection = await server.attach(
        peripheral,
        security: GATTSecurity(
            isEncrypted: flags & 0x01 != 0, isAuthenticated: flags & 0x03 == 0x03, keySize: flags & 0x08 != 0 ? 7 : 16,
            isSecureConnections: flags & 0x10 != 0, bondedLevel: flags & 0x20 != 0 ? .encrypted : nil))
    var answers = client.events.makeAsyncIterator()
    var index = 1
    while index < bytes.count {
        let end = min(bytes.count, index + 1 + Int(bytes[index]))
        let pdu = Array(bytes[(index + 1)..<end])
        index = end
        do {
            try await client.send(pdu)
        } catch {
            fatalError("GATTServer: the client end closed under requests \(bytes.hexString)")
        }
        guard let first = pdu.first else { continue }
        let opcode = ATTOpcode(first)
        guard opcode.kind == .request || (opcode.kind == .unknown && !opcode.isCommand) else { continue }
        // The next PDU from the server must be this request's answer: anything it sent since the
        // last answer (to a command, say) would arrive first and fail the check.
        guard case .received(let answer)? = await answers.next() else {
            fatalError("GATTServer: link closed instead of answering \(pdu.hexString) in \(bytes.hexString)")
        }
        let mtu = await server.mtu(for: connection) ?? ATT.defaultMTU
        checkAnswer(answer, to: pdu, mtu: mtu, in: bytes)
    }
    await client.close(.closedLocally)
    // The server forgets the connection once its event loop sees the close.
    while await !server.connectionIDs.isEmpty { await Task.yield() }
    return await server.liveContinuations
}

private func checkAnswer(_ answer: [UInt8], to request: [UInt8], mtu: Int, in input: [UInt8]) {
    let opcode = ATTOpcode(request[0])
    require(answer.count <= mtu, "GATTServer: \(answer.count)-byte answer to \(request.hexString) exceeds ATT_MTU \(mtu) in \(input.hexString)")
    let decoded: ATTPDU
    do {
        decoded = try ATTPDU(decoding: answer)
    } catch {
        fatalError("GATTServer: answer \(answer.hexString) to \(request.hexString) does not decode (\(error)) in \(input.hexString)")
    }
    if case .errorResponse(let error) = decoded {
        require(
            error.requestOpcode == opcode,
            "GATTServer: Error Response \(answer.hexString) names another request than \(request.hexString) in \(input.hexString)")
        if opcode.kind == .unknown {
            require(error.error == .requestNotSupported, "GATTServer: unknown request \(request.hexString) answered \(answer.hexString)")
        }
    } else {
        require(
            opcode.kind == .request && decoded.opcode == opcode.responseOpcode,
            "GATTServer: \(request.hexString) answered by \(answer.hexString), not its response, in \(input.hexString)")
    }
}
