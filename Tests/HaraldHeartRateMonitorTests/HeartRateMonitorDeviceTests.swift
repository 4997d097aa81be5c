import Harald
import HaraldCodec
import HaraldCore
import HaraldHeartRateMonitor
import HaraldProfiles
import HaraldSimulator
import Testing

/// The heart-rate monitor device definition, served by the simulator's peripheral backend and used
/// by a simulated central through the public API: the same definition `harald serve hrm` serves
/// over HCI.
@Suite("Being a heart-rate monitor: the device definition served in the simulator")
struct HeartRateMonitorDeviceTests {
    static let address = BluetoothAddress("C2:00:00:00:00:01", kind: .random)!

    /// Serves a monitor in a fresh simulation and runs `body` against it with a central.
    private func withServedMonitor<T: Sendable>(
        _ device: HeartRateMonitorDevice, pairing: PairingResponse = .accept(after: .milliseconds(500)),
        _ body: @escaping @Sendable (Central, ServedPeripheral) async throws -> T
    ) async throws -> T {
        let simulation = Simulation()
        let clock = simulation.clock
        return try await simulation.run {
            let simulator = try Simulator(clock: clock, devices: [])
            let served = try await ServedPeripheral.start(device.definition, on: simulator.peripheralBackend(at: Self.address, pairing: pairing))
            let central = Central(backend: simulator.backend, clock: clock)
            let result = try await body(central, served)
            await served.stop()
            return result
        }
    }

    @Test func aCentralFindsItByNameAndReadsItsTypedValues() async throws {
        let device = try HeartRateMonitorDevice(name: "Served HRM", location: .wrist, battery: 64)
        let (name, location, battery, model) = try await withServedMonitor(device) { central, _ in
            let found = try await central.scan(ScanRequest(namePrefix: "Served")).first(timeout: .seconds(5))
            let connection = try await central.connect(to: found, timeout: .seconds(5))
            let values = (
                found.localName, try await connection.read(.bodySensorLocation), try await connection.read(.batteryLevel),
                try await connection.read(.modelNumber)
            )
            await connection.disconnect()
            return values
        }
        #expect(name == "Served HRM")
        #expect(location == .wrist)
        #expect(battery.percent == 64)
        #expect(model.text == "HRM-1")
    }

    @Test func measurementsTheDeviceNotifiesArriveDecodedAtTheCentral() async throws {
        let device = try HeartRateMonitorDevice()
        let rates = try await withServedMonitor(device) { central, served in
            let connection = try await central.connect(to: PeripheralIdentifier(address: Self.address), timeout: .seconds(5))
            let rates = try await withThrowingTaskGroup(of: [UInt16]?.self) { group in
                group.addTask {
                    await device.run(served, every: .seconds(1), clock: central.clock)
                    return nil
                }
                group.addTask {
                    var rates: [UInt16] = []
                    for try await measurement in try await connection.subscribe(.heartRateMeasurement) {
                        rates.append(measurement.heartRate)
                        #expect(measurement.sensorContact == .detected)
                        #expect(measurement.rrIntervals.count == 1)
                        if rates.count == 3 { break }
                    }
                    return rates
                }
                var result: [UInt16] = []
                while let next = try await group.next() {
                    if let rates = next {
                        result = rates
                        group.cancelAll()
                    }
                }
                return result
            }
            await connection.disconnect()
            return rates
        }
        #expect(rates.count == 3)
        #expect(rates.allSatisfy { (62...100).contains($0) })
    }

    @Test func theControlPointResetsEnergyExpendedAndRefusesOtherOpCodesWithTheProfilesError() async throws {
        let device = try HeartRateMonitorDevice()
        let refusal = try await withServedMonitor(device) { central, _ in
            _ = device.nextMeasurement()
            _ = device.nextMeasurement()
            let connection = try await central.connect(to: PeripheralIdentifier(address: Self.address), timeout: .seconds(5))
            try await connection.write(HeartRateControlPoint.resetEnergyExpended, to: .heartRateControlPoint)
            let error = await #expect(throws: BluetoothError.self) {
                try await connection.write(HeartRateControlPoint.reserved(0x07), to: .heartRateControlPoint)
            }
            await connection.disconnect()
            return error
        }
        #expect(device.nextMeasurement().energyExpended == 1)
        guard case .attribute(let code, _)? = refusal else { Issue.record("expected an ATT error, got \(String(describing: refusal))"); return }
        #expect(code == ATTErrorCode(HeartRateControlPoint.controlPointNotSupported))
    }

    @Test func aSerialNumberThatNeedsEncryptionIsReadAfterThePhonesPairing() async throws {
        let device = try HeartRateMonitorDevice(serialNumberSecurity: .encrypted)
        let serial = try await withServedMonitor(device) { central, _ in
            let connection = try await central.connect(to: PeripheralIdentifier(address: Self.address), timeout: .seconds(5))
            // The simulated phone pairs on the first refusal; the app retries, as on iOS.
            let first = try? await connection.read(.serialNumber)
            try await central.clock.sleep(for: .seconds(1))
            let serial = try await connection.read(.serialNumber)
            await connection.disconnect()
            return (first, serial)
        }
        #expect(serial.0 == nil)
        #expect(serial.1.text == "HRM-000042")
    }

    @Test func theServedDeviceReportsConnectionsAndSubscriptions() async throws {
        let device = try HeartRateMonitorDevice()
        let events = try await withServedMonitor(device) { central, served in
            let stream = served.events()
            let connection = try await central.connect(to: PeripheralIdentifier(address: Self.address), timeout: .seconds(5))
            let subscription = try await connection.subscribe(.heartRateMeasurement)
            await connection.unsubscribe(subscription)
            await connection.disconnect()
            var seen: [PeripheralEvent] = []
            for await event in stream {
                seen.append(event)
                if case .disconnected = event { break }
            }
            return seen
        }
        let measurement = BluetoothUUID(0x2A37)
        #expect(events.contains { if case .connected = $0 { true } else { false } })
        #expect(events.contains { if case .subscriptionChanged(_, measurement, true) = $0 { true } else { false } })
        #expect(events.contains { if case .subscriptionChanged(_, measurement, false) = $0 { true } else { false } })
    }
}
