import Harald
import HaraldCodec
import HaraldCore
import HaraldProfiles
import HaraldSimulator
import Testing

/// Indications through the public peripheral API: `indicate` returns once the central confirmed,
/// and a central that did not turn indications on is told so.
@Suite("Served indications")
struct ServedIndicationTests {
    static let address = BluetoothAddress("C2:00:00:00:00:03", kind: .random)!

    static var thermometer: PeripheralDefinition {
        PeripheralDefinition(advertisement: PeripheralAdvertisement(name: "Thermo", services: [BluetoothUUID(0x1809)])) {
            ServiceDefinition(BluetoothUUID(0x1809)) { CharacteristicDefinition(.temperatureMeasurement) }
        }
    }

    /// Runs `body` with a served thermometer and a central connected to it.
    private func withThermometer<T: Sendable>(
        _ body: @escaping @Sendable (ServedPeripheral, PeripheralConnection, CentralIdentifier) async throws -> T
    ) async throws -> T {
        let simulation = Simulation()
        let clock = simulation.clock
        return try await simulation.run {
            let simulator = try Simulator(clock: clock, devices: [])
            let served = try await ServedPeripheral.start(Self.thermometer, on: simulator.peripheralBackend(at: Self.address))
            let central = Central(backend: simulator.backend, clock: clock)
            let connection = try await central.connect(to: PeripheralIdentifier(address: Self.address), timeout: .seconds(5))
            let identifier = try #require(await served.centrals().first)
            let result = try await body(served, connection, identifier)
            await connection.disconnect()
            await served.stop()
            return result
        }
    }

    @Test func anIndicationReturnsOnceTheCentralConfirmedAndArrivesDecoded() async throws {
        let temperature = MedicalFloat32(mantissa: 3712, exponent: -2)!
        let received = try await withThermometer { served, connection, central -> MedicalFloat32? in
            let subscription = try await connection.subscribe(.temperatureMeasurement)
            try await served.indicate(.temperatureMeasurement, TemperatureMeasurement(temperature: temperature), to: central, timeout: .seconds(5))
            for try await measurement in subscription { return measurement.temperature }
            return nil
        }
        #expect(received == temperature)
    }

    @Test func indicatingToACentralThatDidNotTurnIndicationsOnIsRefused() async throws {
        let error = try await withThermometer { served, _, central in
            await #expect(throws: BluetoothError.self) {
                try await served.indicate(.temperatureMeasurement, TemperatureMeasurement(temperature: MedicalFloat32(36.6)), to: central)
            }
        }
        guard case .attribute(let code, _)? = error else { Issue.record("expected an ATT error, got \(String(describing: error))"); return }
        #expect(code == .cccdImproperlyConfigured)
    }
}

/// Changing a served device's services while a central is connected (Service Changed).
@Suite("Served services that change")
struct ServedServiceChangeTests {
    static let address = BluetoothAddress("C2:00:00:00:00:04", kind: .random)!
    static let extra = BluetoothUUID(0xFFA0)
    static let extraValue = BluetoothUUID(0xFFA1)

    @Test func aConnectedCentralIsToldOfTheChangeAndFindsTheNewService() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let (change, value, batteryGone) = try await simulation.run {
            let simulator = try Simulator(clock: clock, devices: [])
            let definition = PeripheralDefinition(advertisement: PeripheralAdvertisement(name: "Changer")) {
                ServiceDefinition(BluetoothUUID(0x180F)) { CharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: [.read], value: [50]) }
            }
            let served = try await ServedPeripheral.start(definition, on: simulator.peripheralBackend(at: Self.address))
            let central = Central(backend: simulator.backend, clock: clock)
            let connection = try await central.connect(to: PeripheralIdentifier(address: Self.address), timeout: .seconds(5))
            _ = try await connection.discoverAll()  // turns Service Changed on first
            let changes = connection.serviceChanges()
            try await served.changeServices(
                removing: [BluetoothUUID(0x180F)],
                adding: [
                    ServiceDefinition(uuid: Self.extra, characteristics: [CharacteristicDefinition(uuid: Self.extraValue, properties: [.read], value: [7])])
                ])
            var change: ServiceChange?
            for await next in changes {
                change = next
                break
            }
            let services = try await connection.discoverAll().map(\.service.uuid)
            let value = try await connection.readRaw(try await connection.characteristic(Self.extraValue, service: Self.extra))
            await connection.disconnect()
            await served.stop()
            return (change, value, !services.contains(BluetoothUUID(0x180F)))
        }
        #expect(change?.handles != nil)
        #expect(value == [7])
        #expect(batteryGone)
    }
}
