import Foundation
import Harald
import HaraldATT
import HaraldCore
import HaraldCodec
import HaraldHCI
import HaraldGoPro
import HaraldGoProSimulation
import HaraldHCIBackend
import HaraldMiBand
import HaraldMiBandSimulation
import HaraldHeartRateMonitor
import HaraldProfiles
import HaraldSMP
import Testing

/// The two Bumble virtual controllers (same link) of the Harald↔Harald suite.
enum HaraldPair {
    static var peripheralTransport: String? { ProcessInfo.processInfo.environment["HARALD_PERIPHERAL_TRANSPORT"] }
    static var centralTransport: String? { ProcessInfo.processInfo.environment["HARALD_PERIPHERAL_CENTRAL_TRANSPORT"] }
    static var secondCentralTransport: String? { ProcessInfo.processInfo.environment["HARALD_PERIPHERAL_SECOND_CENTRAL_TRANSPORT"] }
    static var isConfigured: Bool { peripheralTransport != nil && centralTransport != nil && secondCentralTransport != nil }
}

/// A Harald peripheral (advertising, GATT server, SMP responder over HCI) and a Harald central
/// (GATT client, SMP initiator over HCI), each on its own Bumble virtual controller of one link:
/// both halves of the host stack against each other across a real HCI boundary.
@Suite(
    "Bumble integration: Harald central and Harald peripheral over HCI", .serialized,
    .enabled(
        if: HaraldPair.isConfigured,
        "set HARALD_PERIPHERAL_TRANSPORT, HARALD_PERIPHERAL_CENTRAL_TRANSPORT and HARALD_PERIPHERAL_SECOND_CENTRAL_TRANSPORT (run scripts/integration)"))
struct HaraldPeripheralBumbleIntegrationTests {
    static let service = BluetoothUUID(0xFFE0)
    static let open = BluetoothUUID(0xFFE1)
    static let encrypted = BluetoothUUID(0xFFE2)
    static let authenticated = BluetoothUUID(0xFFE3)

    static let services = [
        GATTServiceDefinition(
            uuid: service,
            characteristics: [
                GATTCharacteristicDefinition(uuid: open, properties: [.read], permissions: [.read], value: Array("open".utf8)),
                GATTCharacteristicDefinition(uuid: encrypted, properties: [.read], permissions: [.read, .readEncrypted], value: Array("sealed".utf8)),
                GATTCharacteristicDefinition(
                    uuid: authenticated, properties: [.read], permissions: [.read, .readAuthenticated], value: Array("guarded".utf8)),
            ])
    ]

    /// Both sides, fresh: each test gets new hosts on the same two controllers.
    struct Sides {
        let peripheral: HCIPeripheral
        let centralBackend: HCICentralBackend
        let central: Central
        let events: AsyncStream<HCIPeripheral.Event>
        let name: String

        func close() async {
            await centralBackend.close()
            await peripheral.close()
        }

        /// Connects to the advertising peripheral by name.
        func connect() async throws -> PeripheralConnection {
            let found = try await central.scan(ScanRequest(namePrefix: name)).first(timeout: .seconds(10))
            return try await central.connect(to: found, timeout: .seconds(10))
        }
    }

    static func sides(
        name: String, peripheralSecurity: SecurityConfiguration, centralSecurity: SecurityConfiguration
    ) async throws -> Sides {
        let peripheral = try await HCIPeripheral.open(
            transport: try #require(HaraldPair.peripheralTransport), services: services, security: peripheralSecurity)
        let events = await peripheral.events()
        try await peripheral.advertise(LegacyAdvertising(data: .device(name: name, services: [service]), intervalMin: 32, intervalMax: 32))
        let backend = try await HCICentralBackend.open(transport: try #require(HaraldPair.centralTransport), security: centralSecurity)
        return Sides(peripheral: peripheral, centralBackend: backend, central: Central(backend: backend), events: events, name: name)
    }

    static func read(_ uuid: BluetoothUUID, on connection: PeripheralConnection) async throws -> String {
        let characteristic = try await connection.characteristic(uuid, service: service)
        return String(decoding: try await connection.readRaw(characteristic), as: UTF8.self)
    }

    /// Collects the peripheral's events until `last` matches (or 10 s pass).
    static func events(of sides: Sides, until last: @escaping @Sendable (HCIPeripheral.Event) -> Bool) async -> [HCIPeripheral.Event] {
        let stream = sides.events
        return await withTaskGroup(of: [HCIPeripheral.Event].self) { group in
            group.addTask {
                var seen: [HCIPeripheral.Event] = []
                for await event in stream {
                    seen.append(event)
                    if last(event) { break }
                }
                return seen
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return []
            }
            let first = await group.next() ?? []
            group.cancelAll()
            return first
        }
    }

    @Test func anOpenCharacteristicIsReadWithoutPairing() async throws {
        let sides = try await Self.sides(
            name: "Harald-P1", peripheralSecurity: SecurityConfiguration(bonds: InMemoryBondStore()),
            centralSecurity: SecurityConfiguration(bonds: InMemoryBondStore()))
        let connection = try await sides.connect()
        let value = try await Self.read(Self.open, on: connection)
        let security = await connection.security()
        await connection.disconnect()
        await sides.close()
        #expect(value == "open")
        #expect(security?.level == SecurityLevel.none)
    }

    @Test func anEncryptedCharacteristicPairsBothHaraldsAndTheNextConnectionReEncrypts() async throws {
        let (centralBonds, peripheralBonds) = (InMemoryBondStore(), InMemoryBondStore())
        let sides = try await Self.sides(
            name: "Harald-P2", peripheralSecurity: SecurityConfiguration(bonds: peripheralBonds),
            centralSecurity: SecurityConfiguration(bonds: centralBonds))
        let first = try await sides.connect()
        let value = try await Self.read(Self.encrypted, on: first)
        await first.disconnect()
        let second = try await sides.connect()
        let again = try await Self.read(Self.encrypted, on: second)
        let security = await second.security()
        await second.disconnect()
        let events = await Self.events(of: sides) { event in
            if case .disconnected = event { return true } else { return false }
        }
        await sides.close()
        #expect(value == "sealed")
        #expect(again == "sealed")
        #expect(security?.isBonded == true)
        #expect(await centralBonds.allBonds().count == 1)
        #expect(await peripheralBonds.allBonds().count == 1)
        let pairings = events.filter { if case .paired = $0 { true } else { false } }
        #expect(pairings.count == 1, "events: \(events)")
    }

    @Test func thePasskeyThePeripheralDisplaysAuthenticatesTheLink() async throws {
        let sides = try await Self.sides(
            name: "Harald-P3",
            peripheralSecurity: SecurityConfiguration(
                bonds: InMemoryBondStore(), pairing: PairingConfiguration(ioCapability: .displayOnly, authReq: [.bonding, .mitm, .secureConnections]),
                agent: FixedPasskeyAgent(passkey: 271_828)),
            centralSecurity: SecurityConfiguration(
                bonds: InMemoryBondStore(), pairing: PairingConfiguration(ioCapability: .keyboardOnly, authReq: [.bonding, .mitm, .secureConnections]),
                agent: AutomaticPairingAgent(passkey: 271_828)))
        let connection = try await sides.connect()
        let value = try await Self.read(Self.authenticated, on: connection)
        let security = await connection.security()
        await connection.disconnect()
        await sides.close()
        #expect(value == "guarded")
        #expect(security?.level == .authenticatedSecureConnections)
    }

    @Test func aWrongPasskeyFailsPairingOnBothSides() async throws {
        let centralBonds = InMemoryBondStore()
        let sides = try await Self.sides(
            name: "Harald-P4",
            peripheralSecurity: SecurityConfiguration(
                bonds: InMemoryBondStore(), pairing: PairingConfiguration(ioCapability: .displayOnly, authReq: [.bonding, .mitm, .secureConnections]),
                agent: FixedPasskeyAgent(passkey: 271_828)),
            centralSecurity: SecurityConfiguration(
                bonds: centralBonds, pairing: PairingConfiguration(ioCapability: .keyboardOnly, authReq: [.bonding, .mitm, .secureConnections]),
                agent: AutomaticPairingAgent(passkey: 314_159)))
        let connection = try await sides.connect()
        let error = await #expect(throws: BluetoothError.self) { try await Self.read(Self.authenticated, on: connection) }
        await connection.disconnect()
        let events = await Self.events(of: sides) { event in
            if case .pairingFailed = event { return true } else { return false }
        }
        await sides.close()
        guard case .pairingFailed(let reason)? = error else {
            Issue.record("expected a pairing failure, got \(String(describing: error))")
            return
        }
        #expect(reason.lowercased().contains("confirm value failed"))
        #expect(await centralBonds.allBonds().isEmpty)
        #expect(events.contains { if case .pairingFailed = $0 { true } else { false } }, "events: \(events)")
    }

    @Test func theHeartRateMonitorDefinitionServedOverHCIIsReadAndNotifiesTypedMeasurements() async throws {
        let device = try HeartRateMonitorDevice(name: "Harald-HRM-S", location: .finger)
        let served = try await ServedPeripheral.start(
            device.definition, on: HCIPeripheralBackend(transport: try #require(HaraldPair.peripheralTransport)))
        let backend = try await HCICentralBackend.open(transport: try #require(HaraldPair.centralTransport))
        let central = Central(backend: backend)
        let found = try await central.scan(ScanRequest(namePrefix: "Harald-HRM-S")).first(timeout: .seconds(10))
        let connection = try await central.connect(to: found, timeout: .seconds(10))
        let location = try await connection.read(.bodySensorLocation)
        let rates = try await withThrowingTaskGroup(of: [UInt16]?.self) { group in
            group.addTask {
                await device.run(served, every: .milliseconds(50))
                return nil
            }
            group.addTask {
                var rates: [UInt16] = []
                for try await measurement in try await connection.subscribe(.heartRateMeasurement) {
                    rates.append(measurement.heartRate)
                    if rates.count == 5 { break }
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
        await backend.close()
        await served.stop()
        #expect(location == .finger)
        #expect(rates.count == 5)
        #expect(rates.allSatisfy { (62...100).contains($0) })
    }

    @Test func theGoProKitTalksToTheCameraDefinitionServedOverHCI() async throws {
        let device = ActionCameraDevice(name: "GoPro HCI", bootTime: .milliseconds(300))
        let served = try await ServedPeripheral.start(
            device.definition, on: HCIPeripheralBackend(transport: try #require(HaraldPair.peripheralTransport)))
        let running = Task { await device.run(served) }
        let backend = try await HCICentralBackend.open(transport: try #require(HaraldPair.centralTransport))
        let central = Central(backend: backend, defaultTimeout: .seconds(20))
        let found = try await central.scan(ScanRequest(namePrefix: "GoPro HCI")).first(timeout: .seconds(10))
        let connection = try await central.connect(to: found, timeout: .seconds(10))
        let camera = GoProCamera(connection: connection, requestTimeout: .seconds(10))
        let info = try await camera.waitUntilReady(timeout: .seconds(20), pollInterval: .milliseconds(100))
        let version = try await camera.openGoProVersion()
        let statuses = try await camera.statuses()
        await camera.stop()
        await connection.disconnect()
        await backend.close()
        running.cancel()
        await served.stop()
        #expect(!info.modelName.isEmpty)
        #expect(version == GoProOpenGoProVersion(major: 2, minor: 0))
        #expect(statuses.count == 88)
    }

    @Test func theMiBandKitAuthenticatesWithTheBandDefinitionServedOverHCIAndReadsItsSteps() async throws {
        let device = FitnessBandDevice(name: "Band HCI")
        let served = try await ServedPeripheral.start(
            device.definition, on: HCIPeripheralBackend(transport: try #require(HaraldPair.peripheralTransport)))
        let running = Task { await device.run(served) }
        let backend = try await HCICentralBackend.open(transport: try #require(HaraldPair.centralTransport))
        let central = Central(backend: backend, defaultTimeout: .seconds(20))
        let found = try await central.scan(ScanRequest(namePrefix: "Band HCI")).first(timeout: .seconds(10))
        let connection = try await central.connect(to: found, timeout: .seconds(10))
        let band = MiBand2(connection: connection)
        let outcome = try await band.authenticate()
        let steps = try await band.steps()
        var updates: [MiBandRealtimeSteps] = []
        for try await update in try await band.stepUpdates() {
            updates.append(update)
            if updates.count == 2 { break }
        }
        await connection.disconnect()
        await backend.close()
        running.cancel()
        await served.stop()
        #expect(outcome == .authenticated)
        #expect(steps.steps >= 409 && steps.meters == steps.steps * 62 / 100)
        #expect(updates.count == 2)
    }

    @Test func twoCentralsConnectedAtOnceBothReceiveEveryNotification() async throws {
        let device = try HeartRateMonitorDevice(name: "Harald-HRM-2")
        let served = try await ServedPeripheral.start(
            device.definition, on: HCIPeripheralBackend(transport: try #require(HaraldPair.peripheralTransport)))
        var backends: [HCICentralBackend] = []
        var subscriptions: [Subscription<HeartRateMeasurement>] = []
        var connections: [PeripheralConnection] = []
        for transport in [HaraldPair.centralTransport, HaraldPair.secondCentralTransport] {
            let backend = try await HCICentralBackend.open(transport: try #require(transport))
            backends.append(backend)
            let central = Central(backend: backend)
            let found = try await central.scan(ScanRequest(namePrefix: "Harald-HRM-2")).first(timeout: .seconds(10))
            let connection = try await central.connect(to: found, timeout: .seconds(10))
            connections.append(connection)
            subscriptions.append(try await connection.subscribe(.heartRateMeasurement))
        }
        let centrals = await served.centrals()
        var reached: [Int] = []
        for _ in 0..<3 { reached.append(try await served.notify(.heartRateMeasurement, device.nextMeasurement())) }
        var received: [[UInt16]] = []
        for subscription in subscriptions {
            var rates: [UInt16] = []
            for try await measurement in subscription {
                rates.append(measurement.heartRate)
                if rates.count == 3 { break }
            }
            received.append(rates)
        }
        for connection in connections { await connection.disconnect() }
        for backend in backends { await backend.close() }
        await served.stop()
        #expect(centrals.count == 2)
        #expect(reached == [2, 2, 2])
        #expect(received.count == 2 && received[0] == received[1] && received[0].count == 3)
    }

    @Test func anAdvertisementLongerThanLegacyAdvertisingGoesOutAsAnExtendedSetAndIsHeardWhole() async throws {
        let payload = (0..<120).map { UInt8($0) }
        let name = "Harald extended advertising set"
        let definition = PeripheralDefinition(
            advertisement: PeripheralAdvertisement(
                name: name, services: [Self.service], manufacturer: ManufacturerData(companyID: 0xFFFF, data: payload)),
            services: Self.services.map { service in
                ServiceDefinition(
                    uuid: service.uuid, characteristics: [CharacteristicDefinition(uuid: Self.open, properties: [.read], value: Array("open".utf8))])
            })
        #expect(definition.advertisement.legacyPayloads() == nil)
        let served = try await ServedPeripheral.start(definition, on: HCIPeripheralBackend(transport: try #require(HaraldPair.peripheralTransport)))
        let backend = try await HCICentralBackend.open(transport: try #require(HaraldPair.centralTransport))
        let central = Central(backend: backend)
        let found = try await central.scan(ScanRequest(namePrefix: name)).first(timeout: .seconds(10))
        let connection = try await central.connect(to: found, timeout: .seconds(10))
        let value = try await Self.read(Self.open, on: connection)
        await connection.disconnect()
        await backend.close()
        await served.stop()
        #expect(found.localName == name)
        #expect(found.data.manufacturerData?.data == payload)
        #expect(value == "open")
    }

    @Test func thePeripheralAsksForNewConnectionParametersAndTheCentralAppliesThem() async throws {
        let sides = try await Self.sides(
            name: "Harald-P5", peripheralSecurity: SecurityConfiguration(bonds: InMemoryBondStore()),
            centralSecurity: SecurityConfiguration(bonds: InMemoryBondStore()))
        let connection = try await sides.connect()
        let link = try #require(await sides.peripheral.host.openConnections.first)
        let wanted = LEConnectionParameters(intervalMin: 40, intervalMax: 56, latency: 0, supervisionTimeout: 400)
        let accepted = try await link.requestConnectionParameters(wanted, timeout: .seconds(10))
        // The central's connection update reaches the peripheral's controller shortly after.
        var interval = link.parameters.interval
        for _ in 0..<100 where !(40...56).contains(interval) {
            try await Task.sleep(for: .milliseconds(20))
            interval = link.parameters.interval
        }
        await connection.disconnect()
        await sides.close()
        #expect(accepted)
        #expect((40...56).contains(interval), "interval \(interval) × 1.25 ms")
    }
}

/// A device with a passkey printed on it: always displays the same one.
struct FixedPasskeyAgent: PairingAgent {
    let passkey: UInt32
    func confirmJustWorks() async -> Bool { true }
    func confirmNumericComparison(_ value: NumericComparisonValue) async -> Bool { true }
    func enterPasskey() async -> UInt32? { passkey }
    func displayPasskey(_ passkey: UInt32) async {}
    func passkeyToDisplay() async -> UInt32? { passkey }
}
