import ArgumentParser
import Foundation
import Harald
import HaraldCore
import HaraldGoProSimulation
import HaraldMiBandSimulation
import HaraldSimulator

/// `harald demo`: every device scenario, on the simulator's virtual devices (the default, in
/// virtual time) or on real peers over a radio transport, with a closing table of what each
/// step cost.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show every device scenario, on virtual devices in a deterministic simulation or on real peers, and what each step cost.",
        discussion: """
            Without options the demo runs on the simulator's heart-rate strap, camera and fitness band in virtual time. \
            With --transport tcp:HOST:PORT (or hci:N) it scans for the same kinds of devices (by service UUID or name) \
            and runs each section whose device it finds.
            """)

    @OptionGroup var radio: RadioOptions

    @Option(help: "Heart-rate measurements to show.")
    var measurements = 10

    @Option(help: "Seconds to scan for the devices.")
    var scanTime: Double?

    func validate() throws {
        if radio.json { throw ValidationError("the demo prints text only; --json is not supported") }
        if measurements < 1 { throw ValidationError("--measurements must be at least 1") }
    }

    func run() async throws {
        RadioSession.bootstrapLogging(level: radio.effectiveLogLevel)
        let transport = try radio.transportChoice()
        let failed: Bool
        switch transport {
        case .simulator: failed = try runOnSimulator()
        case .tcp, .hci: failed = try await runOnRadio()
        }
        if failed { throw ExitCode(1) }
    }

    // MARK: Simulator

    /// Every section on the virtual devices; returns whether a section failed.
    private func runOnSimulator() throws -> Bool {
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else {
            throw ValidationError("the simulation needs task executors (macOS 15 or later)")
        }
        let simulation = Simulation()
        let clock = simulation.clock
        // The strap keeps its serial number for paired centrals, so the pairing flow has work to do.
        let strap = VirtualPeripheral.heartRateStrap(protectedSerialNumber: true)
        let camera = VirtualPeripheral.actionCamera()
        let band = VirtualPeripheral.fitnessBand()
        let world = try Simulator(clock: clock, devices: [strap, camera, band])
        let count = measurements
        let scanDuration = Self.duration(scanTime ?? 1)
        return try simulation.run(timeLimit: .seconds(3600)) {
            let say = DemoPrinter(clock: clock)
            let summary = DemoSummary(showsLink: true)
            let central = Central(backend: world.backend, clock: clock)
            var failed = false
            _ = try await Self.scan(central, for: scanDuration, say, summary)
            for device in DemoDevice.allCases {
                do {
                    switch device {
                    case .strap:
                        let plan = StrapPlan(match: .service(ServiceSpec.heartRate.uuid), protectedSerialNumber: true, measurements: count, world: world)
                        try await Self.strap(central, plan, say, summary)
                    case .camera:
                        try await Self.camera(central, world, camera, say, summary)
                    case .band:
                        try await Self.band(central, world, band, say, summary)
                    }
                } catch {
                    say("the \(device.title) section failed: \(RadioSession.message(for: error))")
                    failed = true
                }
            }
            Self.finish(summary, say)
            return failed
        }
    }

    // MARK: Radio

    /// The sections whose devices a real scan finds; returns whether a section failed.
    private func runOnRadio() async throws -> Bool {
        let count = measurements
        let scanDuration = Self.duration(scanTime ?? 3)
        let outcome = FailureFlag()
        try await RadioSession.run(radio) { central in
            let say = DemoPrinter(since: .now)
            let summary = DemoSummary(showsLink: false)
            try await central.waitUntilPoweredOn(timeout: .seconds(5))
            let found = try await Self.scan(central, for: scanDuration, say, summary)
            for device in DemoDevice.allCases {
                guard let advertisement = found[device] else {
                    say("no \(device.title) found: skipping its section")
                    continue
                }
                do {
                    switch device {
                    case .strap:
                        let match: PairingFlow.Match = advertisement.localName.map { .namePrefix($0) } ?? .service(ServiceSpec.heartRate.uuid)
                        try await Self.strap(central, StrapPlan(match: match, protectedSerialNumber: false, measurements: count, world: nil), say, summary)
                    case .camera:
                        try await Self.camera(central, at: advertisement.peripheral, world: nil, say, summary)
                    case .band:
                        try await Self.band(central, at: advertisement.peripheral, world: nil, say, summary)
                    }
                } catch {
                    say("the \(device.title) section failed: \(RadioSession.message(for: error))")
                    outcome.set()
                }
            }
            Self.finish(summary, say)
        }
        return outcome.isSet
    }

    // MARK: Steps shared by both

    /// Scans for `duration` and returns the first advertisement of each demo device.
    private static func scan(_ central: Central, for duration: Duration, _ say: DemoPrinter, _ summary: DemoSummary) async throws
        -> [DemoDevice: Advertisement]
    {
        say("scanning for \(duration)")
        let scan = central.scan(ScanRequest(duplicates: .reportOnce))
        let clock = central.clock
        let seen: [Advertisement] = try await withThrowingTaskGroup(of: [Advertisement].self) { group in
            group.addTask {
                var found: [Advertisement] = []
                for try await advertisement in scan { found.append(advertisement) }
                return found
            }
            group.addTask {
                try await clock.sleep(for: duration)
                return []
            }
            // When the time is up the scan is cancelled and returns what it collected.
            var all: [Advertisement] = []
            if let first = try await group.next() { all += first }
            group.cancelAll()
            while let rest = try await group.next() { all += rest }
            return all
        }
        var found: [DemoDevice: Advertisement] = [:]
        for advertisement in seen {
            let services = advertisement.serviceUUIDs.map(\.description).joined(separator: ", ")
            let kind = DemoDevice.allCases.first { $0.matches(advertisement) }
            say(
                "  found \(advertisement.localName ?? "?") at \(advertisement.peripheral), \(advertisement.rssi.map(\.description) ?? "unknown RSSI"), services [\(services)]\(kind.map { " → \($0.title)" } ?? "")"
            )
            // Prefer a device whose name says it is one of the demo's (Harald's strap over any
            // other heart-rate sensor in the room).
            if let kind, found[kind] == nil || (advertisement.localName?.hasPrefix("Harald") ?? false) { found[kind] = advertisement }
        }
        summary.add("scan (\(seen.count) devices)", .zero)
        return found
    }

    private static func finish(_ summary: DemoSummary, _ say: DemoPrinter) {
        say("summary: what each step cost\(summary.showsLink ? "" : " (connection events and air time are counted on the simulator only)")")
        for line in summary.lines { say("  " + line) }
        say("done")
    }

    static func duration(_ seconds: Double) -> Duration { .milliseconds(Int64(max(0, seconds) * 1000)) }

    /// A connection's cost on the simulator, as the camera and band sections print it.
    static func report(_ connection: SimulatedConnection, _ say: DemoPrinter) async {
        let stats = await connection.statistics
        let counters = await connection.clientCounters
        say(
            "  cost: \(counters.totalRoundTrips) round trips, \(stats.pdusSent[.central] ?? 0)/\(stats.pdusSent[.peripheral] ?? 0) PDUs sent central/peripheral, \(stats.eventsWithData) connection events with data, \(stats.airTime) air time"
        )
    }
}

/// Set when any section fails.
final class FailureFlag: Sendable {
    private let value = Locked(false)
    var isSet: Bool { value.value }
    func set() { value.withLock { $0 = true } }
}
