import Dispatch
import HaraldATT
import HaraldCodec

/// A "malicious server": a real `GATTClient` over an in-memory bearer pair whose server end plays
/// a script taken from the fuzz input, while the client runs discovery, reads, writes and
/// subscriptions against it.
///
/// Script: a list of PDUs, each one header byte then `header & 0x3F` bytes (cut short at the end
/// of the input). Header bit 7 closes the link after that PDU. Each time a request arrives, the
/// server sends the next PDUs of the script up to and including the first whose opcode is a
/// response (or error response): everything before it (notifications, indications, unknown
/// opcodes, garbage) arrives while the request is in flight. When the script runs out the server
/// closes the link. So every request gets an answer or a closed link and the client never has to
/// wait for a timeout: an input runs in well under a millisecond.
///
/// How one input runs synchronously: libFuzzer calls us on its own thread, so the client, server
/// and driver run in a detached task on the concurrency pool and this thread waits on a semaphore
/// with the hang bound (`FuzzHangBound`, 10 s while fuzzing); a run that does not finish in time is a hang and traps. At the end the
/// client must hold no continuation (`liveContinuations == 0`).
let serverTargets: [FuzzTarget] = [
    FuzzTarget("GATTClient.ScriptedServer", runsTasks: true, runScriptedServer)
]

@Sendable func runScriptedServer(_ bytes: [UInt8]) {
    let done = DispatchSemaphore(value: 0)
    let box = OutcomeBox()
    Task.detached {
        await box.set(await driveClient(script: ScriptedServer.parse(bytes)))
        done.signal()
    }
    if done.wait(timeout: .now() + .seconds(FuzzHangBound.seconds)) == .timedOut {
        fatalError("GATTClient vs scripted server: no end after \(FuzzHangBound.seconds) s for script \(bytes.hexString)")
    }
    let live = box.liveContinuations
    require(live == 0, "GATTClient kept \(live) continuation(s) after script \(bytes.hexString)")
}

/// What the detached run hands back to the waiting thread.
///
/// `@unchecked Sendable` is safe: the one write happens before `done.signal()` and the one read
/// after `done.wait` returns, so the semaphore orders them.
final class OutcomeBox: @unchecked Sendable {
    var liveContinuations = -1
    func set(_ value: Int) async { liveContinuations = value }
}

/// One scripted PDU.
struct ScriptedPDU: Sendable {
    var bytes: [UInt8]
    var closesAfter: Bool
}

/// The server end: answers requests from the script, ignores commands and confirmations.
enum ScriptedServer {
    static func parse(_ input: [UInt8]) -> [ScriptedPDU] {
        var items: [ScriptedPDU] = []
        var index = 0
        while index < input.count {
            let header = input[index]
            let end = min(input.count, index + 1 + Int(header & 0x3F))
            items.append(ScriptedPDU(bytes: Array(input[(index + 1)..<end]), closesAfter: header & 0x80 != 0))
            index = end
        }
        return items
    }

    static func run(_ bearer: ATTMemoryBearer, script: [ScriptedPDU]) async {
        var next = script.makeIterator()
        for await event in bearer.events {
            guard case let .received(request) = event else { break }
            guard let first = request.first, ATTOpcode(first).kind == .request else { continue }
            var answered = false
            while !answered {
                guard let item = next.next() else {
                    await bearer.close(.closedLocally)
                    return
                }
                try? await bearer.send(item.bytes)
                if item.closesAfter {
                    await bearer.close(.linkLost(code: 0x13))
                    return
                }
                if let opcode = item.bytes.first, ATTOpcode(opcode).kind == .response { answered = true }
            }
        }
    }
}

/// Runs the client's procedures against the script and returns the client's live continuations
/// once everything has ended.
func driveClient(script: [ScriptedPDU]) async -> Int {
    let (central, peripheral) = ATTMemoryBearer.pair(mtu: 247)
    let server = Task { await ScriptedServer.run(peripheral, script: script) }
    let client = GATTClient(
        bearer: central,
        configuration: GATTClient.Configuration(defaultTimeout: .seconds(30), transactionTimeout: .seconds(30)))
    let subscription = await client.subscribe(handle: 0x0003)
    let listener = Task {
        var count = 0
        for await value in subscription.values { count += value.value.count }
        return count
    }
    _ = try? await client.exchangeMTU()
    let services = (try? await client.discoverPrimaryServices()) ?? []
    for service in services.prefix(3) {
        _ = try? await client.discoverIncludedServices(of: service)
        let characteristics = (try? await client.discoverCharacteristics(of: service)) ?? []
        for characteristic in characteristics.prefix(3) {
            _ = try? await client.discoverDescriptors(of: characteristic)
            _ = try? await client.readLong(handle: characteristic.valueHandle)
            _ = try? await client.write(handle: characteristic.valueHandle, value: [0x01, 0x02])
        }
    }
    _ = try? await client.discoverPrimaryServices(uuid: BluetoothUUID(0x180D))
    _ = try? await client.read(type: BluetoothUUID(0x2A00))
    _ = try? await client.readMultiple(handles: [0x0003, 0x0005])
    _ = try? await client.readMultipleVariable(handles: [0x0003, 0x0005])
    _ = try? await client.writeLong(handle: 0x0003, value: Array(repeating: 0x5A, count: 40), reliable: true)
    _ = try? await client.configureNotifications(cccdHandle: 0x0004, .notifications)
    try? await client.writeWithoutResponse(handle: 0x0003, value: [0x01])
    await client.disconnect()
    await server.value
    blackHole(await listener.value)
    return await client.liveContinuations
}
