import Harald
import HaraldCodec
import HaraldCore
import HaraldGoProSimulation
import HaraldProfiles
import HaraldSimulator
import Testing

/// Runs `body` with a central in a simulated world of a heart-rate strap and an action camera.
private func withStrapAndCamera(_ body: @escaping @Sendable (Central) async throws -> Void) async throws {
    let simulation = Simulation()
    let simulator = try Simulator(clock: simulation.clock, devices: [.heartRateStrap(), .actionCamera()])
    let central = Central(backend: simulator.backend, clock: simulation.clock, defaultTimeout: .seconds(5))
    try await simulation.run(timeLimit: .seconds(600)) { try await body(central) }
}

/// The predefined SIG specs through the public API, against the simulator's standard devices:
/// what the scenario suite's own profile cannot show (decoding of standard values).
@Suite("Standard profiles through the public API on the simulator")
struct StandardProfileTests {
    private static let strap = VirtualPeripheral.heartRateStrap().identifier

    @Test func scanningForHeartRateFindsTheStrap() async throws {
        try await withStrapAndCamera { central in
            let found = try await central.scan(for: .heartRate).first(timeout: .seconds(5))
            #expect(found.peripheral == Self.strap)
            #expect(found.isConnectable)
        }
    }

    @Test func discoveryListsTheStandardServicesAndHeartRateCharacteristicsInOrder() async throws {
        try await withStrapAndCamera { central in
            let connection = try await central.connect(to: Self.strap)
            let tree = try await connection.discoverAll()
            #expect(Set(tree.map(\.service.uuid)).isSuperset(of: [BluetoothUUID(0x180D), BluetoothUUID(0x180F), BluetoothUUID(0x180A)]))
            let heartRate = tree.first { $0.service.uuid == BluetoothUUID(0x180D) }?.characteristics.map(\.uuid) ?? []
            #expect(heartRate == [BluetoothUUID(0x2A37), BluetoothUUID(0x2A38), BluetoothUUID(0x2A39)])
            await connection.disconnect()
        }
    }

    @Test func typedReadsDecodeBatteryLocationAndManufacturer() async throws {
        try await withStrapAndCamera { central in
            let connection = try await central.connect(to: Self.strap, services: [.battery, .heartRate, .deviceInformation])
            #expect(try await connection.read(.batteryLevel).percent == 87)
            #expect(try await connection.read(.bodySensorLocation) == .chest)
            #expect(try await connection.read(.manufacturerName).text == "Harald Labs")
            await connection.disconnect()
        }
    }

    @Test func controlPointAcceptsResetAndRefusesReservedOpCodesWithTheATTError() async throws {
        try await withStrapAndCamera { central in
            let connection = try await central.connect(to: Self.strap, services: [.heartRate])
            try await connection.write(.resetEnergyExpended, to: .heartRateControlPoint)
            let controlPoint = try await connection.characteristic(BluetoothUUID(0x2A39), service: BluetoothUUID(0x180D))
            await #expect(throws: BluetoothError.attribute(ATTErrorCode(0x80), on: controlPoint.id)) {
                try await connection.write(.reserved(0x02), to: .heartRateControlPoint)
            }
            await connection.disconnect()
        }
    }

    @Test func heartRateSubscriptionDeliversDecodedMeasurements() async throws {
        try await withStrapAndCamera { central in
            let connection = try await central.connect(to: Self.strap, services: [.heartRate])
            let measurements = try await connection.subscribe(.heartRateMeasurement)
            var received: [HeartRateMeasurement] = []
            for try await measurement in measurements {
                received.append(measurement)
                if received.count == 3 { break }
            }
            #expect(received.allSatisfy { (40...220).contains($0.heartRate) && $0.sensorContact == .detected })
            let energy = received.compactMap(\.energyExpended)
            #expect(energy == energy.sorted() && Set(energy).count == 3)
            await connection.unsubscribe(measurements)
            await connection.disconnect()
        }
    }

    @Test func cameraCommandRequestReturnsItsResponse() async throws {
        try await withStrapAndCamera { central in
            let command = Characteristic<[UInt8], Write>("B5F90072-AA8D-11E3-9046-0002A5D5C51B", service: BluetoothUUID(0xFEA6))
            let response = Characteristic<[UInt8], Notify>("B5F90073-AA8D-11E3-9046-0002A5D5C51B", service: BluetoothUUID(0xFEA6))
            let connection = try await central.connect(to: VirtualPeripheral.actionCamera().identifier)
            // Shutter on: `03 01 01 01` (general header, length 3) → `02 01 00` (success).
            #expect(try await connection.request(write: [0x03, 0x01, 0x01, 0x01], to: command, response: response) == [0x02, 0x01, 0x00])
            await connection.disconnect()
        }
    }
}
