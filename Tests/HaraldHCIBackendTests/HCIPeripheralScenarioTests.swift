import Harald
import HaraldCore
import HaraldHeartRateMonitor
import HaraldProfiles
import HaraldHCIBackend
import HaraldScenarioSuite
import HaraldSMP
import Testing

/// The peripheral-side scenario suite over HCI: Harald's peripheral on one Bumble virtual
/// controller, Harald's central on another of the same link. In the Harald↔Harald suite, which
/// runs serially, because both use its controllers.
extension HaraldPeripheralBumbleIntegrationTests {
    @Test(arguments: PeripheralScenario.allCases)
    func peripheralScenario(_ scenario: PeripheralScenario) async throws {
        let centralBackend = try await HCICentralBackend.open(transport: try #require(HaraldPair.centralTransport))
        let harness = PeripheralScenarioHarness(
            backend: HCIPeripheralBackend(transport: try #require(HaraldPair.peripheralTransport)),
            central: Central(backend: centralBackend, defaultTimeout: .seconds(10)),
            name: "PS-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))", timeout: .seconds(10),
            sleep: { try? await Task.sleep(for: $0) })
        do { try await scenario.run(harness) } catch {
            await centralBackend.close()
            throw error
        }
        await centralBackend.close()
    }
}

extension HaraldPeripheralBumbleIntegrationTests {
    /// The served definition's events tell a pairing and the encryption it brought, naming the
    /// central as its other events do.
    @Test func aServedDevicesEventsReportThePairingAndTheEncryptedLink() async throws {
        let device = try HeartRateMonitorDevice(name: "Harald-HRM-E", serialNumberSecurity: .encrypted)
        let served = try await ServedPeripheral.start(
            device.definition,
            on: HCIPeripheralBackend(transport: try #require(HaraldPair.peripheralTransport), security: SecurityConfiguration(bonds: InMemoryBondStore())))
        let log = Locked<[PeripheralEvent]>([])
        let stream = served.events()
        let watcher = Task { for await event in stream { log.withLock { $0.append(event) } } }
        let backend = try await HCICentralBackend.open(
            transport: try #require(HaraldPair.centralTransport), security: SecurityConfiguration(bonds: InMemoryBondStore()))
        let central = Central(backend: backend)
        let found = try await central.scan(ScanRequest(namePrefix: "Harald-HRM-E")).first(timeout: .seconds(10))
        let connection = try await central.connect(to: found, timeout: .seconds(10))
        let serial = try await connection.read(.serialNumber).text
        let centrals = await served.centrals()
        await connection.disconnect()
        await backend.close()
        await served.stop()
        _ = await watcher.value
        let events = log.withLock { $0 }
        #expect(serial == "HRM-000042")
        let connected = try #require(centrals.first)
        #expect(events.contains(.paired(connected, bonded: true)), "events: \(events)")
        #expect(events.contains { if case .secured(connected, let level) = $0 { level >= .encrypted } else { false } }, "events: \(events)")
    }
}
