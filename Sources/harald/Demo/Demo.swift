import ArgumentParser
import Foundation
import Harald
import HaraldSimulator

/// `harald demo`: the public API against the built-in virtual devices, in virtual time.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run Harald against virtual devices in a deterministic simulation and show what happened.")

    @Option(help: "Heart-rate measurements to print.")
    var measurements = 5

    func run() throws {
        RadioSession.bootstrapLogging(verbose: false)
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else {
            throw ValidationError("the simulation needs task executors (macOS 15 or later)")
        }
        let simulation = Simulation()
        let clock = simulation.clock
        let strap = VirtualPeripheral.heartRateStrap()
        let camera = VirtualPeripheral.actionCamera()
        let band = VirtualPeripheral.fitnessBand()
        let world = try Simulator(clock: clock, devices: [strap, camera, band])
        let count = measurements
        try simulation.run(timeLimit: .seconds(3600)) {
            let say = DemoPrinter(clock: clock)
            let central = Central(backend: world.backend, clock: clock)
            try await Self.scan(central, say)
            try await Self.strap(central, world, strap, measurements: count, say)
            try await Self.camera(central, world, camera, say)
            try await Self.band(central, world, band, say)
            say("done")
        }
    }

    private static func scan(_ central: Central, _ say: DemoPrinter) async throws {
        say("scanning for 1 s")
        let scan = central.scan()
        let clock = central.clock
        let seen: [Advertisement] = try await withThrowingTaskGroup(of: [Advertisement].self) { group in
            group.addTask {
                var found: [Advertisement] = []
                for try await advertisement in scan { found.append(advertisement) }
                return found
            }
            group.addTask {
                try await clock.sleep(for: .seconds(1))
                return []
            }
            // When the second passes the scan is cancelled and returns what it collected.
            var all: [Advertisement] = []
            if let first = try await group.next() { all += first }
            group.cancelAll()
            while let rest = try await group.next() { all += rest }
            return all
        }
        for advertisement in seen {
            let services = advertisement.serviceUUIDs.map(\.description).joined(separator: ", ")
            say("  found \(advertisement.localName ?? "?") at \(advertisement.peripheral), \(advertisement.rssi) dBm, services [\(services)]")
        }
    }

    static func report(_ connection: SimulatedConnection, _ say: DemoPrinter) async {
        let stats = await connection.statistics
        let counters = await connection.clientCounters
        say("  cost: \(counters.totalRoundTrips) round trips, \(stats.pdusSent[.central] ?? 0)/\(stats.pdusSent[.peripheral] ?? 0) PDUs sent central/peripheral, \(stats.eventsWithData) connection events with data, \(stats.airTime) air time")
    }
}
