import ArgumentParser
import Foundation
import Harald
import HaraldHeartRateMonitor
import HaraldSimulator

/// How the strap section finds and secures its strap.
struct StrapPlan: Sendable {
    /// Which advertisement is the strap.
    var match: PairingFlow.Match
    /// Whether the strap keeps its serial number for paired centrals (the simulator's does; a
    /// peer that protects nothing is still run through the pairing flow, whose probe read then
    /// succeeds at once).
    var protectedSerialNumber: Bool
    /// Heart-rate measurements to show.
    var measurements: Int
    /// The simulator, for link statistics and fault injection; nil on a radio.
    var world: Simulator?
}

// The heart-rate strap's part of `harald demo`, through the HaraldHeartRateMonitor kit.
extension Demo {
    static func strap(_ central: Central, _ plan: StrapPlan, _ say: DemoPrinter, _ summary: DemoSummary) async throws {
        say("heart-rate strap: pairing flow (scan, connect, read a protected characteristic, pair, verify)")
        let progress: @Sendable (PairingFlow.Progress) -> Void = { say("  pairing: \($0)") }
        let monitor: HeartRateMonitor
        if plan.protectedSerialNumber {
            let paired = try await HeartRateMonitor.pair(on: central, match: plan.match, protected: .serialNumber, timeout: .seconds(15), progress: progress)
            say("  verified over the paired link: serial number \"\(paired.protectedValue.text)\"")
            monitor = paired.monitor
        } else {
            let paired = try await HeartRateMonitor.pair(
                on: central, match: plan.match, protected: .bodySensorLocation, timeout: .seconds(15), progress: progress)
            say("  this strap protects nothing: the probe read (body sensor location: \(paired.protectedValue)) succeeded at once")
            monitor = paired.monitor
        }
        let connection = monitor.connection
        let world = plan.world
        summary.add("strap: scan, connect, pair", await DemoCost.of(connection, in: world))
        do {
            try await liveHeartRate(monitor, plan, say, summary)
            try await summary.measure("strap: control point", connection, world: world) { try await controlPoint(monitor, say) }
            try await summary.measure("strap: location, battery", connection, world: world) { try await locationAndBattery(monitor, say) }
            if let world, let address = connection.peripheral.address, let simulated = world.connection(to: address) {
                await summary.measure("strap: unanswered read (fault)", connection, world: world) {
                    await unansweredRead(monitor, simulated, say)
                }
            }
        } catch {
            await connection.disconnect()
            throw error
        }
        await connection.disconnect()
    }

    /// The live line: bpm, a sparkline of the recent rate, RR intervals, contact, statistics.
    private static func liveHeartRate(_ monitor: HeartRateMonitor, _ plan: StrapPlan, _ say: DemoPrinter, _ summary: DemoSummary) async throws {
        try await summary.measure("strap: \(plan.measurements) heart-rate measurements", monitor.connection, world: plan.world) {
            let readings = try await monitor.readings(stallTimeout: .seconds(5))
            var statistics = HeartRateStatistics(window: 20)
            var received = 0
            do {
                for try await reading in readings {
                    statistics.add(reading)
                    say.live("  " + HeartRateMonitorCommand.Monitor.line(reading, statistics))
                    received += 1
                    if received == plan.measurements { break }
                }
            } catch {
                say.endLive()
                throw error
            }
            say.endLive()
            await monitor.stop(readings)
        }
    }

    /// Resets energy expended, then sends an op code the strap does not know.
    private static func controlPoint(_ monitor: HeartRateMonitor, _ say: DemoPrinter) async throws {
        do throws(HeartRateMonitorError) {
            try await monitor.resetEnergyExpended()
            say("  control point: energy expended reset to 0 kJ")
            try await monitor.send(.reserved(0x7F))
            say("  control point: op code 0x7F accepted")
        } catch {
            switch error {
            case .controlPointNotSupported, .notSupported: say("  control point: \(error)")
            default: throw error
            }
        }
    }

    private static func locationAndBattery(_ monitor: HeartRateMonitor, _ say: DemoPrinter) async throws {
        say("  body sensor location: \(try await monitor.bodySensorLocation())")
        say("  battery: \(try await monitor.batteryLevel().map { "\($0) %" } ?? "not known")")
        if try await monitor.offersBatteryNotifications() {
            let levels = try await monitor.batteryLevels()
            await monitor.stop(levels)
            say("  battery notifications: offered (subscribed, then stopped)")
        } else {
            say("  battery notifications: not offered")
        }
    }

    /// A read the strap never answers: the kit's timeout ends it, and the link closes as ATT requires.
    private static func unansweredRead(_ monitor: HeartRateMonitor, _ simulated: SimulatedConnection, _ say: DemoPrinter) async {
        simulated.injectOnNext(.readRequest, .neverAnswer)
        say("  injected fault: the strap will not answer the next read")
        var impatient = monitor
        impatient.timeout = .seconds(2)
        do {
            _ = try await impatient.bodySensorLocation()
            say("  read body sensor location: answered after all")
        } catch {
            say("  read body sensor location: \(error)")
        }
        say("  link closed: \(await monitor.connection.disconnection())")
    }
}
