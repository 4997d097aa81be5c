import Harald
import Testing

/// What a scenario needs besides the public API: the devices of the world and a way to make the
/// peer misbehave. Each backend under test provides one (the simulator here; a CoreBluetooth
/// fake or an HCI controller elsewhere).
protocol ScenarioWorld: Sendable {
    /// The central under test.
    var central: Central { get }
    /// A heart-rate strap: Heart Rate (measurement notified ~1 Hz, body sensor location chest,
    /// control point), Battery (87 %), Device Information (manufacturer "Harald Labs").
    var strap: PeripheralIdentifier { get }
    /// A device with a command characteristic whose answers are notified on a response
    /// characteristic (``ScenarioSpecs/command`` / ``ScenarioSpecs/commandResponse``).
    var commandDevice: PeripheralIdentifier { get }
    /// The strap will never answer the next Read Request it receives.
    func silenceNextRead() async
    /// The strap will terminate the connection instead of answering the next Read Request.
    func disconnectOnNextRead() async
    /// Operations still pending inside the backend for the newest connection to `peripheral`
    /// (waiting continuations); 0 means nothing leaked.
    func pendingOperations(_ peripheral: PeripheralIdentifier) async -> Int
}

/// Characteristics the scenarios use beyond the standard ones.
enum ScenarioSpecs {
    /// Open GoPro command (GP-0072), raw packets.
    static let command = Characteristic<[UInt8], Write>("B5F90072-AA8D-11E3-9046-0002A5D5C51B", service: BluetoothUUID(0xFEA6))
    /// Open GoPro command response (GP-0073), raw packets.
    static let commandResponse = Characteristic<[UInt8], Notify>("B5F90073-AA8D-11E3-9046-0002A5D5C51B", service: BluetoothUUID(0xFEA6))
}

/// The scenario suite of the public API, written once over ``ScenarioWorld``.
enum Scenarios {
    static func connect(_ world: some ScenarioWorld) async throws {
        let found = try await world.central.scan(for: .heartRate).first(timeout: .seconds(5))
        #expect(found.peripheral == world.strap)
        #expect(found.isConnectable)
        let connection = try await world.central.connect(to: found, services: [.heartRate, .battery], timeout: .seconds(5))
        #expect(connection.peripheral == world.strap)
        await connection.disconnect()
        #expect(await connection.disconnected() == .localRequest)
    }

    static func discover(_ world: some ScenarioWorld) async throws {
        let connection = try await world.central.connect(to: world.strap, timeout: .seconds(5))
        let tree = try await connection.discoverAll()
        let services = Set(tree.map(\.service.uuid))
        #expect(services.isSuperset(of: [BluetoothUUID(0x180D), BluetoothUUID(0x180F), BluetoothUUID(0x180A)]))
        let heartRate = tree.first { $0.service.uuid == BluetoothUUID(0x180D) }?.characteristics.map(\.uuid) ?? []
        #expect(heartRate == [BluetoothUUID(0x2A37), BluetoothUUID(0x2A38), BluetoothUUID(0x2A39)])
        await connection.disconnect()
    }

    static func read(_ world: some ScenarioWorld) async throws {
        let connection = try await world.central.connect(to: world.strap, services: [.battery, .heartRate, .deviceInformation], timeout: .seconds(5))
        #expect(try await connection.read(.batteryLevel).percent == 87)
        #expect(try await connection.read(.bodySensorLocation) == .chest)
        #expect(try await connection.read(.manufacturerName).text == "Harald Labs")
        await connection.disconnect()
    }

    static func write(_ world: some ScenarioWorld) async throws {
        let connection = try await world.central.connect(to: world.strap, services: [.heartRate], timeout: .seconds(5))
        try await connection.write(.resetEnergyExpended, to: .heartRateControlPoint)
        let controlPoint = try await connection.characteristic(BluetoothUUID(0x2A39), service: BluetoothUUID(0x180D))
        await #expect(throws: BluetoothError.attribute(ATTErrorCode(0x80), handle: controlPoint.valueHandle)) {
            try await connection.write(.reserved(0x02), to: .heartRateControlPoint)
        }
        await connection.disconnect()
    }

    static func subscribe(_ world: some ScenarioWorld) async throws {
        let connection = try await world.central.connect(to: world.strap, services: [.heartRate], timeout: .seconds(5))
        let measurements = try await connection.subscribe(.heartRateMeasurement)
        var received: [HeartRateMeasurement] = []
        for try await measurement in measurements {
            received.append(measurement)
            if received.count == 3 { break }
        }
        #expect(received.count == 3)
        #expect(received.allSatisfy { (40...220).contains($0.heartRate) && $0.sensorContact == .detected })
        let energy = received.compactMap(\.energyExpended)
        #expect(energy == energy.sorted() && Set(energy).count == 3)
        try await connection.unsubscribe(measurements)
        await connection.disconnect()
    }

    static func requestResponse(_ world: some ScenarioWorld) async throws {
        let connection = try await world.central.connect(to: world.commandDevice, timeout: .seconds(5))
        // Shutter on: `03 01 01 01` (general header, length 3) → `02 01 00` (success).
        let response = try await connection.request(write: [0x03, 0x01, 0x01, 0x01], to: ScenarioSpecs.command, response: ScenarioSpecs.commandResponse)
        #expect(response == [0x02, 0x01, 0x00])
        await connection.disconnect()
    }

    static func disconnectMidOperation(_ world: some ScenarioWorld) async throws {
        let connection = try await world.central.connect(to: world.strap, services: [.battery], timeout: .seconds(5))
        _ = try await connection.characteristic(BluetoothUUID(0x2A19), service: BluetoothUUID(0x180F))
        await world.disconnectOnNextRead()
        await #expect(throws: BluetoothError.disconnected(.remoteRequest)) {
            _ = try await connection.read(.batteryLevel)
        }
        #expect(await connection.disconnected() == .remoteRequest)
        #expect(await world.pendingOperations(world.strap) == 0)
    }

    static func timeout(_ world: some ScenarioWorld) async throws {
        let connection = try await world.central.connect(to: world.strap, services: [.battery], timeout: .seconds(5))
        _ = try await connection.characteristic(BluetoothUUID(0x2A19), service: BluetoothUUID(0x180F))
        await world.silenceNextRead()
        await #expect(throws: BluetoothError.timeout(operation: "read of \(BluetoothUUID(0x2A19))", after: .seconds(2))) {
            _ = try await connection.read(.batteryLevel, timeout: .seconds(2))
        }
        // The unanswered transaction then closes the link after the ATT transaction timeout.
        #expect(await connection.disconnected() == .attTimeout)
        #expect(await world.pendingOperations(world.strap) == 0)
    }

    static func cancellation(_ world: some ScenarioWorld) async throws {
        let connection = try await world.central.connect(to: world.strap, services: [.battery], timeout: .seconds(5))
        _ = try await connection.characteristic(BluetoothUUID(0x2A19), service: BluetoothUUID(0x180F))
        await world.silenceNextRead()
        let clock = world.central.clock
        let outcome: (any Error)? = await withTaskGroup(of: (any Error)?.self) { group in
            group.addTask {
                do { _ = try await connection.read(.batteryLevel, timeout: .seconds(20)) } catch { return error }
                return nil
            }
            // Let the read reach the peripheral, then cancel it.
            try? await clock.sleep(for: .milliseconds(200))
            group.cancelAll()
            return await group.next() ?? nil
        }
        #expect(outcome is CancellationError)
        #expect(await world.pendingOperations(world.strap) == 0)
        await connection.disconnect()
    }
}
