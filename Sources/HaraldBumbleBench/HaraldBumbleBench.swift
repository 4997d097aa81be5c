// Harald's side of the Harald-vs-Bumble benchmark (scripts/bench-bumble): one central session
// against a Bumble peer (scripts/bumble/bench_peer.py), step by step — connect (with the MTU
// exchange), discover every service, characteristic and descriptor (sweeping all services and
// characteristics at once), read every readable value (Read Multiple Variable batches),
// then subscribe and receive N notifications — through the public API on the HCI backend.
// For each step it reports wall time and the ATT requests the GATT client sent
// (`GATTClient.counters`). The same steps are done by scripts/bumble/bench_central.py.
//
// Usage: HaraldBumbleBench --transport tcp:HOST:PORT --address C0:00:00:00:00:05
//            [--iterations 5] [--notifications 1000] [--stream FFB1]
// Prints one JSON document on stdout.
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldGATTLink
import HaraldHCIBackend
import Logging

/// Passes every call to the HCI backend and keeps each connection's GATT engine, whose counters
/// are not reachable through `PeripheralConnection`.
final class CountingBackend: CentralBackend {
    let inner: HCICentralBackend
    private let connections = Locked<[GATTConnection]>([])

    init(inner: HCICentralBackend) { self.inner = inner }

    var latest: GATTConnection? { connections.withLock { $0.last } }

    func radioStates() -> AsyncStream<RadioState> { inner.radioStates() }
    func scan(_ request: ScanRequest) -> ScanReports { inner.scan(request) }
    func connect(to peripheral: PeripheralIdentifier, options: ConnectionOptions, timeout: Duration?) async throws(BluetoothError)
        -> any ConnectionBackend
    {
        let connection = try await inner.connect(to: peripheral, options: options, timeout: timeout)
        if let gatt = connection as? GATTConnection { connections.withLock { $0.append(gatt) } }
        return connection
    }
}

/// ATT requests (PDUs that expect a response) sent, by opcode.
func requests(_ counters: ATTCounters) -> [UInt8: Int] {
    var result: [UInt8: Int] = [:]
    for (opcode, count) in counters.pdusSent where !opcode.isCommand && opcode.rawValue != 0x1E && opcode.rawValue != 0x01 {
        result[opcode.rawValue, default: 0] += count
    }
    return result
}

struct StepResult {
    var seconds: Double
    /// CLOCK_MONOTONIC seconds at the step's start and end (the clock the peer stamps with).
    var startedAt = 0.0
    var endedAt = 0.0
    var cpuSeconds: Double
    var contextSwitches: Int
    var requests: [UInt8: Int]

    var json: [String: Any] {
        [
            "seconds": seconds, "startedAt": startedAt, "endedAt": endedAt, "cpuSeconds": cpuSeconds, "contextSwitches": contextSwitches,
            "attRequests": requests.values.reduce(0, +),
            "attRequestsByOpcode": Dictionary(uniqueKeysWithValues: requests.map { (String(format: "0x%02X", $0.key), $0.value) }),
        ]
    }
}

func arguments() -> [String: String] {
    var result: [String: String] = [:]
    var iterator = CommandLine.arguments.dropFirst().makeIterator()
    while let key = iterator.next() {
        guard key.hasPrefix("--"), let value = iterator.next() else { usageError("usage: --transport tcp:HOST:PORT --address ADDR") }
        result[String(key.dropFirst(2))] = value
    }
    return result
}

/// ``take(_:from:)`` off any actor: under a task executor preference it runs on that executor.
@concurrent
func takeOffActor(_ wanted: Int, from subscription: Subscription<[UInt8]>) async throws -> (received: Int, outOfOrder: Int) {
    try await take(wanted, from: subscription)
}

/// Takes `wanted` values from `subscription` on the caller's actor, counting those whose first
/// four bytes (a little-endian sequence number) are not the next one.
nonisolated(nonsending) func take(_ wanted: Int, from subscription: Subscription<[UInt8]>) async throws -> (received: Int, outOfOrder: Int) {
    var received = 0
    var outOfOrder = 0
    for try await value in subscription {
        let sequence = value.count >= 4 ? Int(value[0]) | Int(value[1]) << 8 | Int(value[2]) << 16 | Int(value[3]) << 24 : -1
        if sequence != received { outOfOrder += 1 }
        received += 1
        if received == wanted { break }
    }
    return (received, outOfOrder)
}

/// CPU time this process has used (every thread: the HCI reader included), in seconds.
func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// CLOCK_MONOTONIC in seconds: the clock Python's time.monotonic() reads, to line the step up
/// with the peer's timestamps.
func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Context switches of this process so far, voluntary (a thread went to sleep) plus involuntary
/// (a thread was preempted), over every thread.
func processContextSwitches() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_nvcsw + usage.ru_nivcsw
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

@main
struct HaraldBumbleBench {
    static func main() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let options = arguments()
        switch options["role"] {
        case "pairing-central":
            guard let transport = options["transport"], let name = options["name"], let model = options["model"] else {
                usageError("usage: --role pairing-central --transport T --name NAME --model M [--iterations N]")
            }
            return try await PairingBench.runCentral(
                transport: transport, name: name, model: model, iterations: Int(options["iterations"] ?? "10") ?? 10)
        case "pairing-peripheral":
            guard let transport = options["transport"], let name = options["name"], let model = options["model"] else {
                usageError("usage: --role pairing-peripheral --transport T --name NAME --model M")
            }
            return try await PairingBench.runPeripheral(transport: transport, name: name, model: model)
        case "stream-peripheral":
            guard let transport = options["transport"], let text = options["address"], let address = BluetoothAddress(text, kind: .random) else {
                usageError("usage: --role stream-peripheral --transport T --address ADDR [--notify-count N]")
            }
            return try await StreamPeripheral.run(transport: transport, address: address, count: Int(options["notify-count"] ?? "1000") ?? 1000)
        default: break
        }
        guard let transport = options["transport"], let addressText = options["address"],
            let address = BluetoothAddress(addressText, kind: .random)
        else { usageError("usage: --transport tcp:HOST:PORT --address ADDR") }
        let iterations = Int(options["iterations"] ?? "5") ?? 5
        let wanted = Int(options["notifications"] ?? "1000") ?? 1000
        // `--loop transport`: the notification loop runs on the thread that reads the controller
        // (HCIHost.taskExecutor) instead of the global executor's threads.
        let loopOnTransportThread = options["loop"] == "transport"
        guard let streamUUID = BluetoothUUID(options["stream"] ?? "FFB1") else { usageError("bad --stream") }

        let backend = CountingBackend(inner: try await HCICentralBackend.open(transport: transport))
        let central = Central(backend: backend)
        try await central.waitUntilPoweredOn(timeout: .seconds(5))
        let clock = ContinuousClock()
        var runs: [[String: Any]] = []
        for _ in 0..<iterations {
            var steps: [String: StepResult] = [:]
            var last = ATTCounters()
            var cpu = processCPUSeconds()
            var switches = processContextSwitches()
            func step(_ name: String, _ start: ContinuousClock.Instant, _ counters: ATTCounters) {
                let elapsed = seconds(clock.now - start)
                let cpuNow = processCPUSeconds()
                var delta = requests(counters)
                for (opcode, count) in requests(last) { delta[opcode, default: 0] -= count }
                steps[name] = StepResult(
                    seconds: elapsed, cpuSeconds: cpuNow - cpu, contextSwitches: processContextSwitches() - switches,
                    requests: delta.filter { $0.value != 0 })
                last = counters
                cpu = processCPUSeconds()
                switches = processContextSwitches()
            }

            var start = clock.now
            cpu = processCPUSeconds()
            switches = processContextSwitches()
            let connectStartedAt = monotonicSeconds()
            let connection = try await central.connect(to: PeripheralIdentifier(address: address), timeout: .seconds(20))
            let connectEndedAt = monotonicSeconds()
            guard let gatt = backend.latest else { failure("the HCI backend did not return a GATT connection") }
            step("connect", start, await gatt.client.counters)
            steps["connect"]?.startedAt = connectStartedAt
            steps["connect"]?.endedAt = connectEndedAt

            start = clock.now
            cpu = processCPUSeconds()
            switches = processContextSwitches()
            // Services, then every characteristic in one sweep, then every descriptor in one sweep.
            let characteristics = try await connection.discoverAll().flatMap(\.characteristics)
            let descriptorCount = try await connection.discoverDescriptors(ofAll: characteristics).reduce(0) { $0 + $1.count }
            step("discover", start, await gatt.client.counters)

            start = clock.now
            cpu = processCPUSeconds()
            switches = processContextSwitches()
            // Every readable value in Read Multiple Variable batches.
            var bytesRead = 0
            for value in try await connection.readRawValues(of: characteristics.filter { $0.properties.contains(.read) }) {
                bytesRead += try value.get().count
            }
            step("read", start, await gatt.client.counters)

            guard let stream = characteristics.first(where: { $0.uuid == streamUUID }) else { failure("no \(streamUUID) on the peer") }
            start = clock.now
            cpu = processCPUSeconds()
            switches = processContextSwitches()
            let startedAt = monotonicSeconds()
            let subscription = try await connection.subscribe(stream, as: [UInt8].self, buffering: .oldest(wanted + 64))
            let received: Int
            let outOfOrder: Int
            if loopOnTransportThread {
                guard let executor = backend.inner.host.taskExecutor else { failure("the transport has no thread of its own") }
                (received, outOfOrder) = try await withTaskExecutorPreference(executor) { try await takeOffActor(wanted, from: subscription) }
            } else {
                // On the main actor, as an app's loop would be.
                (received, outOfOrder) = try await take(wanted, from: subscription)
            }
            let endedAt = monotonicSeconds()
            step("notifications", start, await gatt.client.counters)
            steps["notifications"]?.startedAt = startedAt
            steps["notifications"]?.endedAt = endedAt
            let dropped = await gatt.client.counters.droppedValues
            await connection.disconnect()

            runs.append([
                "steps": steps.mapValues(\.json),
                "services": characteristics.map(\.service).reduce(into: [BluetoothUUID]()) { if !$0.contains($1) { $0.append($1) } }.count,
                "characteristics": characteristics.count, "descriptors": descriptorCount, "bytesRead": bytesRead,
                "notificationsReceived": received, "notificationsOutOfOrder": outOfOrder, "notificationsDropped": dropped,
                "mtu": await gatt.client.mtu,
            ])
            // Let the peer notice the disconnection and advertise again; the random part samples
            // every phase of its 20 ms advertising interval, which the next connect step waits for.
            try await clock.sleep(for: .milliseconds(300) + .microseconds(Int.random(in: 0..<20_000)))
        }
        await backend.inner.close()
        let report: [String: Any] = ["central": "harald", "loop": loopOnTransportThread ? "transport" : "default", "iterations": runs]
        let data = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}

/// Ends the process on a command-line mistake: exit status 64 (EX_USAGE), not a trap.
func usageError(_ message: String) -> Never { end(message, status: 64) }

/// Ends the process when the peer or the stack is not what the benchmark needs: exit status 1,
/// not a trap.
func failure(_ message: String) -> Never { end(message, status: 1) }

/// Writes `message` to standard error and exits with `status`.
private func end(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("HaraldBumbleBench: \(message)\n".utf8))
    exit(status)
}
