import ArgumentParser
import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldMiBand
import HaraldMiBandSimulation
import HaraldSimulator

// The Mi-Band-like band's part of `harald demo`, on the Mi Band kit (HaraldMiBand).
extension Demo {
    static func band(_ central: Central, _ world: Simulator, _ band: VirtualPeripheral, _ say: DemoPrinter, _ summary: DemoSummary) async throws {
        say("connecting to \(band.name ?? "the band")")
        try await Self.band(central, at: band.identifier, world: world, say, summary)
        if let simulated = world.connection(to: band.address) { await Self.report(simulated, say) }
    }

    /// The band's steps on any backend: the simulator's band and the Bumble band
    /// (scripts/bumble/miband_peer.py) keep the same activity history. Each step's cost becomes a
    /// row of `summary` (with the link's figures when `world` is the simulation).
    static func band(_ central: Central, at peripheral: PeripheralIdentifier, world: Simulator?, _ say: DemoPrinter, _ summary: DemoSummary) async throws {
        let costs = CostedSteps(summary: summary, world: world)
        let miBand = try await MiBand2.connect(central, to: peripheral, timeout: .seconds(5))
        let connection = miBand.connection
        let outcome = try await miBand.authenticate(key: .default)
        await costs.sinceConnecting("band: connect, auth", connection)
        say("  auth: challenge answered with AES-128 of the default key → \(outcome == .authenticated ? "authenticated" : "key installed, authenticated")")
        let steps = try await costs.measure("band: steps", connection) { try await miBand.steps() }
        say("  steps \(steps.steps), \(steps.meters) m, \(steps.calories) kcal")
        let battery = try await costs.measure("band: battery", connection) { try await miBand.battery() }
        let lastCharge = battery.lastCharge.map { ", last charged \($0) to \(battery.lastChargeLevel) %" } ?? ""
        say("  battery \(battery.level) %\(battery.isCharging ? ", charging" : "")\(lastCharge), \(battery.chargeCount) charges")
        say("  heart rate: single measurement…")
        let bpm = try await costs.measure("band: single heart rate", connection) { try await miBand.heartRate() }
        say("  heart rate \(bpm) bpm")
        let since = FitnessBandState.defaultHistoryEnd.addingTimeInterval(-3 * 3600)
        say("  activity sync since \(MiBandDateTime(since)) UTC")
        let bar = ProgressLine(say)
        let records = try await costs.measure("band: activity sync (180 min)", connection) {
            try await miBand.fetchActivity(since: since) { progress in bar.show(progress) }
        }
        let stepsInHistory = records.reduce(0) { $0 + Int($1.sample.steps) }
        let rates = records.compactMap { $0.sample.heartRate.map(Int.init) }
        let average = rates.isEmpty ? 0 : rates.reduce(0, +) / rates.count
        say("  activity: \(records.count) minutes, \(stepsInHistory) steps, \(rates.count) heart-rate readings averaging \(average) bpm")
        await miBand.connection.disconnect()
    }
}

/// Prints a synchronization's progress as a bar, one line per quarter of the transfer.
private final class ProgressLine: Sendable {
    private let say: DemoPrinter
    /// The last quarter drawn.
    private let shown = Locked(-1)

    init(_ say: DemoPrinter) { self.say = say }

    func show(_ progress: SynchronizationFlow<MiBandActivityTransfer>.Progress) {
        switch progress {
        case let .expecting(total): say("  activity: the band holds \(total) minutes")
        case let .received(count, total?) where total > 0:
            let quarter = count * 4 / total
            let draw = shown.withLock { shown -> Bool in
                guard quarter > shown else { return false }
                shown = quarter
                return true
            }
            guard draw else { return }
            let width = 24
            let filled = count * width / total
            say("  [" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] \(count)/\(total)")
        default: break
        }
    }
}
