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
import HaraldGATTLink
import HaraldHCI
import HaraldHCIBackend
import HaraldSimulator
import HaraldTestSupport
import Logging

// MARK: Measuring the process

/// Where the process's own figures are read: `/proc/self`, or `HARALD_SOAK_PROC_SELF` (the
/// self-test points it at a directory that does not exist, to show the verdict fails when it
/// cannot measure).
let procSelf = ProcessInfo.processInfo.environment["HARALD_SOAK_PROC_SELF"] ?? "/proc/self"

/// Resident memory in KiB, from `status`'s VmRSS line; nil where it cannot be read.
func residentKiB() -> Int? {
    guard let status = try? String(contentsOfFile: procSelf + "/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }
    return nil
}

/// Open file descriptors, from the `fd` directory (the listing's own descriptor excluded); nil
/// where it cannot be read.
func openDescriptors() -> Int? {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: procSelf + "/fd") else { return nil }
    return entries.count - 1
}

/// One reading of the process. A figure that could not be read is nil, and fails the verdict: a
/// soak that cannot see memory or descriptors must not report that they stayed flat.
struct Sample {
    let seconds: Double
    let cycles: Int
    let failures: Int
    let residentKiB: Int?
    let descriptors: Int?
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
    var selfTest = false

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
            case "--self-test": selfTest = true
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
                + "rss=\(sample.residentKiB.map(String.init) ?? "unmeasured")KiB fds=\(sample.descriptors.map(String.init) ?? "unmeasured")")
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
///
/// A run that cannot measure fails: a sample whose memory or descriptor figure could not be read
/// (no `/proc`), or fewer than ``minimumSamplesInLastHalf`` samples in the last half.
func verdict(label: String, samples: [Sample], failures: Int, leaks: Int) -> Bool {
    let half = samples.filter { $0.seconds >= (samples.last?.seconds ?? 0) / 2 }
    // What makes the figures below meaningless: a reading that failed, or too few samples in the
    // last half to fit a line through (a run shorter than a few sample intervals).
    var unmeasured: [String] = []
    if samples.contains(where: { $0.residentKiB == nil }) { unmeasured.append("resident memory (\(procSelf)/status)") }
    if samples.contains(where: { $0.descriptors == nil }) { unmeasured.append("open descriptors (\(procSelf)/fd)") }
    if half.count < minimumSamplesInLastHalf {
        unmeasured.append("growth: \(half.count) samples in the last half, at least \(minimumSamplesInLastHalf) needed")
    }
    let span = (half.last?.seconds ?? 0) - (half.first?.seconds ?? 0)
    let rssRise = slope(half.map { ($0.seconds, Double($0.residentKiB ?? 0)) }) * span
    let rssPerCycle = slope(half.map { (Double($0.cycles), Double($0.residentKiB ?? 0)) })
    let fdRise = slope(half.map { ($0.seconds, Double($0.descriptors ?? 0)) }) * span
    let cycles = samples.last?.cycles ?? 0
    let rssOK = rssRise <= 2048 && rssPerCycle <= 1
    let fdOK = fdRise < 1
    let passed = unmeasured.isEmpty && rssOK && fdOK && failures == 0 && leaks == 0 && cycles > 0
    let figure = { (value: Int?) in value.map(String.init) ?? "unmeasured" }
    print(
        "\(label) result cycles=\(cycles) failures=\(failures) leaks=\(leaks) "
            + "rss_first=\(figure(samples.first?.residentKiB))KiB rss_last=\(figure(samples.last?.residentKiB))KiB "
            + "rss_rise_last_half=\(String(format: "%.0f", rssRise))KiB(limit 2048) "
            + "rss_per_cycle_last_half=\(String(format: "%.2f", rssPerCycle))KiB(limit 1) "
            + "fds_first=\(figure(samples.first?.descriptors)) fds_last=\(figure(samples.last?.descriptors)) "
            + "fds_rise_last_half=\(String(format: "%.2f", fdRise))(limit <1) \(passed ? "PASS" : "FAIL")")
    for what in unmeasured { print("\(label) cannot measure \(what): FAIL") }
    return passed
}

/// The fewest samples in the last half of a run that a growth line is fitted through: with
/// fewer, a warm-up step or one trim of the malloc arenas decides the slope.
let minimumSamplesInLastHalf = 4

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

/// The verdict's self-test: synthetic runs that must pass or fail, so a change that makes the
/// verdict unable to fail is caught without a soak. True when every case came out as expected.
func verdictSelfTest() -> Bool {
    func run(rss: (Int) -> Int?, fds: (Int) -> Int? = { _ in 12 }, samples count: Int = 20) -> [Sample] {
        (0..<count).map { index in
            Sample(seconds: Double(index) * 15, cycles: index * 100, failures: 0, residentKiB: rss(index), descriptors: fds(index))
        }
    }
    let cases: [(name: String, samples: [Sample], failures: Int, leaks: Int, passes: Bool)] = [
        ("flat memory and descriptors", run(rss: { 25_000 + ($0 % 2) * 100 }), 0, 0, true),
        ("memory rising 2 KiB a cycle", run(rss: { 25_000 + $0 * 200 }), 0, 0, false),
        ("a descriptor opened every sample", run(rss: { _ in 25_000 }, fds: { 12 + $0 }), 0, 0, false),
        ("memory that cannot be read", run(rss: { _ in nil }), 0, 0, false),
        ("descriptors that cannot be read", run(rss: { _ in 25_000 }, fds: { _ in nil }), 0, 0, false),
        ("too few samples to fit a line", run(rss: { _ in 25_000 }, samples: 4), 0, 0, false),
        ("a failed cycle", run(rss: { _ in 25_000 }), 1, 0, false),
        ("an operation left pending", run(rss: { _ in 25_000 }), 0, 1, false),
    ]
    var allAsExpected = true
    for item in cases {
        let passed = verdict(label: "self-test(\(item.name))", samples: item.samples, failures: item.failures, leaks: item.leaks)
        if passed != item.passes {
            allAsExpected = false
            print("self-test: \(item.name) \(passed ? "passed" : "failed"), expected it to \(item.passes ? "pass" : "fail")")
        }
    }
    print("self-test: the verdict \(allAsExpected ? "passes and fails as expected" : "is WRONG")")
    return allAsExpected
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
        if options.selfTest {
            passed = verdictSelfTest()
        } else if options.simulator {
            passed = try soakOnSimulator(options: options)
        } else if let transport = options.transport, let address = options.address {
            passed = try await soakOverHCI(options: options, transport: transport, address: address)
        } else {
            print("usage: HaraldSoak --seconds S [--sample-seconds N] (--simulator | --transport tcp:HOST:PORT --address ADDR) | --self-test")
            exit(2)
        }
        exit(passed ? 0 : 1)
    }
}
