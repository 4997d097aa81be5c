import Harald
import HaraldCodec
import HaraldCore
import HaraldProfiles
import HaraldSimulator
import Testing

/// A served device keeps protected values protected from a central that does not pair: the
/// subscription to a characteristic whose reads need encryption is refused as a read would be,
/// nothing is notified in the clear, and `security:` on a notify-only characteristic counts.
@Suite("Served security")
struct ServedSecurityTests {
    static let address = BluetoothAddress("C2:00:00:00:00:25", kind: .random)!

    /// A strap whose measurement (notify only) and sensor location need an encrypted link.
    static func strap(requiring extra: AttributeSecurity = .none) throws -> PeripheralDefinition {
        try PeripheralDefinition(advertisement: PeripheralAdvertisement(name: "Sealed", services: [BluetoothUUID(0x180D)])) {
            try ServiceDefinition(BluetoothUUID(0x180D)) {
                CharacteristicDefinition(.heartRateMeasurement, security: .encrypted)
                try CharacteristicDefinition(.bodySensorLocation, value: .chest, security: .encrypted)
            }
        }.requiring(extra)
    }

    /// Serves `definition` answering pairing with `pairing`, connects the simulated central and
    /// runs `body`.
    private func withServed<T: Sendable>(
        _ definition: PeripheralDefinition, pairing: PairingResponse,
        _ body: @escaping @Sendable (ServedPeripheral, PeripheralConnection, Central) async throws -> T
    ) async throws -> T {
        let simulation = Simulation()
        let clock = simulation.clock
        return try await simulation.run(timeLimit: .seconds(600)) {
            let simulator = try Simulator(clock: clock, devices: [])
            let served = try await ServedPeripheral.start(definition, on: simulator.peripheralBackend(at: Self.address, pairing: pairing))
            let central = Central(backend: simulator.backend, clock: clock)
            let connection = try await central.connect(to: PeripheralIdentifier(address: Self.address), timeout: .seconds(5))
            let result = try await body(served, connection, central)
            await connection.disconnect()
            await served.stop()
            return result
        }
    }

    static func code(of error: BluetoothError?) -> ATTErrorCode? {
        guard case .attribute(let code, _)? = error else { return nil }
        return code
    }

    @Test("a central that never pairs cannot subscribe to an encrypted notify-only value and is sent nothing")
    func anUnpairedCentralGetsNoProtectedNotification() async throws {
        let (refusal, sent, withheld) = try await withServed(try Self.strap(), pairing: .reject) { served, connection, _ in
            let refusal = await #expect(throws: BluetoothError.self) { _ = try await connection.subscribe(.heartRateMeasurement) }
            let sent = try await served.notify(.heartRateMeasurement, HeartRateMeasurement(heartRate: 72))
            return (refusal, sent, await served.withheldNotifications(.heartRateMeasurement))
        }
        #expect(Self.code(of: refusal) == .insufficientAuthentication)
        #expect(sent == 0)
        #expect(withheld == 0)  // refused at the CCCD write: there was no subscription to skip
    }

    @Test func anUnpairedCentralCannotReadAnEncryptedValue() async throws {
        let refusal = try await withServed(try Self.strap(), pairing: .reject) { _, connection, _ in
            await #expect(throws: BluetoothError.self) { _ = try await connection.read(.bodySensorLocation) }
        }
        #expect(Self.code(of: refusal) == .insufficientAuthentication)
    }

    @Test("a central that pairs after the refusal subscribes and gets the value")
    func aPairedCentralSubscribesAndGetsTheValue() async throws {
        let (first, heartRate) = try await withServed(try Self.strap(), pairing: .accept(after: .milliseconds(500))) { served, connection, central in
            // The simulated phone pairs on the first refusal; the app retries, as on iOS.
            let first = await #expect(throws: BluetoothError.self) { _ = try await connection.subscribe(.heartRateMeasurement) }
            try await central.clock.sleep(for: .seconds(1))
            let subscription = try await connection.subscribe(.heartRateMeasurement)
            #expect(try await served.notify(.heartRateMeasurement, HeartRateMeasurement(heartRate: 72)) == 1)
            for try await measurement in subscription { return (first, measurement.heartRate) }
            return (first, 0)
        }
        #expect(Self.code(of: first) == .insufficientAuthentication)
        #expect(heartRate == 72)
    }

    @Test("requiring Level 4 of every characteristic: an open value refuses a central that never pairs")
    func requiringLevel4CoversEveryCharacteristic() async throws {
        let definition = try PeripheralDefinition(advertisement: PeripheralAdvertisement(name: "SC only", services: [BluetoothUUID(0x180F)])) {
            try ServiceDefinition(BluetoothUUID(0x180F)) { try CharacteristicDefinition(.batteryLevel, value: BatteryLevel(percent: 87)!) }
        }.requiring(.authenticatedSecureConnections)
        #expect(definition.services[0].characteristics[0].readSecurity == .authenticatedSecureConnections)
        #expect(definition.services[0].characteristics[0].writeSecurity == .authenticatedSecureConnections)
        let refusal = try await withServed(definition, pairing: .reject) { _, connection, _ in
            await #expect(throws: BluetoothError.self) { _ = try await connection.read(.batteryLevel) }
        }
        #expect(Self.code(of: refusal) == .insufficientAuthentication)
        // The simulated phone pairs with LE Secure Connections and MITM (Level 4): it reads.
        let level = try await withServed(definition, pairing: .accept(after: .milliseconds(500))) { _, connection, central in
            _ = try? await connection.read(.batteryLevel)
            try await central.clock.sleep(for: .seconds(1))
            return try await connection.read(.batteryLevel)
        }
        #expect(level == BatteryLevel(percent: 87)!)
    }

    @Test func requiringKeepsAStrongerRequirementAndAnOptedInShorterKey() throws {
        let definition = try PeripheralDefinition(advertisement: PeripheralAdvertisement(name: "Mixed")) {
            try ServiceDefinition(BluetoothUUID(0x180F)) {
                try CharacteristicDefinition(.batteryLevel, value: BatteryLevel(percent: 1)!, security: .authenticated)
                try CharacteristicDefinition(.bodySensorLocation, value: .chest, security: AttributeSecurity.encrypted.minimumKeySize(7))
            }
        }
        let raised = definition.requiring(.encrypted)
        #expect(raised.services[0].characteristics[0].readSecurity == .authenticated)
        #expect(raised.services[0].characteristics[1].readSecurity == AttributeSecurity(level: .encrypted, minimumKeySize: 7).combined(with: .encrypted))
        #expect(raised.services[0].characteristics[1].readSecurity.minimumKeySize == 16)
        #expect(definition.requiring(.none).services[0].characteristics[1].readSecurity.minimumKeySize == 7)
        #expect(AttributeSecurity.encrypted.minimumKeySize(3).minimumKeySize == 7)
    }
}
