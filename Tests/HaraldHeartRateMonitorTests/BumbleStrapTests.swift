import Foundation
import Harald
import HaraldCore
import HaraldHCIBackend
import HaraldHeartRateMonitor
import HaraldTestSupport
import Testing

/// The heart-rate kit over the HCI host stack against the Bumble strap (scripts/bumble/peer.py,
/// kind `hr`). scripts/integration runs this suite on its own, after the host-stack suites, with
/// HARALD_BUMBLE_HR_TRANSPORT naming the central's controller; without it the suite is skipped.
@Suite(
    "Heart-rate kit against the Bumble strap (scripts/integration)", .serialized,
    .enabled(if: BumbleStrap.transport != nil, "set HARALD_BUMBLE_HR_TRANSPORT (run scripts/integration) to test against the Bumble strap"))
struct BumbleStrapTests {
    @Test func readingsArriveWithTheStrapsHeartRate() async throws {
        let readings = try await BumbleStrap.withMonitor { monitor in
            let stream = try await monitor.readings(stallTimeout: .seconds(5))
            let taken = try await stream.prefix(3)
            await monitor.stop(stream)
            return taken
        }
        #expect(readings.count == 3)
        // The peer counts 60…99 bpm with skin contact, one RR interval matching the rate, and the
        // energy expended on every other value.
        #expect(readings.allSatisfy { (60...99).contains($0.beatsPerMinute) && $0.hasContact && $0.rrIntervals.count == 1 })
        #expect(readings.allSatisfy { abs($0.rrIntervals[0] - 60 / Double($0.beatsPerMinute)) < 0.001 })
        #expect(readings.contains { $0.energyExpended != nil })
    }

    @Test func locationBatteryAndBatteryNotificationsAreRead() async throws {
        let (location, level, offered) = try await BumbleStrap.withMonitor { monitor in
            (try await monitor.bodySensorLocation(), try await monitor.batteryLevel(), try await monitor.offersBatteryNotifications())
        }
        #expect(location == .chest)
        #expect(level == 87)
        #expect(offered)
    }

    @Test func energyExpendedResetIsAcceptedAndOtherOpCodesAreRefusedWithTheTypedError() async throws {
        let refusal = try await BumbleStrap.withMonitor { monitor in
            try await monitor.resetEnergyExpended()
            do throws(HeartRateMonitorError) {
                try await monitor.send(.reserved(0x02))
                return nil as HeartRateMonitorError?
            } catch { return error }
        }
        #expect(refusal == .controlPointNotSupported(.reserved(0x02)))
    }

    @Test func connectionCostIsCountedOverHCI() async throws {
        let cost = try await BumbleStrap.withMonitor { monitor in
            _ = try await monitor.batteryLevel()
            return await monitor.connection.protocolCost()
        }
        let counted = try #require(cost)
        #expect(counted.attRequests >= 3)
        #expect(counted.roundTrips == counted.attRequests)
    }
}

/// Where scripts/integration put the strap's central controller.
enum BumbleStrap {
    static var transport: String? { ProcessInfo.processInfo.environment["HARALD_BUMBLE_HR_TRANSPORT"] }
    static let strap = PeripheralIdentifier(address: BluetoothAddress("C0:00:00:00:00:01", kind: .random)!)

    /// A monitor connected to the Bumble strap on a fresh host, closed after `body`, all within
    /// a real-time safety deadline so a hang fails the test instead of the CI job.
    static func withMonitor<R: Sendable>(_ body: @escaping @Sendable (HeartRateMonitor) async throws -> R) async throws -> R {
        let specification = try #require(transport)
        let backend = try await HCICentralBackend.open(transport: specification)
        let central = Central(backend: backend, defaultTimeout: .seconds(10))
        do {
            let result = try await withHangGuard(seconds: 30) {
                try await central.waitUntilPoweredOn(timeout: .seconds(5))
                let monitor = try await HeartRateMonitor.connect(on: central, to: strap, timeout: .seconds(10))
                do {
                    let result = try await body(monitor)
                    await monitor.connection.disconnect()
                    return result
                } catch {
                    await monitor.connection.disconnect()
                    throw error
                }
            }
            await backend.close()
            return result
        } catch {
            await backend.close()
            throw error
        }
    }
}
