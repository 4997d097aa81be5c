import Foundation
import Harald
import HaraldCore
import HaraldHCIBackend
import HaraldMiBand
import HaraldMiBandSimulation
import HaraldProfiles
import HaraldSimulator
import Testing

/// Where scripts/integration put the Mi-Band-like Bumble band, or nil when it is not running.
enum BumbleBand {
    /// `tcp:127.0.0.1:PORT` of the controller reserved for these tests' central.
    static var transport: String? { ProcessInfo.processInfo.environment["HARALD_MIBAND_TRANSPORT"] }
    /// scripts/bumble/miband_peer.py's static random address (scripts/integration gives it this one).
    static let address = BluetoothAddress("C0:00:00:00:00:08", kind: .random)!
    /// The end of the peer's activity history (2026-11-21 12:00 UTC, as in the simulator).
    static let historyEnd = MiBandDateTime(year: 2026, month: 11, day: 21, hour: 12).date()

    /// Opens the central's controller, connects the kit to the band, runs `body`, closes all.
    static func withBand<R: Sendable>(_ body: @escaping @Sendable (MiBand2) async throws -> R) async throws -> R {
        let backend = try await HCICentralBackend.open(transport: try #require(transport))
        let central = Central(backend: backend, defaultTimeout: .seconds(20))
        do {
            let result = try await realTimeGuard {
                var band = try await MiBand2.connect(central, to: PeripheralIdentifier(address: address), timeout: .seconds(20))
                band.replyTimeout = .seconds(20)
                let result = try await body(band)
                await band.connection.disconnect()
                return result
            }
            await backend.close()
            return result
        } catch {
            await backend.close()
            throw error
        }
    }
}

struct HangGuardExpired: Error {}

/// Runs `body`, failing if it has not finished after `seconds` of real time: a guard against
/// hangs, not a timing assertion.
func realTimeGuard<R: Sendable>(seconds: Double = 90, _ body: @escaping @Sendable () async throws -> R) async throws -> R {
    try await withThrowingTaskGroup(of: R?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw HangGuardExpired() }
        return value
    }
}

/// The Mi Band kit over Harald's HCI host stack against scripts/bumble/miband_peer.py (real
/// time, real AES on the peer's side via Python's cryptography).
@Suite(
    "Bumble integration: the Mi Band kit against a Bumble band", .serialized,
    .enabled(if: BumbleBand.transport != nil, "set HARALD_MIBAND_TRANSPORT (run scripts/integration)"))
struct MiBandBumbleIntegrationTests {
    @Test func authenticatesAndReadsStepsAndBattery() async throws {
        let (outcome, steps, battery) = try await BumbleBand.withBand { band in
            (try await band.authenticate(), try await band.steps(), try await band.battery())
        }
        #expect(outcome == .authenticated)
        #expect(steps.steps >= 409 && steps.meters == steps.steps * 62 / 100)
        #expect(battery.level == 64 && battery.isCharging)
        #expect(battery.lastCharge == MiBandDateTime(year: 2026, month: 11, day: 20, hour: 8, minute: 15))
    }

    @Test func stepUpdatesArriveAsNotificationsAndNeverGoBackwards() async throws {
        let updates = try await BumbleBand.withBand { band in
            try await band.authenticate()
            var received: [MiBandRealtimeSteps] = []
            for try await steps in try await band.stepUpdates() {
                received.append(steps)
                if received.count == 3 { break }
            }
            return received
        }
        #expect(updates.count == 3)
        #expect(zip(updates, updates.dropFirst()).allSatisfy { $0.steps <= $1.steps })
        #expect(updates.allSatisfy { $0.meters == $0.steps * 62 / 100 })
    }

    @Test func aWrongKeyIsRefused() async throws {
        let wrong = try #require(MiBandKey(Array(repeating: 0x42, count: 16)))
        await #expect(throws: MiBandError.authenticationRefused(step: 3, status: 0x04)) {
            try await BumbleBand.withBand { try await $0.authenticate(key: wrong, keySetup: .never) }
        }
    }

    @Test func measuresTheHeartRateOnceAndContinuously() async throws {
        let (single, continuous) = try await BumbleBand.withBand { band in
            try await band.authenticate()
            let single = try await band.heartRate()
            var continuous: [UInt16] = []
            for try await bpm in band.heartRateUpdates(keepAliveInterval: .seconds(2)) {
                continuous.append(bpm)
                if continuous.count == 3 { break }
            }
            return (single, continuous)
        }
        #expect((40...200).contains(single))
        #expect(continuous.count == 3)
    }

    @Test func fetchesTheActivityHistoryWithProgress() async throws {
        let since = BumbleBand.historyEnd.addingTimeInterval(-60 * 60)
        let received = Counter()
        let records = try await BumbleBand.withBand { band in
            try await band.authenticate()
            return try await band.fetchActivity(since: since) { progress in
                if case .received = progress { received.increment() }
            }
        }
        #expect(records.count == 60)
        #expect(received.value == 60)
        #expect(records.first?.timestamp == since)
        // The peer's history follows the simulated band's pattern.
        #expect(try records.map(\.sample) == bandHistory(300..<360))
    }
}

final class Counter: @unchecked Sendable {
    // @unchecked Sendable: `count` is only touched with `lock` held.
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}
