// The soak run of issue 16: connect → discover → subscribe → read → disconnect, over and over,
// through the public API, for a given wall-clock time; samples its own resident memory (VmRSS)
// and open file descriptors, and fails when either grows over the last half of the run or when a
// cycle leaves an operation pending. Started by scripts/soak, which runs one process against a
// Bumble heart-rate peer (HCI backend over a Bumble virtual controller) and one against the
// simulator, side by side.
//
// Usage: HaraldSoak --seconds S [--sample-seconds N] --transport tcp:127.0.0.1:PORT --address C0:00:00:00:00:01
//        HaraldSoak --seconds S [--sample-seconds N] --simulator
// Prints one `sample` line per interval and a closing `result` line; exit 0 only when the run passed.
import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldGATTBackend
import HaraldHCI
import HaraldHCIBackend
import HaraldSimulator
import HaraldTestSupport
import Logging

// MARK: Measuring the process

/// Resident memory in KiB, from /proc/self/status (0 where there is no /proc).
func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }
    return 0
}

/// Open file descriptors, from /proc/self/fd (the directory listing's own descriptor excluded).
func openDescriptors() -> Int {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count ?? 1) - 1
}

struct Sample {
    let seconds: Double
    let cycles: Int
    let failures: Int
    let residentKiB: Int
    let descriptors: Int
}

/// Least-squares slope of `y` over `x` (0 for fewer than two points).
func slope(_ points: [(x: Double, y: Double)]) -> Double {
    guard points.count >= 2 else { return 0 }
    let n = Double(points.count)
    let meanX = points.map(\.x).reduce(0, +) / n
    let meanY = points.map(\.y).reduce(0, +) / n
    let sxx = points.map { ($0.x - meanX) * ($0.x - meanX) }.reduce(0, +)
    guard sxx > 0 else { return 0 }
    return points.map { ($0.x - meanX) * ($0.y - meanY) }.reduce(0, +) / sxx
}

// MARK: The cycle

enum SoakFailure: Error, CustomStringConvertible {
    case missing(String)
    case leaked(String)
    var description: String {
        switch self {
        case let .missing(what): "not on the peer: \(what)"
        case let .leaked(what): "left pending after the cycle: \(what)"
        }
    }
}

let heartRateMeasurement = BluetoothUUID(0x2A37)
let batteryLevel = BluetoothUUID(0x2A19)

/// One cycle on `central`: connect, discover everything, subscribe to the heart-rate measurement
/// and take two values, read the battery level, end the subscription, disconnect.
func cycle(central: Central, peer: PeripheralIdentifier, timeout: Duration) async throws {
    let connection = try await central.connect(to: peer, timeout: timeout)
    do throws(any Error) {
        let characteristics = try await connection.discoverAll(timeout: timeout).flatMap(\.characteristics)
        guard let measurement = characteristics.first(where: { $0.uuid == heartRateMeasurement }) else {
            throw SoakFailure.missing("Heart Rate Measurement")
        }
        guard let battery = characteristics.first(where: { $0.uuid == batteryLevel }) else { throw SoakFailure.missing("Battery Level") }
        let subscription = try await connection.subscribe(measurement, as: [UInt8].self, buffering: .newest(8), timeout: timeout)
        var received = 0
        for try await _ in subscription {
            received += 1
            if received == 2 { break }
        }
        await connection.unsubscribe(subscription)
        _ = try await connection.readRaw(battery, timeout: timeout)
    } catch {
        await connection.disconnect()
        throw error
    }
    await connection.disconnect()
}

// MARK: Running

struct Options {
    var seconds = 60.0
    var sampleSeconds = 10.0
    var transport: String?
    var address: String?
    var simulator = false

    init(_ arguments: [String]) {
        var index = 0
        while index < arguments.count {
            let value = index + 1 < arguments.count ? arguments[index + 1] : ""
            switch arguments[index] {
            case "--seconds": seconds = Double(value) ?? seconds; index += 1
            case "--sample-seconds": sampleSeconds = Double(value) ?? sampleSeconds; index += 1
            case "--transport": transport = value; index += 1
            case "--address": address = value; index += 1
            case "--simulator": simulator = true
            default: break
            }
            index += 1
        }
    }
}

/// Counts cycles and failures and prints a sample every `interval` of wall time.
final class Recorder: Sendable {
    private struct State {
        var cycles = 0
        var failures = 0
        var samples: [Sample] = []
        var lastSample: Double = -.infinity
    }
    private let state = Locked(State())
    private let start = Date()
    let label: String
    let interval: Double

    init(label: String, interval: Double) {
        self.label = label
        self.interval = interval
    }

    var elapsed: Double { Date().timeIntervalSince(start) }

    func finished(_ error: (any Error)?) {
        let failures = state.withLock { state in
            state.cycles += 1
            if error != nil { state.failures += 1 }
            return state.failures
        }
        if let error { print("\(label) failure \(failures) after \(String(format: "%.0f", elapsed)) s: \(error)") }
        sampleIfDue()
    }

    func sampleIfDue(force: Bool = false) {
        let now = elapsed
        let sample: Sample? = state.withLock { state in
            guard force || now - state.lastSample >= interval else { return nil }
            state.lastSample = now
            let sample = Sample(seconds: now, cycles: state.cycles, failures: state.failures, residentKiB: residentKiB(), descriptors: openDescriptors())
            state.samples.append(sample)
            return sample
        }
        guard let sample else { return }
        print(
            "\(label) sample t=\(String(format: "%.0f", sample.seconds))s cycles=\(sample.cycles) failures=\(sample.failures) "
                + "rss=\(sample.residentKiB)KiB fds=\(sample.descriptors)")
        fflush(nil)
    }

    var samples: [Sample] { state.withLock { $0.samples } }
}

/// The verdict over the samples: growth of the fitted line over the last half of the run.
///
/// Tolerances: resident memory may rise by at most 2 MiB along the last half's fitted line. The
/// first half is left out because the Swift runtime's metadata and conformance caches, glibc's
/// malloc arenas and the logger fill up while the first cycles run; after that a flat process
/// wanders by a few hundred KiB as arenas are trimmed and refilled, and the fit over dozens of
/// samples averages that out. A leak of one small object per cycle stays under it, but a leak of a
/// connection's state (its GATT client, L2CAP buffers, tasks: several KiB each) over the
/// thousands of cycles of a 30-minute run does not. Descriptors must not rise by even one along
/// the fitted line: the process opens a fixed set (the TCP socket to the controller, stdio).
///
/// Per cycle, the fitted growth of resident memory against cycles done must stay at or under
/// 1 KiB: a slow run (the Bumble one makes about one cycle a second) could otherwise leak a
/// kilobyte or two a cycle and stay under 2 MiB, yet that is 4–8 MiB an hour for a gateway that
/// runs for weeks; anything kept per connection (a GATT client, its bearer and streams) is
/// several KiB, so it shows.
func verdict(label: String, samples: [Sample], failures: Int, leaks: Int) -> Bool {
    let half = samples.filter { $0.seconds >= (samples.last?.seconds ?? 0) / 2 }
    let span = (half.last?.seconds ?? 0) - (half.first?.seconds ?? 0)
    let rssRise = slope(half.map { ($0.seconds, Double($0.residentKiB)) }) * span
    let rssPerCycle = slope(half.map { (Double($0.cycles), Double($0.residentKiB)) })
    let fdRise = slope(half.map { ($0.seconds, Double($0.descriptors)) }) * span
    let cycles = samples.last?.cycles ?? 0
    let rssOK = rssRise <= 2048 && rssPerCycle <= 1
    let fdOK = fdRise < 1
    let passed = rssOK && fdOK && failures == 0 && leaks == 0 && cycles > 0
    print(
        "\(label) result cycles=\(cycles) failures=\(failures) leaks=\(leaks) "
            + "rss_first=\(samples.first?.residentKiB ?? 0)KiB rss_last=\(samples.last?.residentKiB ?? 0)KiB "
            + "rss_rise_last_half=\(String(format: "%.0f", rssRise))KiB(limit 2048) "
            + "rss_per_cycle_last_half=\(String(format: "%.2f", rssPerCycle))KiB(limit 1) "
            + "fds_first=\(samples.first?.descriptors ?? 0) fds_last=\(samples.last?.descriptors ?? 0) "
            + "fds_rise_last_half=\(String(format: "%.2f", fdRise))(limit <1) \(passed ? "PASS" : "FAIL")")
    return passed
}

/// The host's continuations and background tasks now.
func hostCounts(_ host: HCIHost) async -> (continuations: Int, tasks: Int) {
    (await host.liveContinuations, await host.liveTaskCount)
}

/// Cycles against a Bumble peer over the HCI backend, in real time.
func soakOverHCI(options: Options, transport: String, address: String) async throws -> Bool {
    guard let peerAddress = BluetoothAddress(address, kind: .random) else { throw SoakFailure.missing("address \(address)") }
    let recorder = Recorder(label: "hci", interval: options.sampleSeconds)
    let backend = ConnectionRecorder(try await HCICentralBackend.open(transport: transport))
    let central = Central(backend: backend, defaultTimeout: .seconds(10))
    try await central.waitUntilPoweredOn(timeout: .seconds(10))
    let peer = PeripheralIdentifier(address: peerAddress)
    var leaks = 0
    var hostBaseline: (continuations: Int, tasks: Int)?
    recorder.sampleIfDue(force: true)
    while recorder.elapsed < options.seconds {
        var failure: (any Error)?
        do { try await cycle(central: central, peer: peer, timeout: .seconds(10)) } catch { failure = error }
        // What the cycle left behind: its GATT client's continuations (zero once disconnected),
        // and the host's continuations and background tasks against the least it has held after
        // a cycle (the backend's own watchers stay for its life). Tasks that end a moment after
        // the disconnection (the fallback timer of HCI Disconnect, the link set-up) are given
        // 2.5 s to finish: only what stays counts as leaked.
        let clientPending = await backend.pendingOperations()
        var host = await hostCounts(backend.inner.host)
        for _ in 0..<50 {
            if let baseline = hostBaseline, host.continuations <= baseline.continuations, host.tasks <= baseline.tasks { break }
            if hostBaseline == nil, host.tasks == 0 { break }
            try await Task.sleep(for: .milliseconds(50))
            host = await hostCounts(backend.inner.host)
        }
        let baseline = hostBaseline ?? host
        hostBaseline = (min(baseline.continuations, host.continuations), min(baseline.tasks, host.tasks))
        if clientPending != 0 || host.continuations > baseline.continuations || host.tasks > baseline.tasks {
            leaks += 1
            print("hci leak after cycle: client continuations \(clientPending), host \(host) (baseline \(baseline))")
            if failure == nil { failure = SoakFailure.leaked("\(clientPending) client continuations, host \(host)") }
        }
        recorder.finished(failure)
        // The peer advertises again once it notices the disconnection.
        try await Task.sleep(for: .milliseconds(100))
    }
    recorder.sampleIfDue(force: true)
    await backend.inner.close()
    let samples = recorder.samples
    return verdict(label: "hci", samples: samples, failures: samples.last?.failures ?? 0, leaks: leaks)
}

/// Cycles against the simulator's heart-rate strap, each cycle one run in virtual time.
func soakOnSimulator(options: Options) throws -> Bool {
    let recorder = Recorder(label: "simulator", interval: options.sampleSeconds)
    let simulation = Simulation()
    let strap = VirtualPeripheral.heartRateStrap(measurementInterval: .milliseconds(100))
    let simulator = try Simulator(clock: simulation.clock, devices: [strap])
    let central = Central(backend: simulator.backend, clock: simulation.clock, defaultTimeout: .seconds(10))
    var leaks = 0
    recorder.sampleIfDue(force: true)
    while recorder.elapsed < options.seconds {
        var failure: (any Error)?
        do {
            try simulation.run(timeLimit: .seconds(120)) {
                try await cycle(central: central, peer: strap.identifier, timeout: .seconds(10))
            }
        } catch {
            failure = error
        }
        if let connection = simulator.connection(to: strap.address) {
            let pending = try simulation.run { await connection.client.liveContinuations }
            if pending != 0 {
                leaks += 1
                if failure == nil { failure = SoakFailure.leaked("\(pending) client continuations") }
            }
        }
        recorder.finished(failure)
    }
    recorder.sampleIfDue(force: true)
    let samples = recorder.samples
    return verdict(label: "simulator", samples: samples, failures: samples.last?.failures ?? 0, leaks: leaks)
}

@main
struct HaraldSoak {
    static func main() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let options = Options(Array(CommandLine.arguments.dropFirst()))
        let passed: Bool
        if options.simulator {
            passed = try soakOnSimulator(options: options)
        } else if let transport = options.transport, let address = options.address {
            passed = try await soakOverHCI(options: options, transport: transport, address: address)
        } else {
            print("usage: HaraldSoak --seconds S [--sample-seconds N] (--simulator | --transport tcp:HOST:PORT --address ADDR)")
            exit(2)
        }
        exit(passed ? 0 : 1)
    }
}
