import Harald
import HaraldHeartRateMonitor
import HaraldSimulator
import Testing

/// The kit's pairing flow example against a strap that keeps its serial number for paired centrals.
@Suite("Heart-rate monitor pairing on the simulated strap")
struct PairingTests {
    @Test func pairingReadsTheProtectedSerialNumberAfterOneRefusal() async throws {
        let progress = Log<PairingFlow.Progress>()
        let serial = try await SimulatedStrap.run(devices: [.heartRateStrap(protectedSerialNumber: true)]) { central, _ in
            let paired = try await HeartRateMonitor.pair(on: central, protected: .serialNumber, timeout: .seconds(15)) { progress.add($0) }
            let location = try await paired.monitor.bodySensorLocation()
            await paired.monitor.connection.disconnect()
            return (paired.protectedValue.text, location)
        }
        #expect(serial.0 == "HR1-000042")
        #expect(serial.1 == .chest)
        #expect(progress.all.contains(.pairingRequired(attempt: 1)))
        #expect(progress.all.last == .paired)
    }

    @Test func aStrapThatRejectsPairingFailsWithTheRefusalAndLeavesNothingConnected() async throws {
        var strap = VirtualPeripheral.heartRateStrap(protectedSerialNumber: true)
        strap.pairing = .reject
        let (error, open) = try await SimulatedStrap.run(devices: [strap]) { central, world in
            var failure: HeartRateMonitorError?
            do throws(HeartRateMonitorError) {
                _ = try await HeartRateMonitor.pair(on: central, protected: .serialNumber, timeout: .seconds(15))
            } catch { failure = error }
            var open = 0
            for connection in world.connections where await connection.link.closedReason == nil { open += 1 }
            return (failure, open)
        }
        #expect(error == .pairing(.pairingRejected(.insufficientAuthentication)))
        #expect(open == 0)
    }

    @Test func noStrapInRangeTimesTheFlowOutWhileScanning() async throws {
        let error = try await SimulatedStrap.run(devices: [.heartRateStrap(rssi: nil, protectedSerialNumber: true)]) { central, _ in
            do throws(HeartRateMonitorError) {
                _ = try await HeartRateMonitor.pair(on: central, protected: .serialNumber, timeout: .seconds(5))
                return nil as HeartRateMonitorError?
            } catch { return error }
        }
        #expect(error == .pairing(.timedOut(stage: "scanning")))
    }
}
